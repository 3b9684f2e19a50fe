"""The steps of a sweep of the session: which sweep and profile, where the server runs,
whether it answers, what to watch during the points (through the live hub), and the line
that sums it up. The one loop that runs them is control/experiment_sweep.py (`cockpit
sweep`, the TUI and any other caller of the experiment service)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cockpit.control.live_hub import FeedEnded, HubItem, Listener, LiveHub
from cockpit.live.experiment.sweep_events import SweepOutcome
from cockpit.live.experiment.sweep_plan import SweepPlan, profile_host
from cockpit.live.experiment.sweep_server_metrics import ServerMetricsProbe, metrics_url_for
from cockpit.live.log.items import LogLines, SourceState
from cockpit.model.edit.lookup import by_id_or_name, known_records
from cockpit.model.enums import ProfileStatus
from cockpit.model.session import Host, LaunchProfile, Session, Sweep

if TYPE_CHECKING:
    from cockpit.control.sweep_runner import SweepRunner
    from cockpit.model.edit.edits import SessionEditor

__all__ = ["find_sweep", "running_profiles", "pick_profile", "host_target", "server_ready",
           "confirmed", "watch_on_hub", "watch_tasks", "bench_host", "server_metrics_probe", "outcome_text", "sweep_gpu_feed",
           "with_bench_client", "server_health", "module_choice_line", "interpreter_confirmed"]


def find_sweep(session: Session, ref: str) -> Sweep:
    """A sweep by id, else by name (exact, then ignoring case); ValueError naming the known ones."""
    named = by_id_or_name(session.sweeps, ref)
    if len(named) == 1:
        return named[0]
    known = known_records(session.sweeps, none="none; add a [[sweeps]] table")
    raise ValueError(f"{'several sweeps are' if named else 'no sweep is'} named {ref!r} (sweeps: {known})")


async def running_profiles(session: Session, session_path: str | Path, pool: Any, *,
                           ssh_config: tuple[str, ...] | None = None,
                           known_hosts: str | None = None) -> dict[str, Any]:
    """profile id -> the ServerStatus of a server of this session running now (any host)."""
    from cockpit.sources.server.control import ServerControl
    from cockpit.sources.server.places import places_of_session

    control = ServerControl(pool)
    found: dict[str, Any] = {}
    for place in places_of_session(session, session_path, ssh_config=ssh_config, known_hosts=known_hosts):
        try:
            status = await asyncio.wait_for(control.status(place), 15)
        except Exception:  # noqa: BLE001 -- an unreachable host runs nothing we can sweep
            continue
        if status.running and status.profile_id:
            found[status.profile_id] = status
    return found


def pick_profile(session: Session, ref: str | None, running: dict[str, Any]) -> LaunchProfile:
    """The named profile; else the one running; else the working one; else the only one."""
    from cockpit.sources.server.places import find_profile

    if ref:
        return find_profile(session, ref)
    live = [p for p in session.launch if p.id in running]
    if len(live) == 1:
        return live[0]
    working = [p for p in session.launch if p.status is ProfileStatus.WORKING]
    if len(working) == 1 and not live:
        return working[0]
    if len(session.launch) == 1:
        return session.launch[0]
    known = ", ".join(f"{p.id} ({p.name})" for p in session.launch) or "none"
    raise ValueError(f"which launch profile? name it with --profile (profiles: {known})")


def host_target(host: Host | None, ssh_config: tuple[str, ...] | None = None,
                known_hosts: str | None = None) -> Any:
    """The SshTarget of a host with `ssh` (None: the profile runs on this machine)."""
    if host is None or not host.ssh:
        return None
    from cockpit.sources.transport.ssh_target import SshTarget, with_config

    jump = SshTarget.parse(host.jump) if host.jump else None
    return with_config(SshTarget.parse(host.ssh, jump=jump), ssh_config, known_hosts)


async def server_ready(profile: LaunchProfile, plan: SweepPlan, pool: Any, target: Any) -> str | None:
    """None when the profile's server answers /health, else why not (one line)."""
    from cockpit.sources.metrics.scrape import fetch_text
    from cockpit.sources.transport.http_get import HttpGetError

    url = f"http://{profile_host(profile.command)}:{plan.port}/health"
    try:
        await fetch_text(url, pool=pool if target else None, target=target, timeout_s=10)
    except HttpGetError as exc:
        return f"the server of profile {profile.id} on {plan.where} is not ready: {exc}"
    return None


