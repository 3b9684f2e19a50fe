"""What the diagnosis reads: one bundle, built from files (a colleague's paste, the demo's
captures) or from the live state the TUI already holds.

Each part is optional: a rule whose inputs are absent proposes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from cockpit.live.snapshot import LiveSnapshot
from cockpit.model.package_drift import DriftRow
from cockpit.model.session import LaunchProfile, Session
from cockpit.parse.gpu.nvsmi_topo import TopologyMatrix
from cockpit.parse.gpu.sample import GpuSample
from cockpit.parse.log.events import DecodeBatch, KvCacheSize, LogEvent, PrefillBatch, ServerArgs
from cockpit.parse.log.sglang_log import parse_line
from cockpit.parse.metrics.sglang_metrics import ServerScrape
from cockpit.parse.numbers import read_int

# SGLang prints these when the KV pool runs out in decode (scheduler.py / schedule_batch.py)
_RETRACT = re.compile(r"retract", re.I)
_GRAPH_BS = re.compile(r"Capture cuda graph bs \[([\d, ]+)\]")
_TP_FLAG = re.compile(r"(?:--tp|--tp-size|--tensor-parallel-size)[= ](\d+)")
_BASE_FLAG = re.compile(r"--base-gpu-id[= ](\d+)")
_VISIBLE = re.compile(r"CUDA_VISIBLE_DEVICES=[\"']?([\d,]+)")


@dataclass(frozen=True, slots=True)
class LogFacts:
    """The log's lines that the rules read, each with its 1-based line number."""

    decode: tuple[tuple[int, DecodeBatch], ...] = ()
    prefill: tuple[tuple[int, PrefillBatch], ...] = ()
    server_args: dict[str, object] = field(default_factory=dict)
    max_running_requests: int | None = None
    graph_max_bs: int | None = None
    """The largest batch size a CUDA graph was captured for (server args or the capture line)."""
    retract_lines: tuple[int, ...] = ()
    lines: int = 0


@dataclass(frozen=True, slots=True)
class DiagnosisInputs:
    log: LogFacts | None = None
    gpus: tuple[GpuSample, ...] = ()
    """Every sample read, in time order (several ticks of every GPU)."""
    topology: TopologyMatrix | None = None
    metrics: tuple[ServerScrape, ...] = ()
    """Scrapes of the server's /metrics in the order taken."""
    session: Session | None = None
    drift: tuple[DriftRow, ...] = ()
    tp_size: int | None = None
    """Tensor-parallel size (server args, else the working launch profile's command)."""
    tp_gpus: tuple[int, ...] | None = None
    """The physical GPUs of the first TP group, where the launch says which (CUDA_VISIBLE_DEVICES,
    --base-gpu-id); None: the first tp_size GPUs."""

    @property
    def empty(self) -> bool:
        return (self.log is None and not self.gpus and self.topology is None and not self.metrics
                and self.session is None)


def log_facts(lines: Iterable[str], first_line: int = 1) -> LogFacts:
    """`first_line`: the number of the first line given (a ring's tail starts past 1)."""
    decode: list[tuple[int, DecodeBatch]] = []
    prefill: list[tuple[int, PrefillBatch]] = []
    args: dict[str, object] = {}
    max_running: int | None = None
    graph_bs: int | None = None
    retracts: list[int] = []
    ts, ranks = None, None
    count = 0
    for count, line in enumerate(lines, start=first_line):
        event: LogEvent = parse_line(line, ts, ranks)
        ts, ranks = event.ts or ts, event.ranks
        if isinstance(event, DecodeBatch):
            decode.append((count, event))
        elif isinstance(event, PrefillBatch):
            prefill.append((count, event))
        elif isinstance(event, ServerArgs):
            args.update({k: v for k, v in event.args.items() if v is not None})
        elif isinstance(event, KvCacheSize) and event.max_running_requests is not None:
            max_running = event.max_running_requests
        if "Capture cuda graph bs" in line and (m := _GRAPH_BS.search(line)):
            sizes = [n for x in m.group(1).replace(" ", "").split(",") if x and (n := read_int(x)) is not None]
            graph_bs = max([graph_bs or 0, *sizes])
        if "etract" in line and _RETRACT.search(line) and not isinstance(event, (DecodeBatch, PrefillBatch)):
            retracts.append(count)
    if isinstance(args.get("cuda_graph_max_bs"), int):
        graph_bs = int(args["cuda_graph_max_bs"])  # type: ignore[call-overload]
    if max_running is None and isinstance(args.get("max_running_requests"), int):
        max_running = int(args["max_running_requests"])  # type: ignore[call-overload]
    return LogFacts(tuple(decode), tuple(prefill), args, max_running, graph_bs, tuple(retracts), count)


