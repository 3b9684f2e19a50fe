"""Toasts stay out of the way (issue 39 item 4): a few seconds at most, never over the
run-status line or the footer, `esc` takes them down, and at 80x24 nothing of them is
left on the screen afterwards."""

from __future__ import annotations

from tui_support import make_app, screen_text, until

from cockpit.ui.toasts import TOAST_MAX_S
from cockpit.ui.widgets.chrome.run_status import RunStatus

LONG = ("Server l2 restarted on lxc: ready after 41 s; the sweep goes on at c=64 "
        "(the log pane follows the new run; press ! for the alert that came with it)")


async def _toast_shown(app, pilot) -> None:  # noqa: ANN001
    await until(lambda: bool(app.query("Toast")), pilot)
    await pilot.pause(0.3)  # (its fade-in)


async def test_a_long_asked_toast_stays_a_few_seconds_and_clears_the_status_line(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        app.main_screen.show_run_status("l2 ▶ ready on lxc · sweep s1 point 3/12", {})
        await pilot.pause()
        app.notify(LONG, timeout=60)
        await _toast_shown(app, pilot)
        assert [n.timeout for n in app._notifications] == [TOAST_MAX_S]
        status = app.main_screen.query_one(RunStatus).region
        for toast in app.query("Toast"):
            assert toast.region.bottom <= status.y, (toast.region, status)  # above the status line
        assert "point 3/12" in screen_text(app).splitlines()[status.y]


async def test_esc_takes_toasts_down_and_leaves_no_fragment_at_80x24(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause(0.3)
        before = screen_text(app)
        app.notify(LONG, severity="warning", timeout=60)
        await _toast_shown(app, pilot)
        assert "restarted on lxc" in screen_text(app)
        await pilot.press("escape")
        await until(lambda: not app.query("Toast"), pilot)
        await pilot.pause(0.2)
        assert screen_text(app) == before  # every cell back as it was


def test_snapshot_80x24_after_a_toast_is_dismissed(snap_compare, example_path):
    """The main screen at 80x24 after a long toast came and `esc` took it down: no fragment of
    it over the board, the status line or the footer."""

    async def run_before(pilot) -> None:  # noqa: ANN001
        await pilot.pause()
        pilot.app.notify(LONG, timeout=60)
        await _toast_shown(pilot.app, pilot)
        await pilot.press("escape")
        await until(lambda: not pilot.app.query("Toast"), pilot)
        await pilot.pause(0.2)

    assert snap_compare(make_app(example_path), terminal_size=(80, 24), run_before=run_before)