def server_metrics_probe(profile: LaunchProfile, plan: SweepPlan, pool: Any, target: Any,
                         host: Host | None) -> ServerMetricsProbe:
    """What reads the server's `/metrics` at each point's start and end (the runner's
    `server_metrics`): the host's `metrics_url`, else the profile's server port, through
    the host's SSH connection when it has `ssh` (as `server_ready` reaches `/health`)."""
    from cockpit.sources.metrics.scrape import scrape_once

    url = metrics_url_for(host, profile_host(profile.command), plan.port)
    name = host.name if host is not None else None

    async def scrape(cache: Any) -> Any:
        return await scrape_once(url, host=name, pool=pool if target else None, target=target,
                                 timeout_s=5.0, cache=cache)

    return ServerMetricsProbe(url, scrape)


async def with_bench_client(plan: SweepPlan, host: Any) -> tuple[SweepPlan, str | None]:
    """The plan with the bench module the host's interpreter has (`sglang.benchmark.serving`,
    else `sglang.bench_serving`), and a line to say when neither was found (the plan keeps
    the older name: its points then fail with the client's own error)."""
    from cockpit.live.experiment.sweep_plan import BENCH_MODULES, bench_module_probe
    from cockpit.sources.server.bench_hosts import LinkLost

    said: list[str] = []
    try:
        await host.run(bench_module_probe(plan.python), folder=plan.folder, pidfile=f"{plan.folder}/probe.pid",
                       on_output=lambda stream, text: said.append(text) if stream == "stdout" else None)
    except (OSError, LinkLost) as exc:
        return plan, f"bench client not looked up with {plan.python}: {exc}"
    words = "".join(said).split()
    found = next((m for m in words if m in BENCH_MODULES), None)
    if found is None:
        return plan, (f"{plan.python} on {plan.where} imports neither {' nor '.join(BENCH_MODULES)} "
                      "(the profile's `python`, or the interpreter its command names, should be SGLang's)")
    at = words.index("version") if "version" in words else -1
    version = f"{found.split('.')[0]} {words[at + 1]}" if 0 <= at < len(words) - 1 else None
    return plan.with_module(found, version), None


def module_choice_line(plan: SweepPlan, *, looked_up: bool = False) -> str:
    """Said under the commands a person confirms: the interpreter and the bench module that
    run (`looked_up`: asked of the host already), else which of the two will and how it is found."""
    from cockpit.live.experiment.sweep_plan import BENCH_MODULES

    if looked_up:
        return f"the client: {plan.python} -m {plan.module} (the module {plan.python} on {plan.where} has)"
    return (f"the client: {plan.python} -m {BENCH_MODULES[0]}; where {plan.python} on {plan.where} has no "
            f"{BENCH_MODULES[0]}, -m {BENCH_MODULES[1]} instead (looked up once you say yes, by running "
            f"{plan.python} -c 'importlib.util.find_spec(...)')")


def interpreter_confirmed(profile: LaunchProfile, host: Host | None, plan: SweepPlan) -> bool:
    """Whether the person confirmed running the sweep's interpreter on this host: it is the one
    the profile's command names, and that launch carries their seal (model/launch/confirm.py)."""
    from cockpit.live.experiment.sweep_plan import command_python
    from cockpit.model.launch.confirm import launch_stamp
    from cockpit.sources.server.confirm_key import is_confirmed

    return (command_python(profile.command) == plan.python
            and is_confirmed("launch", launch_stamp(profile, host), profile.confirmed))