def tp_size_of(log: LogFacts | None, session: Session | None) -> int | None:
    if log is not None:
        for name in ("tp_size", "tensor_parallel_size"):
            value = log.server_args.get(name)
            if isinstance(value, int) and value > 0:
                return value
    if session is not None:
        profiles = sorted(session.launch, key=lambda p: p.status != "working")
        for profile in profiles:
            if (m := _TP_FLAG.search(profile.command)) and (tp := read_int(m.group(1))) is not None:
                return tp
    return None


def _launch_profile(session: Session | None) -> LaunchProfile | None:
    """The profile the server runs: the first working one, else the first."""
    if session is None or not session.launch:
        return None
    return sorted(session.launch, key=lambda p: p.status != "working")[0]


def tp_gpus_of(log: LogFacts | None, session: Session | None, tp: int | None) -> tuple[int, ...] | None:
    """The GPUs the first TP group runs on: the launch's visible devices (its env or the command's
    prefix), from its base GPU id (server args, else --base-gpu-id) on; None when neither is set."""
    if tp is None or tp < 1:
        return None
    profile = _launch_profile(session)
    command = profile.command if profile is not None else ""
    env = dict(profile.env) if profile is not None else {}
    base: int | None = None
    if log is not None and isinstance(log.server_args.get("base_gpu_id"), int):
        base = int(log.server_args["base_gpu_id"])  # type: ignore[call-overload]
    elif m := _BASE_FLAG.search(command):
        base = int(m.group(1))
    visible_text = env.get("CUDA_VISIBLE_DEVICES") or ((m2.group(1)) if (m2 := _VISIBLE.search(command)) else None)
    visible = [int(x) for x in visible_text.split(",") if x.strip().isdigit()] if visible_text else None
    if visible is None and not base:
        return None
    ids = visible if visible is not None else list(range((base or 0) + tp))
    group = ids[base or 0:(base or 0) + tp]
    return tuple(group) if len(group) == tp else None


def bundle(*, log_lines: Sequence[str] | None = None, gpus: Iterable[GpuSample] = (),
           topology: TopologyMatrix | None = None, metrics: Iterable[ServerScrape] = (),
           session: Session | None = None, drift: Iterable[DriftRow] = (), first_line: int = 1,
           facts: LogFacts | None = None) -> DiagnosisInputs:
    """`facts`: the log already read (the TUI's cache), used instead of parsing `log_lines`;
    the TP size and group are derived from it as from parsed lines."""
    if facts is None and log_lines is not None:
        facts = log_facts(log_lines, first_line)
    return DiagnosisInputs(log=facts, gpus=tuple(gpus), topology=topology, metrics=tuple(metrics),
                           session=session, drift=tuple(drift), tp_size=(tp := tp_size_of(facts, session)),
                           tp_gpus=tp_gpus_of(facts, session, tp))


def inputs_of(snapshot: LiveSnapshot, session: Session | None, *, facts: LogFacts | None = None) -> DiagnosisInputs:
    """The rules' input from one snapshot of the live state (live/state.py): the TUI's
    findings, `cockpit diagnose` (a snapshot of files) and an assistant's all build it here,
    so at one moment they read the same log tail, GPU history, topology and `/metrics`
    window. `facts`: the log already read (the TUI watch's cache)."""
    log, gpu, topology = snapshot.log, snapshot.gpu, snapshot.topology
    return bundle(log_lines=log.lines if log is not None and log.lines else None,
                  gpus=gpu.history if gpu is not None else (),
                  topology=topology.matrix if topology is not None else None,
                  metrics=snapshot.scrapes, session=session,
                  first_line=log.first_line if log is not None else 1, facts=facts)
