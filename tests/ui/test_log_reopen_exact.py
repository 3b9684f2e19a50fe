"""Reopen is exact (issue 39 item 6): the log view's place and its current match are saved
in the session and put back once the lines are read again; the strip says what its peak
and bars cover."""

from __future__ import annotations

from test_log_pane import decode_lines, screen_rows, until
from test_log_pane_keys import feed_text

from tui_support import keys_for, make_app, screen_text

from cockpit.store.toml_store import load_session
from cockpit.ui.widgets.log.pane import LogPane


def _log(n: int = 400) -> list[str]:
    lines = decode_lines(n)
    for k in range(6):
        lines[40 + 50 * k] = f"[2025-03-01 12:00:00 TP0] needle number {k + 1}"
    return lines


async def test_the_log_place_and_current_match_are_back_after_a_reopen(session_path) -> None:
    lines = _log()
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        pane = app.main_screen.query_one(LogPane)
        feed_text(pane, lines)
        await until(pilot, lambda: pane.buffer.rows == len(lines))
        app.main_screen.focus_pane("log")
        await pilot.press("slash")
        await pilot.press(*keys_for("needle"), "enter")
        await pilot.press("N", "N", "N")  # the newest match, then back three: the 3rd of 6
        await until(pilot, lambda: "3 of 6" in str(pane.border_title))
        place = int(pane.view.scroll_y)
        shown = screen_rows(pane)
        assert any("needle number 3" in row for row in shown)
        await pilot.press("q")
    saved = load_session(session_path).ui.log
    assert saved.follow is False and saved.search == "needle"
    assert saved.match_line is not None and "needle number 3" in saved.match_line
    assert saved.top_line is not None

    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        pane = app.main_screen.query_one(LogPane)
        feed_text(pane, lines)  # the same log read again
        await until(pilot, lambda: pane.buffer.rows == len(lines))
        await until(pilot, lambda: "3 of 6" in str(pane.border_title))
        assert int(pane.view.scroll_y) == place
        assert screen_rows(pane) == shown
        await pilot.press("n")  # and the search goes on from there
        await until(pilot, lambda: "4 of 6" in str(pane.border_title))


async def test_the_strip_says_what_its_peak_and_bars_cover(session_path) -> None:
    app = make_app(session_path)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        pane = app.main_screen.query_one(LogPane)
        feed_text(pane, decode_lines(30))
        await until(pilot, lambda: "↑ peak of the lines read" in screen_text(app))
        assert "bars: 15 min of log time" in screen_text(app)


async def test_the_same_log_read_again_shows_the_same_figures_and_peaks() -> None:
    """Issue 39: the strip's peak (↑) changed on an unchanged log. Read twice through the
    pipeline, as a reopen reads it, the same lines give the same cells, peaks included."""
    from test_log_pane import PaneApp, text_batch, through_pipeline

    from cockpit.ui.widgets.log.metrics_strip import LogMetricsStrip

    lines = _log()
    cells = []
    for _ in range(2):
        app = PaneApp()
        async with app.run_test(size=(120, 30)) as pilot:
            pane = app.query_one(LogPane)
            await through_pipeline(pane, text_batch(lines))
            await pilot.pause()
            cells.append(pane.query_one(LogMetricsStrip).render().plain.splitlines()[1])
    # the last line's figures; the peaks over every line read (1,244 tok/s, 16 running, 3 queued, 55%)
    assert cells[0].startswith("gen tok/s 1.1k ↑1.2k "), cells[0]
    assert "running 10 ↑16" in cells[0] and "queued 3 ↑3" in cells[0] and "kv 55% ↑55%" in cells[0], cells[0]
    assert cells[1] == cells[0]
