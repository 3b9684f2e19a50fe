"""A host's failure text whole in the app (issue 23, item 4): over the real sshd with a
known_hosts that lacks its key, `!` shows the refusal wrapped, with the fingerprint the
server offers and the exact ssh-keyscan line, which `y` copies."""

from __future__ import annotations

from sshd_fixture import ALIAS
from tui_support import make_app, screen_text, until

from cockpit.model.session import Host, Session
from cockpit.sources.session_feeds import sources_for_session
from cockpit.store.toml_store import load_session, save_session
from cockpit.ui.screens.failure_text import FailureTextScreen


async def test_an_unknown_host_key_is_shown_whole_with_its_fix_and_copied(sshd, tmp_path):
    empty = tmp_path / "known_hosts_empty"
    empty.write_text("")
    config = tmp_path / "ssh_config"
    config.write_text(open(sshd.ssh_config, encoding="utf-8").read().replace(sshd.known_hosts, str(empty)))
    log = sshd.make_dir("logs") / "server.log"
    log.write_text("[2026-11-29 09:00:00] ready\n")
    path = tmp_path / "c.toml"
    save_session(Session(title="keys", hosts=[Host(name="loop", ssh=ALIAS, log_path=str(log))]), path)
    app = make_app(path, sources=sources_for_session(load_session(path), ssh_config=(str(config),)))
    fix = f"ssh-keyscan -p {sshd.port} 127.0.0.1 >> {empty}"
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await until(lambda: any(a.kind == "failed" for a in app.alerts.unseen), pilot, timeout=30)
        await pilot.press("exclamation_mark")
        await until(lambda: isinstance(app.screen, FailureTextScreen), pilot)
        text = screen_text(app)
        assert "is unknown (not in" in text and "answer yes)" in text, text  # the end is there, not cut
        fingerprint = app.screen.fingerprint
        assert fingerprint and fingerprint.startswith("ssh-ed25519 SHA256:")
        assert "Fingerprint offered: ssh-ed25519" in text and fingerprint.split()[1] in text
        assert "y: copy the fix" in text
        assert app.screen.fix == fix
        await pilot.press("y")
        await until(lambda: app.clipboard == fix, pilot)
        await pilot.press("escape")
        assert not isinstance(app.screen, FailureTextScreen)