def server_health(profile: LaunchProfile, plan: SweepPlan, pool: Any, target: Any) -> Any:
    """The runner's `server_health`: None while /health answers, else why not."""
    async def ask() -> str | None:
        why = await server_ready(profile, plan, pool, target)
        return None if why is None else why.rpartition("is not ready: ")[2] or why

    return ask


def confirmed(sweep_id: str, stamp: str) -> Callable[[SessionEditor], None]:
    """The edit that remembers a person confirmed these sweep commands (journaled): applied
    only where a person answered at a terminal (the experiment service, as the person). The
    stamp is sealed with this user's key (sources/server/confirm_key.py), so no other writer can
    produce it."""
    from cockpit.sources.server.confirm_key import confirmation

    sealed = confirmation("sweep", stamp)

    def change(session: Session) -> None:
        for sweep in session.sweeps:
            if sweep.id == sweep_id:
                sweep.confirmed = sealed

    return lambda e: e.apply(f"sweep {sweep_id} confirmed", change, kind="sweep.confirmed", ref=sweep_id)


def bench_host(pool: Any, target: Any, host: Host | None) -> Any:
    from cockpit.sources.server.bench_hosts import LocalBenchHost, SshBenchHost

    return SshBenchHost(pool, target, host.name if host else None) if target else LocalBenchHost()


def sweep_gpu_feed(host: Host | None, pool: Any, target: Any) -> tuple[Any, str | None]:
    """The GPU feed of the profile's host, as the GPU pane builds it (sources/host_feeds.py):
    dcgm-exporter, this machine's NVML, or nvidia-smi over SSH; else (None, why none)."""
    if host is None:
        return None, "the profile names no [[hosts]] entry, so no GPU source is known"
    source = str(getattr(host.gpu_source, "value", host.gpu_source))
    if source == "none":
        return None, f'host {host.name} has gpu_source = "none" (set nvml, nvidia-smi or dcgm)'
    from cockpit.sources.gpu import feed as gpu_feed
    from cockpit.sources.host_feeds_plan import is_local_gpu

    try:
        if source == "dcgm":
            from cockpit.sources.metrics.scrape import dcgm_feed_for_host

            return dcgm_feed_for_host(host, pool if target is not None else None, target), None
        if is_local_gpu(host) or target is None:
            return gpu_feed.NvmlFeed(gpu_feed.interval_of(host)), None
        return gpu_feed.gpu_feed_for_host(host, pool, target), None
    except ValueError as exc:
        return None, f"host {host.name}: {exc}"


def watch_on_hub(hub: LiveHub, runner: Any, host: Host | None, target: Any, pool: Any,
                 status: Any) -> Callable[[], None]:
    """What cockpit watches during the points, through the hub: the host's GPUs
    (`gpu@host`) and the server's log (`log@host`). Where the panes run them already the
    sweep subscribes to theirs (no second tail, no second GPU feed, the log parsed once);
    else the hub runs one for the sweep's time. Why the GPUs cannot be read goes to
    `runner.gpu_unavailable` (the points' notes say it). Returns what stops the watch."""
    from cockpit.sources.host_feeds_plan import feed_key

    name = host.name if host is not None else None
    leaves: list[Callable[[], None]] = []
    gpu_key = feed_key("gpu", name) if name else None
    if gpu_key is not None and hub.running(gpu_key):
        leaves.append(hub.subscribe(gpu_key, _gpu_listener(runner, hub.description(gpu_key) or gpu_key)))
    else:
        gpu, why = sweep_gpu_feed(host, pool, target)
        if gpu is not None and gpu_key is not None:
            leaves.append(hub.subscribe(gpu_key, _gpu_listener(runner, getattr(gpu, "description", "the GPU source"))))
            hub.open(gpu_key, lambda: gpu)
        elif why:
            runner.gpu_unavailable(why)
    log_key = feed_key("log", name) if name and (host is not None and (host.log_path or host.log_command)) else (
        f"log:{status.log_path}" if status is not None and status.log_path else None)
    if log_key is not None:
        leaves.append(hub.subscribe(log_key, _log_listener(runner)))
        if not hub.running(log_key) and not hub.open(log_key, lambda: _sweep_log_feed(host, target, pool, status)):
            leaves.pop()()
        else:
            runner.log_caught_up = lambda: hub.caught_up(log_key)

    def stop() -> None:
        for leave in leaves:
            leave()

    return stop


