"""The GPU pane repaints only what a tick changed (the idle cockpit's CPU: benchmarks/README.md),
and what it shows stays right when a line goes back to an earlier text."""

from __future__ import annotations

from test_gpu_panes import _text, demo_ticks, pane_app
from textual.widgets import Static

from tui_support import until

from cockpit.parse.gpu.events import GpuSourceUnavailable
from cockpit.ui.widgets.chrome.strip_lines import StripLines
from cockpit.ui.widgets.gpu.pane import WAITING, GpuPane


def _count_updates(pane: GpuPane) -> dict[str, int]:
    """How often each line of the pane is given new content from now on."""
    counts: dict[str, int] = {}
    for part in ("state", "header", "rows", "total", "notes"):
        widget = pane.query_one(f".gpu-{part}")
        # the rows and the total are StripLines (`show`), the other parts Statics (`update`)
        name = "show" if isinstance(widget, StripLines) else "update"
        assert name == "show" or isinstance(widget, Static)
        original = getattr(widget, name)
        counts[part] = 0

        def counted(*args, _part=part, _original=original, **kwargs):  # noqa: ANN002, ANN003, ANN202
            counts[_part] += 1
            return _original(*args, **kwargs)

        setattr(widget, name, counted)
    return counts


async def test_a_tick_repaints_the_rows_and_total_but_not_the_unchanged_header_and_state() -> None:
    ticks = demo_ticks(8, 4)
    app = pane_app([])
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(GpuPane)
        pane.feed(ticks[0])
        await pilot.pause()
        header_before = _text(pane, "header")
        counts = _count_updates(pane)
        titles: list[object] = []
        original_refresh = pane.refresh
        pane.refresh = lambda *a, **k: (titles.append(1), original_refresh(*a, **k))[1]  # type: ignore[method-assign]
        for tick in ticks[1:]:
            pane.feed(tick)
            await pilot.pause(0.05)
        assert counts["rows"] == 3 and counts["total"] == 3, counts  # new figures each tick
        assert counts["header"] == 0 and counts["state"] == 0 and counts["notes"] == 0, counts
        assert _text(pane, "header") == header_before
        assert not titles, "the border title (GPU count and name) did not change: no repaint of the pane"
        assert "8×" in str(pane.border_title)


async def test_lines_that_go_back_to_an_earlier_text_are_shown_again() -> None:
    """Samples, then the source gone (the waiting line), then samples again: the header
    comes back though its text equals what it showed two draws ago."""
    ticks = demo_ticks(2, 3)
    app = pane_app([])
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(GpuPane)
        pane.feed(ticks[0])
        # waits on what is shown, not a fixed pause: a loaded CI machine draws later
        await until(lambda: bool(_text(pane, "header")) and WAITING not in _text(pane, "header"), pilot, timeout=10)
        header, rows = _text(pane, "header"), len(_text(pane, "rows").splitlines())
        assert rows >= 2
        pane.feed(GpuSourceUnavailable("nvidia-smi went away", host="lxc"))
        await until(lambda: "nvidia-smi went away" in _text(pane, "state"), pilot, timeout=10)
        assert _text(pane, "header") == ""
        pane.feed(ticks[1])
        await until(lambda: _text(pane, "header") == header, pilot, timeout=10)
        assert "went away" not in _text(pane, "state")
        assert len(_text(pane, "rows").splitlines()) == rows
