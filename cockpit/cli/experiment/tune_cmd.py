"""`cockpit tune SESSION SEARCH [--trials N] [--hosts a,b] [--yes] [--json]`: run a search over
launch configurations, resuming where the session left off.

Exit status (as `cockpit sweep`'s): 0 the budget is spent (or the space exhausted); 1 a trial
failed for a reason not its configuration's (or the session/search is wrong); 3 not run:
never confirmed and no terminal to ask on (give --yes); 130 cancelled (Ctrl-C: the running
trials' servers are stopped, each trial stays `running` and the next start resumes it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from typing import TYPE_CHECKING

from cockpit.cli.seconds_arg import TIMEOUT
from cockpit.ground.sanitize import sanitize

if TYPE_CHECKING:
    from cockpit.model.edit.edits import SessionEditor
    from cockpit.model.search.search import Search
    from cockpit.model.session import Session
    from cockpit.store.search_lock import SearchRunLock

EXIT_DONE, EXIT_FAILED, EXIT_REFUSED, EXIT_CANCELLED = 0, 1, 3, 130


def register(sub: argparse._SubParsersAction) -> None:
    from cockpit.cli.watch.target_args import add_ssh_options

    p = sub.add_parser("tune", help="search launch configurations ([[searches]]): each trial a launch, swept",
                       description="Run SEARCH (id or name): per trial the optimizer picks a configuration of the "
                                   "space, cockpit starts it as a derived launch profile, sweeps it, records every "
                                   "point, stops it. Resumes where the session left off. Exit 0 done, 1 a trial "
                                   "failed, 3 not confirmed, 130 cancelled.")
    p.add_argument("session")
    p.add_argument("search", metavar="SEARCH", help="a search id (q1) or name")
    p.add_argument("--trials", type=int, help="the launch budget (default: the search's `trials`)")
    p.add_argument("--hosts", help="hosts that run trials, one each at a time, comma-separated "
                                   "(default: the search's hosts, else the base profile's)")
    p.add_argument("--yes", action="store_true", help="run without asking, even if never confirmed")
    p.add_argument("--json", action="store_true",
                   help="JSON lines: one object per finished trial as it ends, then one with the best")
    p.add_argument("--seed", type=int, help="the sampler's seed (default: the search's `seed`, else a fresh one)")
    p.add_argument("--ready-timeout", type=TIMEOUT, default=1800.0, metavar="S",
                   help="seconds a trial's server may take to get ready (default 1800)")
    add_ssh_options(p)
    p.set_defaults(func=cmd_tune)


def _say(text: str, *, err: bool = False, quiet: bool = False) -> None:
    if not quiet or err:
        print(sanitize(text, multiline=True), file=sys.stderr if err or quiet else sys.stdout, flush=True)


def cmd_tune(args: argparse.Namespace) -> int:
    from cockpit.control.search.loop import find_search, hosts_of
    from cockpit.store.cli_load import load_or_report

    session = load_or_report(args.session)
    if session is None:
        return EXIT_FAILED
    try:
        search = find_search(session, args.search)
        hosts = hosts_of(session, search, args.hosts)
    except ValueError as exc:
        _say(f"cockpit tune: {exc}", err=True)
        return EXIT_FAILED
    if args.trials is not None and args.trials < 1:
        _say("cockpit tune: --trials must be at least 1", err=True)
        return EXIT_FAILED
    if args.seed is not None and args.seed < 0:
        _say("cockpit tune: --seed must be 0 or more", err=True)
        return EXIT_FAILED
    from cockpit.store.search_lock import SearchBusy, take_search_lock

    try:  # one runner per session and search: taken before asking, held to the end
        lock = take_search_lock(args.session, search.id)
    except SearchBusy as exc:
        _say(f"cockpit tune: not run: {exc}", err=True)
        return EXIT_REFUSED
    except OSError as exc:
        _say(f"cockpit tune: not run: cannot take the search's lock: {exc}", err=True)
        return EXIT_FAILED
    try:
        if (note := lock.note()) is not None:
            _say(f"note: {note}", err=args.json)
        refused = _consent(args, session, search, hosts)
        if refused is not None:
            return refused
        return asyncio.run(_main(args, search.id, hosts, lock))
    finally:
        lock.release()


def _consent(args: argparse.Namespace, session: Session, search: Search, hosts: list[str | None]) -> int | None:
    """The person's yes to what this run starts: the search (space, budget, base, sweep, hosts)
    and each trial it resumes whose profile is not the base plus the space's flags. Asked at
    a terminal or given as --yes; with neither, nothing runs (exit 3)."""
    from cockpit.control.search.consent import consent_lines, odd_trials, search_fingerprint, trial_lines
    from cockpit.control.transaction import edit
    from cockpit.model.edit.edits import PERSON, EditError
    from cockpit.model.launch.confirm import launch_stamp
    from cockpit.sources.server.confirm_key import confirmation, is_confirmed

    budget = args.trials if args.trials is not None else search.trials
    sealed_ok = is_confirmed("search", search_fingerprint(session, search, hosts), search.confirmed)
    # --trials past the budget a person confirmed is a new budget: their yes, and the search's `trials`
    wider = budget > search.trials
    asked = search.model_copy(update={"trials": budget}) if wider else search
    stamp = search_fingerprint(session, asked, hosts)
    search_ok = sealed_ok and not wider
    odd = odd_trials(session, search, hosts)
    if search_ok and not odd:
        return None
    lines = [] if search_ok else consent_lines(session, asked, hosts, budget)
    if wider and sealed_ok:
        lines.insert(0, f"--trials {budget} is past the {search.trials} launches confirmed for search {search.id}")
    if not search_ok:
        lines += _stops_lines(args, hosts)
    for line in lines + trial_lines(odd):
        _say(line, quiet=args.json)
    if not args.yes:
        if not sys.stdin.isatty():
            what = (f"trial {odd[0][0].number}'s profile {odd[0][1].id} is not the base plus the space's flags"
                    if search_ok else f"--trials {budget} is past the {search.trials} launches confirmed"
                    if wider and sealed_ok else "this search was never confirmed")
            _say(f"cockpit tune: not run: {what}; check it and run again with --yes", err=True)
            return EXIT_REFUSED
        if input("Run it? [y/N] ").strip().lower() not in ("y", "yes"):
            _say("not run")
            return EXIT_REFUSED
    # the person answered (or typed --yes): their seals, of the search and of each odd trial's profile
    sealed = confirmation("search", stamp)
    launches = {profile.id: (launch_stamp(profile, next((h for h in session.hosts if h.name == profile.host), None)),
                             profile) for _, profile, _ in odd}

    def change(editor: SessionEditor) -> None:
        def seal(s: Session) -> None:
            s.searches = [q.model_copy(update={"confirmed": sealed, "trials": budget}) if q.id == search.id else q
                          for q in s.searches]
        if not search_ok:
            editor.apply(f"search {search.id} confirmed", seal, kind="search.confirmed", ref=search.id)
        for ident, (shown, _) in launches.items():
            now = next((p for p in editor.session.launch if p.id == ident), None)
            host = next((h for h in editor.session.hosts if now is not None and h.name == now.host), None)
            if now is None or launch_stamp(now, host) != shown:  # changed while asking: confirm what runs
                raise EditError(f"profile {ident} changed while asking; run again to see it")
            editor.edit_record("launch", ident, confirmed=confirmation("launch", shown))
    try:
        edit(args.session, change, PERSON)
    except (OSError, EditError, ValueError) as exc:
        _say(f"cockpit tune: not run: {exc}", err=True)
        return EXIT_REFUSED
    return None


def _stops_lines(args: argparse.Namespace, hosts: list[str | None]) -> list[str]:
    """The servers of this session running on the search's hosts: a trial stops each before it
    starts, so the question names them."""
    import warnings

    try:
        with warnings.catch_warnings():  # asyncssh, loaded on the first connection, warns of DSA keys
            warnings.simplefilter("ignore")
            found = asyncio.run(_running_servers(args, hosts))
    except Exception as exc:  # noqa: BLE001 -- cannot ask the hosts: said, the question still asked
        return [f"  (could not ask the hosts whether a server runs there: {exc})"]
    return [f"  it stops the server running on {host}: pid {pid}, profile {profile}" for host, pid, profile in found]


async def _running_servers(args: argparse.Namespace, hosts: list[str | None]) -> list[tuple[str, int | None, str]]:
    from cockpit.control.experiment import ExperimentService
    from cockpit.control.search.server_trials import SEARCH
    from cockpit.control.transaction import SessionFile
    from cockpit.sources.transport.ssh_pool import SshPool

    out = []
    async with SshPool() as pool:
        service = ExperimentService(args.session, SessionFile(args.session, actor=SEARCH), pool=pool,
                                    ssh_config=tuple(args.ssh_config) if args.ssh_config else None,
                                    known_hosts=args.known_hosts)
        for host in hosts:
            _place, status = await service.running_there(host)
            if status is not None and status.running:
                out.append((host or "local", status.pid, status.profile_id or "not of this session"))
    return out


async def _main(args: argparse.Namespace, search_id: str, hosts: list[str | None], lock: SearchRunLock) -> int:
    from cockpit.control.search.loop import SearchEvent, SearchLoop, find_search
    from cockpit.control.search.server_trials import SEARCH, ServerTrialRunner
    from cockpit.control.search.trial_lines import trial_json
    from cockpit.control.transaction import SessionFile
    from cockpit.model.search.search import TrialStatus
    from cockpit.sources.transport.ssh_pool import SshPool

    def said(event: SearchEvent) -> None:
        if args.json and event.kind == "ended" and event.trial is not None:  # JSON lines, one per finished trial
            session = store.session
            print(json.dumps(trial_json(session, find_search(session, search_id), event.trial)), flush=True)
        if event.kind == "started" and not args.json:
            return  # the "ended" line says it all; the live state lines are the TUI's
        if event.kind not in ("state", "note") or not event.host:
            _say(event.text, quiet=args.json)

    async with SshPool() as pool:
        runner = ServerTrialRunner(pool, ready_timeout_s=args.ready_timeout,
                                   ssh_config=tuple(args.ssh_config) if args.ssh_config else None,
                                   known_hosts=args.known_hosts)
        store = SessionFile(args.session, actor=SEARCH)
        loop = SearchLoop(store, args.session, search_id, runner, hosts, budget=args.trials, on_event=said, lock=lock,
                          seed=args.seed)
        before = {t.number for t in find_search(store.session, search_id).trial if t.status is not TrialStatus.RUNNING}
        aio = asyncio.get_running_loop()
        aio.add_signal_handler(signal.SIGINT, loop.stop)
        try:
            search = await loop.run()
        finally:
            aio.remove_signal_handler(signal.SIGINT)
    if runner.overhead_s:
        _say(f"cockpit's own time per trial (beyond the server's start and the clients' runs): "
             f"{max(runner.overhead_s):.2f} s at most", quiet=args.json)
    _report(args, search, runner.overhead_s)
    if loop.stopped:  # Ctrl-C
        return EXIT_CANCELLED
    new = [t for t in search.trial if t.number not in before]
    for error in loop.errors:
        _say(f"cockpit tune: {error}", err=True)
    if loop.refused:
        for why in loop.refused:
            _say(f"cockpit tune: not run: {why}", err=True)
        return EXIT_REFUSED
    failed = loop.errors or any(t.status is TrialStatus.FAILED for t in new)
    return EXIT_FAILED if failed else EXIT_DONE


def _report(args: argparse.Namespace, search: Search, overhead_s: list[float]) -> None:
    from cockpit.model.search.scoring import certainty

    sure = certainty(search)
    if not args.json:
        return  # the loop's "done" line said the best, its flags and how sure
    if search.multi:  # several objectives: the front, and the person's pick (no computed best)
        from cockpit.control.search.front_json import front_json

        print(json.dumps({"search": search.id, "done": True, "launches": sum(1 for t in search.trial if not t.reused),
                          **front_json(search), "overhead_s": [round(x, 3) for x in overhead_s]}), flush=True)
        return
    best = None
    if sure is not None:
        lead = sure.best.estimate
        other = sure.runner_up.estimate if sure.runner_up is not None else None
        best = {"trial": sure.best.first.number, "profile": sure.best.first.profile, "params": sure.best.first.params,
                "median": lead.median if lead else None, "min": lead.low if lead else None,
                "max": lead.high if lead else None, "launches": lead.n if lead else 0,
                "runner_up": None if sure.runner_up is None or other is None else {
                    "trial": sure.runner_up.first.number, "median": other.median, "launches": other.n},
                "separated": sure.separated, "noise": sure.noise, "noise_measured": sure.measured,
                "sure": sure.shown(search.primary)}
    print(json.dumps({"search": search.id, "done": True, "launches": sum(1 for t in search.trial if not t.reused),
                      "best": best, "overhead_s": [round(x, 3) for x in overhead_s]}), flush=True)