def watch_tasks(runner: Any, host: Host | None, target: Any, pool: Any, status: Any) -> list[Coroutine[Any, Any, None]]:
    """The watch with a hub of its own (a caller with no panes): one task, cancelled at the end."""
    async def watch() -> None:
        hub = LiveHub()
        stop = watch_on_hub(hub, runner, host, target, pool, status)
        try:
            await asyncio.Event().wait()
        finally:
            stop()
            await hub.close()

    return [watch()]


def _sweep_log_feed(host: Host | None, target: Any, pool: Any, status: Any) -> Any:
    """The server's log from now on (no backlog: lines before the sweep are not its)."""
    from cockpit.sources.log.feed import LogFeed

    if host is not None and (host.log_path or host.log_command):
        try:
            # the sweep's target: built with the CLI's --ssh-config and known_hosts, as its other links
            return LogFeed.for_host(host, pool=pool, lines=0, target=target)
        except ValueError:  # an unconfirmed log_command is not run: the sweep goes without its log
            return None
    from cockpit.sources.log.tail_sources import RemoteFile

    return (LogFeed.ssh(RemoteFile(target, status.log_path), pool=pool, lines=0) if target
            else LogFeed.local(status.log_path, lines=0))


def _log_listener(runner: SweepRunner) -> Listener:
    """The log's rows to the runner; a feed that ended in an error is said in the points' notes
    (their peaks are missing for a reason, not silently)."""
    def take(item: HubItem | FeedEnded) -> None:
        if isinstance(item, LogLines):
            runner.log_lines(item)
        elif isinstance(item, SourceState) and (item.connected is False or item.waiting):
            runner.log_unavailable(f"the server's log: {item.text or 'not reachable'}")
        elif isinstance(item, FeedEnded) and item.error is not None:
            runner.log_unavailable(f"the server's log could not be read: {str(item.error) or type(item.error).__name__}")

    return take


def _gpu_listener(runner: SweepRunner, what: str) -> Listener:
    from cockpit.parse.gpu.events import GpuSamplesTaken, GpuSourceUnavailable, GpuStreamInterrupted

    def take(item: HubItem | FeedEnded) -> None:
        if isinstance(item, GpuSamplesTaken):
            runner.gpu_source = what
            runner.gpu_tick(item.samples)
            if item.samples and any(s.power_w is None for s in item.samples):
                why = next((s.notes.get("power_w") for s in item.samples if s.notes.get("power_w")), None)
                runner.gpu_unavailable(f"{what}: no power draw for every GPU ({why or 'not reported'})")
        elif isinstance(item, GpuSourceUnavailable):  # NVML without a driver, a host without nvidia-smi
            runner.gpu_unavailable(f"{what}: {item.message}")
        elif isinstance(item, GpuStreamInterrupted):
            runner.gpu_unavailable(f"{what}: {item.reason}")
        elif isinstance(item, FeedEnded) and item.error is not None:
            # no GPU figures is a sweep without power, not a failed one
            exc = item.error
            text = exc.message if isinstance(exc, GpuSourceUnavailable) else (str(exc) or type(exc).__name__)
            runner.gpu_unavailable(f"{what}: {text}")

    return take


def outcome_text(sweep: Sweep, profile: LaunchProfile, points: int, outcome: SweepOutcome) -> str:
    """The last action's line for a finished sweep."""
    text = f"sweep {sweep.id} ({sweep.name}) on {profile.id}: {len(outcome.recorded)} of {points} points recorded"
    if outcome.failed:
        text += ", failed at c=" + ",".join(str(c) for c, _ in outcome.failed)
    if outcome.not_run:
        text += ", stopped there (not run: c=" + ",".join(str(c) for c in outcome.not_run) + ")"
    if outcome.cancelled:
        text += ", cancelled"
    return text
