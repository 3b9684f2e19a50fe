"""`cockpit run SESSION PROFILE` and `cockpit stop SESSION [HOST]`: start a launch profile's
server on its host (detached: it outlives this command) and stop it.

Exit status of `run`: 0 started (with --wait-ready: ready), 1 not started (refused, not
confirmed, unreachable), 2 started but not ready (crashed, or not ready within --timeout).
`stop`: 0 stopped or nothing to stop, 1 a host could not be reached or a process is left.

Nothing runs that the person has not seen: a profile whose command, env or host changed
since it was last confirmed shows the exact command and env (secrets masked) and asks; with
no terminal to ask on, it needs --yes. Session writes take the same lock as `cockpit add`.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sys
from typing import Any

from cockpit.parse.sanitize import sanitize


def register(sub: argparse._SubParsersAction) -> None:
    from cockpit.cli.gpu_cmds import _ssh_options

    r = sub.add_parser("run", help="start a launch profile's server on its host (detached)",
                       description="Start PROFILE (an id or a name) on its host: over SSH for a host with "
                                   "`ssh`, else on this machine. Exit 0 started (ready with --wait-ready), "
                                   "1 not started, 2 crashed or not ready in time.")
    r.add_argument("session")
    r.add_argument("profile", help="launch profile id (p3) or name")
    r.add_argument("--wait-ready", action="store_true", help="follow the log until the server is ready or crashed")
    r.add_argument("--timeout", type=float, default=1800.0, metavar="S",
                   help="with --wait-ready: seconds to wait for ready (default 1800); the server is left running")
    r.add_argument("--yes", action="store_true", help="run a command not confirmed before without asking")
    _ssh_options(r)
    r.set_defaults(func=cmd_run)

    s = sub.add_parser("stop", help="stop the session's server on a host (or on all its hosts)",
                       description="SIGTERM to the server's process group, SIGKILL after --grace seconds, "
                                   "then check nothing of it is left. Exit 1 if a host could not be "
                                   "reached or a process is left.")
    s.add_argument("session")
    s.add_argument("host", nargs="?", help="a session host name ('local' for this machine); default: every host")
    s.add_argument("--grace", type=float, default=10.0, metavar="S", help="seconds between SIGTERM and SIGKILL (default 10)")
    _ssh_options(s)
    s.set_defaults(func=cmd_stop)


def _say(text: str, err: bool = False) -> None:
    print(sanitize(text, multiline=True), file=sys.stderr if err else sys.stdout, flush=True)


def _ssh_kw(args: argparse.Namespace) -> dict[str, Any]:
    return {"ssh_config": tuple(args.ssh_config) if args.ssh_config else None, "known_hosts": args.known_hosts}


def _confirm(args: argparse.Namespace, plan: Any) -> int:
    """0 when the plan may run (confirmed now or before), else the exit status."""
    from cockpit.cli.session_cmds import _edit
    from cockpit.model.edits import EditError
    from cockpit.model.launch_confirm import fingerprint
    from cockpit.sources.confirm_key import ConfirmKeyError, confirmation

    if not plan.needs_confirmation:
        return 0
    if not args.yes:
        if not sys.stdin.isatty():
            _say(f"{args.session}: not started: this command needs confirmation (it has not been confirmed "
                 f"by a person at a terminal); it would run\n"
                 f"{plan.preview()}\nrun again with --yes to confirm it (or start it once from a terminal)", err=True)
            return 1
        _say(f"this command has not been run before (or changed):\n{plan.preview()}")
        try:
            answer = input("run it? [y/N] ")
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            _say("not started")
            return 1

    try:  # the person answered (or typed --yes): seal it with this user's key
        sealed = confirmation("launch", plan.fingerprint)
    except ConfirmKeyError as exc:
        _say(f"{args.session}: not started: cannot record the confirmation: {exc}", err=True)
        return 1

    def change(editor: Any) -> None:
        profile = next(p for p in editor.session.launch if p.id == plan.profile_id)
        if fingerprint(profile) != plan.fingerprint:  # edited meanwhile (the TUI): confirm what runs
            raise EditError(f"profile {plan.profile_id} changed while asking; run again to see the new command")
        editor.edit_record("launch", plan.profile_id, confirmed=sealed)
    return _edit(args.session, change)


def cmd_run(args: argparse.Namespace) -> int:
    from cockpit.sources.server_control import ServerControlError, plan_launch
    from cockpit.store.cli_load import load_or_report

    session = load_or_report(args.session)
    if session is None:
        return 1
    try:
        plan = plan_launch(session, args.session, args.profile, **_ssh_kw(args))
    except ServerControlError as exc:
        _say(f"{args.session}: {exc}", err=True)
        return 1
    status = _confirm(args, plan)
    if status:
        return status
    try:
        return asyncio.run(_run(args, plan))
    except KeyboardInterrupt:
        _say(f"stopped waiting; the server keeps running (cockpit stop {shlex.quote(args.session)} {plan.place.host})",
             err=True)
        return 130


async def _run(args: argparse.Namespace, plan: Any) -> int:
    from cockpit.cli.session_cmds import _edit
    from cockpit.live.launch_lifecycle import PHASE_WORDS, apply_outcome, follow_launch
    from cockpit.sources.server_control import AlreadyRunning, ServerControl, ServerControlError
    from cockpit.sources.ssh_pool import SshPool

    label = shlex.quote(args.session)
    async with SshPool() as pool:
        control = ServerControl(pool)
        _say(f"starting {plan.profile_id} ({plan.profile_name}) on {plan.place.where}")
        _say(f"  command: {plan.command_line()}")
        _say(f"  log:     {plan.log_path}")
        try:
            started = await control.start(plan, session_label=label)
        except AlreadyRunning as exc:
            _say(str(exc), err=True)
            return 1
        except ServerControlError as exc:
            _say(f"not started: {exc}", err=True)
            return 1
        if started.gpu.warning:
            _say(f"  warning: {started.gpu.warning}")
        _say(f"  started: pid {started.status.pid} (its own process group; it outlives this command)")
        if not args.wait_ready:
            _edit(args.session, lambda ed: ed.record_activity(
                f"started {plan.profile_id} ({plan.profile_name}) on {plan.place.host}, pid {started.status.pid}",
                next_step=f"wait for ready (the log pane, or cockpit run {label} {plan.profile_id} --wait-ready)"))
            return 0
        outcome = await follow_launch(
            control, plan, started, timeout_s=args.timeout,
            on_phase=lambda phase, t: _say(f"  {PHASE_WORDS.get(phase, phase)} ({t:.1f} s)"),
            on_note=lambda text: _say(f"  (reading the log failed, retrying: {text})", err=True))
    _say(outcome.describe())
    if outcome.kind == "crashed":
        for line in outcome.tail:
            _say(f"  | {line}")
    elif outcome.kind == "timeout":
        _say(f"  the server is left running; stop it with: cockpit stop {label} {plan.place.host}")
    edit_status = _edit(args.session, lambda ed: apply_outcome(ed, outcome, session_label=label))
    if outcome.ok:
        return edit_status
    return 2


def cmd_stop(args: argparse.Namespace) -> int:
    from cockpit.sources.server_control import place_for_host, places_of_session
    from cockpit.store.cli_load import load_or_report

    session = load_or_report(args.session)
    if session is None:
        return 1
    if args.host is None:
        places = places_of_session(session, args.session, **_ssh_kw(args))
    else:
        known = [h.name for h in session.hosts]
        if args.host not in known and args.host != "local":
            _say(f"{args.session}: no host {args.host!r} (hosts: {', '.join(known + ['local'])})", err=True)
            return 1
        places = [place_for_host(session, args.session, None if args.host == "local" else args.host, **_ssh_kw(args))]
    return asyncio.run(_stop(args, places))


async def _stop(args: argparse.Namespace, places: list) -> int:
    from cockpit.cli.session_cmds import _edit
    from cockpit.sources.server_control import ServerControl, ServerControlError
    from cockpit.sources.ssh_pool import SshPool

    status, stopped = 0, []
    async with SshPool() as pool:
        control = ServerControl(pool)
        for place in places:
            try:
                result = await control.stop(place, grace_s=args.grace)
            except ServerControlError as exc:
                _say(f"{place.host}: not stopped: {exc}", err=True)
                status = 1
                continue
            if result.pid is None:
                _say(f"{place.host}: no server of this session")
            elif not result.clean:
                _say(f"{place.host}: pid {result.pid}: processes left after {'+'.join(result.signals)}: "
                     f"{' '.join(map(str, result.left))}", err=True)
                status = 1
            elif not result.signals:
                _say(f"{place.host}: pid {result.pid} had already ended")
            else:
                _say(f"{place.host}: stopped pid {result.pid} ({' then '.join('SIG' + s for s in result.signals)})")
                stopped.append(f"{place.host} (pid {result.pid})")
    if stopped:
        status = _edit(args.session, lambda ed: ed.add_note(f"server stopped on {', '.join(stopped)}")) or status
    return status
