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
from collections.abc import Callable
from typing import TYPE_CHECKING

from cockpit.cli.seconds_arg import GRACE, TIMEOUT
from cockpit.ground.sanitize import sanitize
from cockpit.sources.transport.ssh_target import SshOptions

if TYPE_CHECKING:
    from cockpit.control.experiment import ExperimentService
    from cockpit.control.experiment_types import ExperimentEvent, Question
    from cockpit.sources.transport.ssh_pool import Pool


def register(sub: argparse._SubParsersAction) -> None:
    from cockpit.cli.watch.target_args import add_ssh_options

    r = sub.add_parser("run", help="start a launch profile's server on its host (detached)",
                       description="Start PROFILE (an id or a name) on its host: over SSH for a host with "
                                   "`ssh`, else on this machine. Exit 0 started (ready with --wait-ready), "
                                   "1 not started, 2 crashed or not ready in time.")
    r.add_argument("session")
    r.add_argument("profile", help="launch profile id (p3) or name")
    r.add_argument("--wait-ready", action="store_true", help="follow the log until the server is ready or crashed")
    r.add_argument("--timeout", type=TIMEOUT, default=1800.0, metavar="S",
                   help="with --wait-ready: seconds to wait for ready (default 1800); the server is left running")
    r.add_argument("--yes", action="store_true", help="run a command not confirmed before without asking")
    add_ssh_options(r)
    r.set_defaults(func=cmd_run)

    s = sub.add_parser("stop", help="stop the session's server on a host (or on all its hosts)",
                       description="SIGTERM to the server's process group, SIGKILL after --grace seconds, "
                                   "then check nothing of it is left. Exit 1 if a host could not be "
                                   "reached or a process is left.")
    s.add_argument("session")
    s.add_argument("host", nargs="?", help="a session host name ('local' for this machine); default: every host")
    s.add_argument("--grace", type=GRACE, default=10.0, metavar="S", help="seconds between SIGTERM and SIGKILL (default 10)")
    add_ssh_options(s)
    s.set_defaults(func=cmd_stop)


def _say(text: str, err: bool = False) -> None:
    print(sanitize(text, multiline=True), file=sys.stderr if err else sys.stdout, flush=True)


def _ssh_kw(args: argparse.Namespace) -> SshOptions:
    return SshOptions(ssh_config=tuple(args.ssh_config) if args.ssh_config else None, known_hosts=args.known_hosts)


def _service(args: argparse.Namespace, pool: Pool,
             on_event: Callable[[ExperimentEvent], object] | None = None) -> ExperimentService:
    """The experiment service (control/experiment.py) over the file: records as the person."""
    from cockpit.control.experiment import ExperimentService
    from cockpit.control.transaction import SessionFile
    from cockpit.model.edit.edits import PERSON

    return ExperimentService(args.session, SessionFile(args.session, actor=PERSON), pool=pool, on_event=on_event,
                             **_ssh_kw(args))


async def _ask(args: argparse.Namespace, question: Question) -> bool:
    """A command never run in this form: --yes, else the person's answer at this terminal."""
    if question.kind != "launch":  # `cockpit run` starts servers: no sweep is asked about here
        return False
    plan = question.plan
    if args.yes:
        return True
    if not sys.stdin.isatty():
        _say(f"{args.session}: not started: this command needs confirmation (it has not been confirmed "
             f"by a person at a terminal); it would run\n"
             f"{plan.preview()}\nrun again with --yes to confirm it (or start it once from a terminal)", err=True)
        return False
    _say(f"this command has not been run before (or changed):\n{plan.preview()}")
    try:
        answer = await asyncio.to_thread(input, "run it? [y/N] ")
    except EOFError:
        answer = ""
    if answer.strip().lower() not in ("y", "yes"):
        _say("not started")
        return False
    return True


def cmd_run(args: argparse.Namespace) -> int:
    from cockpit.store.cli_load import load_or_report

    session = load_or_report(args.session)
    if session is None:
        return 1
    where: list[str] = []
    try:
        return asyncio.run(_run(args, where))
    except KeyboardInterrupt:
        if not where:  # before anything started
            _say("not started", err=True)
            return 130
        _say(f"stopped waiting; the server keeps running (cockpit stop {shlex.quote(args.session)} {where[0]})",
             err=True)
        return 130


