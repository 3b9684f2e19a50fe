"""`cockpit sweep SESSION SWEEP [--profile P] [--yes] [--port N] [--on-fail stop|skip] [--resume]`:
run a sweep's points with the SGLang bench client (`sglang.benchmark.serving`, else
`sglang.bench_serving`) on the running launch profile's host and record each as a benchmark.

Exit status: 0 every point recorded; 1 a point failed (every request failed, the server
stopped answering, the client gave no result; or the session/sweep/profile is wrong); 2 the
server is not ready (no answer on /health); 3 not run: never confirmed and no terminal to ask
on (give --yes); 130 cancelled (Ctrl-C: the client is killed, the points recorded so far stay).
Safe while the TUI has the session open: every record is saved under the session lock, merged
with what the TUI saved.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import time
from typing import TYPE_CHECKING, Any

from cockpit.cli.watch.target_args import add_ssh_options
from cockpit.ground.sanitize import sanitize
from cockpit.model.figures import three_figures

if TYPE_CHECKING:
    from cockpit.control.experiment_types import ExperimentEvent, Question
    from cockpit.model.session import Session, Sweep
    from cockpit.sources.transport.ssh_pool import Pool

ON_FAIL = ("stop", "skip")  # the runner's (control/sweep_runner.py), not imported before a sweep runs
EXIT_DONE, EXIT_FAILED, EXIT_NOT_READY, EXIT_REFUSED, EXIT_CANCELLED = 0, 1, 2, 3, 130


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sweep", help="run a [[sweeps]] workload with SGLang's bench client, a benchmark per point",
                       description="Run SWEEP (id or name) on the running launch profile: per concurrency, "
                                   "`PYTHON -m sglang.benchmark.serving ... --max-concurrency C` (sglang.bench_serving "
                                   "where the host lacks it; PYTHON: the interpreter the profile's command names, else "
                                   "its `python`, else python3) on the profile's host, recorded as a benchmark with GPU "
                                   "power over the client's main run, the server log's peaks and the server's own "
                                   "TTFT/ITL percentiles (when it serves /metrics). "
                                   "Exit 0 done, 1 a point failed, 2 server not ready, 3 not confirmed.")
    p.add_argument("session")
    p.add_argument("sweep", metavar="SWEEP", help="a sweep id (s1) or name")
    p.add_argument("--profile", help="launch profile id or name (default: the one running, else the working one)")
    p.add_argument("--port", type=int, help="the server's port (default: the profile command's --port, else 30000)")
    p.add_argument("--yes", action="store_true", help="run without asking, even if these commands were never confirmed")
    p.add_argument("--on-fail", choices=ON_FAIL, default="stop",
                   help="after a failed point (every request failed, the server stopped answering, the client "
                        "gave no result): stop the sweep (default) or skip to the next point; exit 1 either way")
    p.add_argument("--resume", action="store_true",
                   help="run only the points of this sweep's last unfinished run that have no record yet")
    add_ssh_options(p)
    p.set_defaults(func=cmd_sweep)


def _say(text: str, *, err: bool = False) -> None:
    print(sanitize(text, multiline=True), file=sys.stderr if err else sys.stdout, flush=True)


def cmd_sweep(args: argparse.Namespace) -> int:
    from cockpit.store.cli_load import load_or_report

    session = load_or_report(args.session)  # what to run; every write reads the file again under the lock
    if session is None:
        return EXIT_FAILED
    from cockpit.control.sweep_session import find_sweep

    try:
        sweep = find_sweep(session, args.sweep)
    except ValueError as exc:
        _say(f"cockpit sweep: {exc}", err=True)
        return EXIT_FAILED
    return asyncio.run(_main(args, session, sweep))


def _config(args: argparse.Namespace) -> tuple[str, ...] | None:
    return tuple(args.ssh_config) if args.ssh_config else None


async def _main(args: argparse.Namespace, session: Session, sweep: Sweep) -> int:
    from cockpit.sources.transport.ssh_pool import SshPool

    async with SshPool() as pool:
        return await _sweep(args, session, sweep, pool)


async def _sweep(args: argparse.Namespace, session: Session, sweep: Sweep, pool: Pool) -> int:
    """The experiment service's sweep loop (control/experiment.py), said at this terminal."""
    from cockpit.control.experiment import ExperimentService
    from cockpit.control.transaction import SessionFile

    printer = _Printer(sys.stdout.isatty())
    loop = asyncio.get_running_loop()

    def on_event(event: ExperimentEvent) -> None:
        from cockpit.control.experiment_types import BenchClientChosen, SweepRunnerEnded, SweepRunnerStarted

        if isinstance(event, BenchClientChosen):
            _say(f"bench client: {event.plan.python} -m {event.plan.module}"
                 + (f" (resuming run {event.plan.run_id}: only points with no record run)" if args.resume else ""))
            if event.missing:
                _say(f"note: {event.missing}")
        elif isinstance(event, SweepRunnerStarted):  # Ctrl-C now cancels the points (the client is killed)
            loop.add_signal_handler(signal.SIGINT, event.runner.cancel)
        elif isinstance(event, SweepRunnerEnded):
            loop.remove_signal_handler(signal.SIGINT)
        else:
            printer(event)

    # every record is one session transaction (control/transaction.py), journaled "via sweep":
    # an add made by another writer at any moment is read under the lock, never written over
    service = ExperimentService(args.session, SessionFile(args.session), pool=pool, on_event=on_event,
                                ssh_config=_config(args), known_hosts=args.known_hosts)
    try:
        result = await service.sweep(sweep.id, lambda question: _ask(args, question), profile=args.profile,
                                     port=args.port, resume_last=args.resume, on_fail=args.on_fail)
    finally:
        await service.close()
    if result.status == "not_run":
        _say(f"cockpit sweep: {'--resume: ' if result.nothing_to_resume else ''}{result.message}", err=True)
        return EXIT_FAILED
    if result.status == "not_ready":
        _say(f"cockpit sweep: {result.message}", err=True)
        return EXIT_NOT_READY
    if result.status == "refused":
        return EXIT_REFUSED
    if result.status == "not_saved":
        _say(f"cockpit sweep: {result.message}", err=True)
        return EXIT_FAILED
    _say(result.text)
    outcome = result.outcome
    if outcome is not None and outcome.not_run:
        _say(f"sweep stopped at the failed point; not run: c={','.join(map(str, outcome.not_run))} "
             f"(--on-fail skip runs them; --resume runs what has no record)", err=True)
    return EXIT_CANCELLED if result.status == "cancelled" else EXIT_FAILED if result.status == "failed" else EXIT_DONE


