"""The palette's "hosts: Reconnect NAME": offered for each session host with a live feed,
and choosing it restarts that host's feeds (ui/keys/commands.py HostCommands, registered on the app)."""

from __future__ import annotations

from tui_support import keys_for, make_app, screen_text, until

from cockpit.model.session import Host, Session
from cockpit.sources.session_feeds import sources_for_session
from cockpit.store.toml_store import load_session, save_session
from cockpit.ui.keys.commands import HostCommands


def _two_local_hosts(session_path, tmp_path):  # noqa: ANN001, ANN202
    logs = {name: tmp_path / f"{name}.log" for name in ("alpha", "beta")}
    for name, log in logs.items():
        log.write_text(f"[2026-11-29 09:00:00] {name} started\n")
    save_session(Session(title="two", hosts=[Host(name=n, log_path=str(p)) for n, p in logs.items()]),
                 session_path)
    return logs


async def test_the_palette_offers_a_reconnect_per_live_host(session_path, tmp_path):
    _two_local_hosts(session_path, tmp_path)
    app = make_app(session_path, sources=sources_for_session(load_session(session_path)))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: app.host_states.get("beta") == "tailing", pilot)
        assert HostCommands in app.COMMANDS
        titles = [hit.text async for hit in HostCommands(app.screen).discover()]
        assert titles == ["hosts: Reconnect alpha", "hosts: Reconnect beta"]


async def test_reconnect_from_the_palette_restarts_that_hosts_feeds(session_path, tmp_path):
    _two_local_hosts(session_path, tmp_path)
    app = make_app(session_path, sources=sources_for_session(load_session(session_path)))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await until(lambda: app.host_states.get("beta") == "tailing", pilot)
        alpha_before, beta_before = _feed_workers(app, "alpha"), _feed_workers(app, "beta")
        assert alpha_before and beta_before
        await pilot.press("ctrl+p")
        await pilot.press(*keys_for("reconnect beta"))
        await until(lambda: "hosts: Reconnect beta" in screen_text(app), pilot)
        await pilot.press("enter")
        await until(lambda: "Reconnecting beta" in screen_text(app), pilot)  # the toast
        # beta's feeds were started again (new workers), alpha's were left alone
        await until(lambda: bool(_feed_workers(app, "beta")) and not _feed_workers(app, "beta") & beta_before, pilot)
        assert _feed_workers(app, "alpha") == alpha_before


def _feed_workers(app, host: str) -> set[object]:  # noqa: ANN001
    return {w for w in app.workers if w.group.endswith(f"@{host}") and not w.is_finished}
