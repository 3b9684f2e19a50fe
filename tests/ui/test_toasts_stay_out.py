"""Toasts stay out of the way (issue 39 item 4): a few seconds at most, never over the
run-status line or the footer, `esc` takes them down, and at 80x24 nothing of them is
left on the screen afterwards."""

from __future__ import annotations

import pytest

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


def _day_one(folder):  # noqa: ANN001, ANN202
    """A new campaign's file, as `cockpit NEW.toml` + `y` leaves it."""
    from cockpit.model.session import Session
    from cockpit.store.toml_store import save_session

    path = folder / "new.toml"
    save_session(Session(), path)
    return path


def test_snapshot_80x24_the_day_one_toast(snap_compare, tmp_path):
    """A new campaign at 80x24 with the day-one toast ("Created …: an empty campaign") up: it
    sits above the status line and the footer, which stay readable, and over no tab bar."""
    path = _day_one(tmp_path)
    app = make_app(path)
    app.startup_notes.append(f"Created {path.name}: an empty campaign (its title is the file's name)")

    async def run_before(pilot) -> None:  # noqa: ANN001
        await _toast_shown(pilot.app, pilot)
        status = pilot.app.main_screen.query_one(RunStatus).region
        footer_y = pilot.app.size.height - 1
        for toast in pilot.app.query("Toast"):
            assert toast.region.bottom <= min(status.y or footer_y, footer_y), (toast.region, status)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_snapshot_80x24_after_a_restart(snap_compare, tmp_path):
    """The same campaign reopened at 80x24 (the restart after day one): no toast, and nothing of
    the one the first start showed — header, tab bar, board, status line and footer whole."""
    path = _day_one(tmp_path)

    async def run_before(pilot) -> None:  # noqa: ANN001
        await pilot.pause(0.3)
        assert not pilot.app.query("Toast")

    assert snap_compare(make_app(path), terminal_size=(80, 24), run_before=run_before)



def _reopened(folder, tab):  # noqa: ANN001, ANN202
    """The file a restart opens: day one's empty campaign on its board, or the day's campaign
    (tests/day_session.py) left on the Launch tab."""
    from day_session import day_session

    from cockpit.store.toml_store import load_session, save_session

    if tab == "main":
        return _day_one(folder)
    path = day_session(folder)
    session = load_session(path)
    session.ui.active_tab = tab
    save_session(session, path)
    return path


@pytest.mark.parametrize("tab", ["main", "launch"])
async def test_80x24_the_restart_toast_leaves_nothing_on_the_terminal(tmp_path, monkeypatch, tab):
    """Reopened at 80x24 (day one's board; the day's Launch tab, the toast over its detail pane),
    the restart's toast goes on its own, no key pressed: what the app wrote to the terminal is,
    cell for cell, what the app holds (the detail pane and the status line whole) and no word of
    the toast. Without the redraw after a toast goes (app_base._unnotify) day one's toast stood
    on the terminal until the next key (what tmux showed; a compositor capture never did)."""
    from terminal_bytes import ever_shown, terminal_bytes, terminal_lines

    import cockpit.ui.toasts as toasts

    path = _reopened(tmp_path, tab)
    monkeypatch.setattr(toasts, "TOAST_MAX_S", 1.0)  # its few seconds, shortened for the test
    words = (f"Reopened {path.name}", "where you left")
    with terminal_bytes(monkeypatch) as written:
        app = make_app(path)
        app.startup_notes.append(f"Reopened {path.name}: where you left it (its title is the file's name; "
                                 "no server was running when it was saved)")
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await until(lambda: ever_shown(written, 80, 24, words[0]), pilot)
            if tab == "launch":
                app.main_screen.show_run_status("l1 ■ stopped · l2 ■ stopped · no server running", {})
            await until(lambda: not app.query("Toast"), pilot)
            await pilot.pause(0.3)
            held = [line.rstrip() for line in screen_text(app).splitlines()]
            status_y = app.main_screen.query_one(RunStatus).region.y
            shown = terminal_lines(written, 80, 24)
    assert not [line for line in shown if any(word in line for word in words)], "\n".join(shown)
    if tab == "launch":
        assert any("python -m sglang.launch_server" in line for line in shown), "\n".join(shown)  # the detail
        assert "no server running" in shown[status_y], "\n".join(shown)
    assert shown == held, "\n".join(shown)  # every cell the toast covered drawn again
