"""Asking a person before a host's `log_command` first runs (ctrl+l, "hosts: Confirm log
command"). The command comes from the session file, which anyone may have written (a
received session, an assistant, an editor), so it runs only once the person has seen it:
the dialog shows the host and the exact command (sanitized, secrets masked), and a yes
seals it with this user's key (control/live_access.py, sources/server/confirm_key.py) in the host's `log_confirmed`.
The feeds follow the session, so the log feed starts as soon as the seal is saved."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cockpit.control.live_access import ConfirmKeyError, log_command_confirmed, seal_log_command
from cockpit.ground.redact import redact_text
from cockpit.model.launch.confirm import log_fingerprint

if TYPE_CHECKING:
    from cockpit.model.session import Host, Session


def waiting_hosts(session: Session) -> list[Host]:
    """Hosts whose `log_command` no person has confirmed (in session order)."""
    return [h for h in session.hosts if h.log_command and not log_command_confirmed(h)]


def ask_log_command(app: Any) -> None:
    """The dialog for the shown log host's command (else the first one waiting)."""
    from cockpit.ui.screens.confirm_run import ConfirmRunScreen

    waiting = waiting_hosts(app.editor.session)
    if not waiting:
        app.notify("No log_command waits for confirmation", timeout=4)
        return
    shown = _shown_log_host(app)
    host = next((h for h in waiting if h.name == shown), waiting[0])
    stamp = log_fingerprint(host)
    where = f"over SSH on {host.ssh}" + (f" (through {host.jump})" if host.jump else "") if host.ssh else "on this machine"
    what = "\n".join([f"host:    {host.name}, {where}",
                      f"command: {redact_text(host.log_command or '')}",
                      "it runs as you, now and again each time it exits, to follow the server's log"])

    def answered(yes: bool | None) -> None:
        if not yes:
            app.notify(f"Not run: the log command of {host.name}", timeout=4)
            return
        current = next((h for h in app.editor.session.hosts if h.name == host.name), None)
        if current is None or log_fingerprint(current) != stamp:
            app.notify(f"{host.name}'s log command changed meanwhile: not run; ctrl+l shows the new one",
                       severity="warning", timeout=8)
            return
        try:
            sealed = seal_log_command(stamp)
        except ConfirmKeyError as exc:
            app.notify(f"Not run: cannot record the confirmation: {exc}", severity="error", timeout=10)
            return
        app.controller.apply(lambda editor: editor.edit_host(host.name, log_confirmed=sealed))
        app.save()

    app.push_screen(ConfirmRunScreen(f"Run the log command of host {host.name}? You have not confirmed it:", what),
                    answered)


def _shown_log_host(app: Any) -> str | None:
    try:
        from cockpit.ui.widgets.chrome.host_deck import HostDeck

        return app.main_screen.query_one("#log-deck", HostDeck).current
    except Exception:  # noqa: BLE001 -- no main screen yet: the first host waiting
        return None