async def _ask(args: argparse.Namespace, question: Question) -> bool:
    """The sweep's commands were never confirmed: shown, then --yes or the person's answer here."""
    if question.kind != "sweep":  # `cockpit sweep` starts no server: no launch is asked about here
        return False
    plan, sweep, profile = question.plan, question.sweep, question.profile
    link = f" (ssh {plan.host.ssh}{f' via {plan.host.jump}' if plan.host.jump else ''})" if plan.host and plan.host.ssh else ""
    _say(f"sweep {sweep.id} ({sweep.name}) on profile {profile.id} runs on {plan.where}{link}, "
         f"{len(plan.points)} points:")
    for line in plan.command_lines():
        _say(f"  {line}")
    _say(f"  ({question.module_line})")
    if args.yes:
        return True
    if not sys.stdin.isatty():
        _say("cockpit sweep: not run: these commands were never confirmed; check them and run again "
             "with --yes", err=True)
        return False
    answer = await asyncio.to_thread(input, "Run them? [y/N] ")
    if answer.strip().lower() not in ("y", "yes"):
        _say("not run")
        return False
    return True


class _Printer:
    """Progress lines: one per point event; on a terminal the client's progress line is
    redrawn in place, else printed at most every 10 s."""

    def __init__(self, tty: bool) -> None:
        self.tty = tty
        self.last = 0.0
        self.open_line = False

    def __call__(self, event: ExperimentEvent) -> None:
        from cockpit.live.experiment.sweep_events import (
            PointFailed,
            PointProgress,
            PointRecorded,
            PointRetrying,
            PointSkipped,
            PointStarted,
            SweepNote,
        )

        head = f"[{getattr(event, 'index', 0)}/{getattr(event, 'total', 0)}] c={getattr(event, 'concurrency', '')}"
        if isinstance(event, PointProgress):
            line = sanitize(f"{head} {_clock(event.elapsed_s)} {event.line}")
            if self.tty:
                sys.stdout.write("\r\x1b[K" + line[:200])
                sys.stdout.flush()
                self.open_line = True
            elif time.monotonic() - self.last >= 10:
                self.last = time.monotonic()
                print(line, flush=True)
            return
        if self.open_line:
            sys.stdout.write("\r\x1b[K")
            self.open_line = False
        if isinstance(event, PointStarted):
            again = f" (attempt {event.attempt})" if event.attempt > 1 else ""
            _say(f"{head} started{again}")
            self.last = time.monotonic()
        elif isinstance(event, PointRecorded):
            _say(f"{head} recorded {event.benchmark_id}: {_figures(event.fields)} ({event.wall_s:.1f} s)")
        elif isinstance(event, PointSkipped):
            _say(f"{head} already recorded as {event.benchmark_id}")
        elif isinstance(event, PointRetrying):
            _say(f"{head} {event.reason}; running the point again")
        elif isinstance(event, PointFailed):
            _say(f"{head} FAILED: {event.reason}")
        elif isinstance(event, SweepNote):
            _say(f"note: {event.text}")


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 60:02d}:{s % 60:02d}"


def _figures(fields: dict[str, Any]) -> str:
    parts = []
    # each figure with its unit and, where there is one, its statistic (the client's mean TTFT,
    # the GPUs' mean power over the main run), thousands separated as everywhere else
    for name, fmt in (("total_tok_s", "{:,.0f} tok/s total"), ("output_tok_s", "{:,.0f} tok/s out"),
                      ("ttft_ms", "TTFT mean {} ms"), ("power_mean_w", "{:,.0f} W mean"),
                      ("tok_per_joule", "{} total tok/J"),
                      ("output_tok_per_joule", "{} output tok/J"),
                      ("steady_output_tok_per_joule", "steady {} output tok/J"),  # batch full (energy_audit)
                      ("max_concurrent_requests", "achieved c={}"),
                      ("peak_running", "peak running {}"), ("peak_queued", "queued {}")):
        value = fields.get(name)
        if value is not None:
            parts.append(fmt.format(three_figures(value) if "joule" in name else _ms(value) if name == "ttft_ms"
                                    else value))
    for what in ("ttft", "itl"):  # the server's own percentiles over the point (its /metrics)
        p50, p99 = fields.get(f"server_{what}_p50_ms"), fields.get(f"server_{what}_p99_ms")
        if p50 is not None or p99 is not None:
            parts.append(f"server {what.upper()} p50/p99 {_ms(p50)}/{_ms(p99)} ms")
    if fields.get("error_labels"):
        parts.append("errors " + ",".join(fields["error_labels"]))
    if fields.get("notes"):  # e.g. fewer requests completed, or the warm-up inside the server window
        parts.append(f"note: {fields['notes']}")
    return ", ".join(parts)


def _ms(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}" if value >= 1 else f"{value:.2f}"
