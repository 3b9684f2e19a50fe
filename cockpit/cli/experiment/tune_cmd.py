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
from typing import Any

from cockpit.ground.sanitize import sanitize

EXIT_DONE, EXIT_FAILED, EXIT_REFUSED, EXIT_CANCELLED = 0, 1, 3, 130


def register(sub: argparse._SubParsersAction) -> None:
    from cockpit.cli.watch.gpu_cmds import _ssh_options

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
    p.add_argument("--json", action="store_true", help="print the trials and the best as JSON at the end")
    p.add_argument("--ready-timeout", type=float, default=1800.0, metavar="S",
                   help="seconds a trial's server may take to get ready (default 1800)")
    _ssh_options(p)
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
    refused = _consent(args, session, search, hosts)
    if refused is not None:
        return refused
    return asyncio.run(_main(args, search.id, hosts))


def _consent(args: argparse.Namespace, session: Any, search: Any, hosts: list[str | None]) -> int | None:
    from cockpit.control.search.consent import consent_lines, search_fingerprint
    from cockpit.control.transaction import edit
    from cockpit.model.edit.edits import PERSON
    from cockpit.sources.server.confirm_key import confirmation, is_confirmed

    stamp = search_fingerprint(session, search, hosts)
    if is_confirmed("search", stamp, search.confirmed):
        return None
    budget = args.trials if args.trials is not None else search.trials
    for line in consent_lines(session, search, hosts, budget):
        _say(line, quiet=args.json)
    if not args.yes:
        if not sys.stdin.isatty():
            _say("cockpit tune: not run: this search was never confirmed; check it and run again with --yes",
                 err=True)
            return EXIT_REFUSED
        if input("Run it? [y/N] ").strip().lower() not in ("y", "yes"):
            _say("not run")
            return EXIT_REFUSED
    sealed = confirmation("search", stamp)  # the person answered (or typed --yes): their seal

    def change(editor: Any) -> None:
        def seal(s: Any) -> None:
            s.searches = [q.model_copy(update={"confirmed": sealed}) if q.id == search.id else q for q in s.searches]
        editor.apply(f"search {search.id} confirmed", seal, kind="search.confirmed", ref=search.id)
    edit(args.session, change, PERSON)
    return None


async def _main(args: argparse.Namespace, search_id: str, hosts: list[str | None]) -> int:
    from cockpit.control.search.loop import SearchEvent, SearchLoop, find_search
    from cockpit.control.search.server_trials import SEARCH, ServerTrialRunner
    from cockpit.control.sweep_records import TransactionSink
    from cockpit.model.search.search import TrialStatus
    from cockpit.sources.transport.ssh_pool import SshPool

    def said(event: SearchEvent) -> None:
        if event.kind not in ("state", "note") or not event.host:
            _say(event.text, quiet=args.json)

    async with SshPool() as pool:
        runner = ServerTrialRunner(pool, ready_timeout_s=args.ready_timeout,
                                   ssh_config=tuple(args.ssh_config) if args.ssh_config else None,
                                   known_hosts=args.known_hosts)
        store = TransactionSink(args.session, actor=SEARCH)
        loop = SearchLoop(store, args.session, search_id, runner, hosts, budget=args.trials, on_event=said)
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
    if loop._stopped:  # noqa: SLF001 -- Ctrl-C
        return EXIT_CANCELLED
    new = [t for t in search.trial if t.number not in before]
    for error in loop.errors:
        _say(f"cockpit tune: {error}", err=True)
    failed = loop.errors or any(t.status is TrialStatus.FAILED for t in new)
    return EXIT_FAILED if failed else EXIT_DONE


def _report(args: argparse.Namespace, search: Any, overhead_s: list[float]) -> None:
    from cockpit.model.search.search_scoring import best_config, noise_share

    best = best_config(search)
    if args.json:
        out = {"search": search.id, "trials": [t.model_dump(mode="json") for t in search.trial],
               "best": None if best is None else {"trial": best.first.number, "profile": best.first.profile,
                                                  "params": best.first.params, "mean": best.mean,
                                                  "median": best.median, "spread": best.spread,
                                                  "min": min(best.values, default=None),
                                                  "max": max(best.values, default=None),
                                                  "launches": len(best.values)},
               "noise": noise_share(search), "overhead_s": [round(x, 3) for x in overhead_s]}
        print(json.dumps(out, indent=2))
        return
    if best is None:
        _say(f"search {search.id}: no trial has met the constraints yet")
        return
    est = best.estimate
    _say(f"best: trial {best.first.number} ({best.first.profile}) {search.objective} "
         f"{est.text() if est is not None else '—'} over {len(best.values)} launch{'es' if len(best.values) != 1 else ''}")