async def _run(args: argparse.Namespace, where: list[str]) -> int:
    from cockpit.control.experiment_types import LaunchNote, ServerPhase, ServerStarted, ServerStarting
    from cockpit.live.experiment.launch_lifecycle import PHASE_WORDS
    from cockpit.sources.transport.ssh_pool import SshPool

    label = shlex.quote(args.session)

    def on_event(event: ExperimentEvent) -> None:
        if isinstance(event, ServerStarting):
            plan = event.plan
            where.append(plan.place.host)
            _say(f"starting {plan.profile_id} ({plan.profile_name}) on {plan.place.where}")
            _say(f"  command: {plan.command_line()}")
            _say(f"  log:     {plan.log_path}")
        elif isinstance(event, ServerStarted):
            if event.started.gpu.warning:
                _say(f"  warning: {event.started.gpu.warning}")
            _say(f"  started: pid {event.started.status.pid} (its own process group; it outlives this command)")
        elif isinstance(event, ServerPhase):
            _say(f"  {PHASE_WORDS.get(event.phase, event.phase)} ({event.elapsed_s:.1f} s)")
        elif isinstance(event, LaunchNote):
            _say(f"  (reading the log failed, retrying: {event.text})", err=True)

    async with SshPool() as pool:
        service = _service(args, pool, on_event)
        out = await service.start(args.profile, lambda question: _ask(args, question),
                                  wait_ready=args.wait_ready, timeout_s=args.timeout)
    if out.kind == "refused":
        _say(f"{args.session}: {out.message}", err=True)
        return 1
    if out.kind == "not_confirmed":
        if out.message:
            _say(f"{args.session}: not started: {out.message}", err=True)
        return 1
    if out.kind == "already_running":
        _say(out.message, err=True)
        return 1
    if out.kind == "not_started":
        _say(f"not started: {out.message}", err=True)
        return 1
    if out.kind == "not_saved" and out.launch is None:
        _say(f"{args.session}: {out.message}", err=True)
        return 1 if out.started is None else 0
    if out.kind == "started" or out.launch is None:
        return 0
    launch = out.launch
    _say(launch.describe())
    if launch.kind == "crashed":
        for line in launch.tail:
            _say(f"  | {line}")
    elif launch.kind == "timeout":
        _say(f"  the server is left running; stop it with: cockpit stop {label} {launch.host}")
    if out.message:  # the outcome could not be recorded
        _say(f"{args.session}: {out.message}", err=True)
    if launch.ok:
        return 1 if out.message else 0
    return 2


def cmd_stop(args: argparse.Namespace) -> int:
    from cockpit.store.cli_load import load_or_report

    session = load_or_report(args.session)
    if session is None:
        return 1
    hosts: list[str | None] | None = None
    if args.host is not None:
        known = [h.name for h in session.hosts]
        if args.host not in known and args.host != "local":
            # `local` (this machine) is always a host; a session may also name one so (the sandbox does)
            _say(f"{args.session}: no host {args.host!r} (hosts: {', '.join(dict.fromkeys([*known, 'local']))})",
                 err=True)
            return 1
        hosts = [None if args.host == "local" else args.host]
    return asyncio.run(_stop(args, hosts))


async def _stop(args: argparse.Namespace, hosts: list[str | None] | None) -> int:
    from cockpit.model.edit.edits import EditError
    from cockpit.sources.transport.ssh_pool import SshPool

    status = 0
    async with SshPool() as pool:
        try:
            outcomes = await _service(args, pool).stop(hosts, grace_s=args.grace)
        except (OSError, EditError, ValueError) as exc:  # stopped, but the note not saved
            _say(f"{args.session}: {exc}", err=True)
            return 1
    for out in outcomes:
        result = out.result
        if out.error is not None or result is None:
            _say(f"{out.host}: not stopped: {out.error}", err=True)
            status = 1
        elif result.pid is None:
            _say(f"{out.host}: no server of this session")
        elif not result.clean:
            _say(f"{out.host}: pid {result.pid}: processes left after {'+'.join(result.signals)}: "
                 f"{' '.join(map(str, result.left))}", err=True)
            status = 1
        elif not result.signals:
            _say(f"{out.host}: pid {result.pid} had already ended")
        else:
            _say(f"{out.host}: stopped pid {result.pid} ({' then '.join('SIG' + s for s in result.signals)})")
    return status
