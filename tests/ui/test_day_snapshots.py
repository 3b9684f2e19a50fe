"""Every tab, the Search view and the findings at 80x24 and at 200x50, on a demo-like session after
a day's campaign (tests/ui/day_session.py: two profiles swept on one workload, a finished search
with a relaunch and a crash), with the clock frozen. A reviewer should see at 80x24: the
footer's keys whole (the pane's own first, `? Keys` kept), a profile column beside each
benchmark's id, the Search table's changed flags with the plot under it and its axes named,
nothing cut mid-word that a person needs; at 200x50 the same with room to spare."""

from __future__ import annotations

import pytest
from day_session import day_session

from tui_support import make_app, screen_text, until

from cockpit.ui.keys.actions import TABS

SIZES = [(80, 24), (200, 50)]
SETTLED = {"handoff": "1. Goal", "search": "launches ended", "findings": " open"}
"""What each view shows once drawn (the handoff renders off the UI thread)."""


def _show(key: str, settled: str | None = None):  # noqa: ANN202
    async def run_before(pilot) -> None:  # noqa: ANN001
        await pilot.pause()
        await pilot.press(key)
        await pilot.pause()
        if settled:
            await until(lambda: settled in screen_text(pilot.app), pilot, timeout=10)
        pilot.app.clear_notifications()  # what a key said is not what this snapshot is of
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("view", [*(tab for tab, *_ in TABS), "search", "findings"])
def test_each_view_after_a_day(snap_compare, tmp_path, view, size):
    """The view named in the test id, active and readable, with the header, banner, targets strip
    and tab bar above it and a footer whose keys are whole."""
    key = {"search": "Q", "findings": "D"}.get(view) or next(k for t, _l, _s, k in TABS if t == view)
    assert snap_compare(make_app(day_session(tmp_path)), terminal_size=size,
                        run_before=_show(key, SETTLED.get(view)))
