"""Scheduler rules from the log's batch lines and the server's /metrics: cuda_graph_ceiling,
kv_pressure, queue_cap."""

from __future__ import annotations

from collections.abc import Sequence

from cockpit.live.diagnosis.findings import Evidence, Finding, clamp
from cockpit.live.diagnosis.inputs import DiagnosisInputs
from cockpit.parse.log.events import DecodeBatch

MIN_LINES = 3  # fewer decode lines than this say nothing about a steady state
NO_GRAPH_SHARE = 0.3
KV_FULL = 0.9
KV_LOW = 0.5
QUEUE_SHARE = 0.5
QUEUE_MIN = 5  # fewer queued than this in every scrape is a moment's wait, not a cap


def _span(rows: Sequence[tuple[int, DecodeBatch]]) -> tuple[tuple[str, str] | None, tuple[int, ...]]:
    times = [e.ts for _, e in rows if e.ts]
    lines = (rows[0][0], rows[-1][0]) if len(rows) > 1 else (rows[0][0],)
    return ((times[0], times[-1]) if times else None), lines


def _pow2_above(n: int, cap: int = 1024) -> int:
    size = 1
    while size < n and size < cap:
        size *= 2
    return size


def cuda_graph_ceiling(inputs: DiagnosisInputs) -> list[Finding]:
    evidence: list[Evidence] = []
    peak = 0
    log = inputs.log
    if log is not None and len(log.decode) >= MIN_LINES:
        rows = [(n, e) for n, e in log.decode if e.running_req]
        off = [(n, e) for n, e in rows if e.graph is False]
        over = bool(log.graph_max_bs) and any((e.running_req or 0) > (log.graph_max_bs or 0) for _, e in off)
        if len(off) >= MIN_LINES and (len(off) >= NO_GRAPH_SHARE * len(rows) or over):
            peak = max(e.running_req or 0 for _, e in off)
            when, lines = _span(off)
            limit = f", above the graph limit {log.graph_max_bs}" if log.graph_max_bs else ""
            evidence.append(Evidence(f"{len(off)} of {len(rows)} decode batches ran with `cuda graph: False` "
                                     f"(running-req up to {peak}{limit})", "log", time_range=when, log_lines=lines))
        elif log.graph_max_bs and rows:
            pinned = [(n, e) for n, e in rows if e.running_req == log.graph_max_bs and (e.queue_req or 0) > 0]
            if len(pinned) >= MIN_LINES and len(pinned) >= QUEUE_SHARE * len(rows):
                when, lines = _span(pinned)
                peak = log.graph_max_bs * 2
                evidence.append(Evidence(f"{len(pinned)} of {len(rows)} decode batches pinned at the graph limit "
                                         f"{log.graph_max_bs} running while requests queue", "log",
                                         time_range=when, log_lines=lines))
    if inputs.metrics:
        passes = inputs.metrics[-1].by_label.get("cuda_graph_passes_total", {})
        first = inputs.metrics[0].by_label.get("cuda_graph_passes_total", {}) if len(inputs.metrics) > 1 else {}
        graph = passes.get("decode_cuda_graph", 0.0) - first.get("decode_cuda_graph", 0.0)
        none = passes.get("decode_none", 0.0) - first.get("decode_none", 0.0)
        if none > 0 and none >= NO_GRAPH_SHARE * (graph + none):
            running = inputs.metrics[-1].gauges.get("num_running_reqs")
            peak = max(peak, int(running or 0))
            evidence.append(Evidence(f"cuda_graph_passes_total: {none:,.0f} of {graph + none:,.0f} decode passes "
                                     f"without a graph ({none / (graph + none):.0%})", "metrics"))
    if not evidence:
        return []
    target = _pow2_above(max(peak, 64))
    return [Finding(
        "cuda_graph_ceiling", "Decode runs without CUDA graphs: the running batch is past the graph batch limit",
        tuple(evidence), clamp(0.6 + 0.1 * len(evidence)),
        f"relaunch with --cuda-graph-max-bs {target} (candidate profile) and compare decode tok/s",
        f"cuda_graph_ceiling:{log.graph_max_bs if log else ''}",
        flags={"--cuda-graph-max-bs": str(target)},
        search_space={"--cuda-graph-max-bs": [str(target // 2), str(target), str(min(1024, target * 2))]})]


def _config_key(kind: str, log: object, names: tuple[str, ...]) -> str:
    """A key that names the launch settings the finding is about: the same pressure after the
    settings changed is new evidence, proposed again even if the old one was dismissed."""
    args = getattr(log, "server_args", None) or {}
    said = ",".join(f"{n}={args[n]}" for n in names if n in args)
    return f"{kind}:{said}" if said else kind


def _metrics_range(inputs: DiagnosisInputs, name: str) -> list[float]:
    return [s.gauges[name] for s in inputs.metrics if name in s.gauges]


def rank_rows(inputs: DiagnosisInputs) -> dict[str, list[tuple[float, float, float]]]:
    """DP rank -> (token usage, queued, running) per scrape: per-rank figures stay per rank
    (an average of one rank at 0.93 and one at 0.04 describes neither)."""
    out: dict[str, list[tuple[float, float, float]]] = {}
    for s in inputs.metrics:
        usage = s.gauges_by_dp.get("token_usage") or ({"": s.gauges["token_usage"]} if "token_usage" in s.gauges else {})
        queued = s.gauges_by_dp.get("num_queue_reqs", {})
        running = s.gauges_by_dp.get("num_running_reqs", {})
        for rank, u in usage.items():
            q = queued.get(rank, s.gauges.get("num_queue_reqs", 0.0) if len(usage) == 1 else 0.0)
            r = running.get(rank, s.gauges.get("num_running_reqs", 0.0) if len(usage) == 1 else 0.0)
            out.setdefault(rank, []).append((u, q, r))
    return out


def _rank_name(rank: str) -> str:
    return f"dp{rank}" if rank else "the server"


def retracted(inputs: DiagnosisInputs) -> tuple[float, str] | None:
    """Requests retracted over the scrapes, and from what: the counter's increase where the
    server has the counter, else the retraction gauge's highest reading; None when neither is
    there (absent is not zero)."""
    name = "num_retracted_requests_total"
    with_counter = [s for s in inputs.metrics if name in s.counters]
    if with_counter:
        last = with_counter[-1].counters[name]
        first = with_counter[0].counters[name] if len(with_counter) > 1 else 0.0
        return last - first, f"{name} rose by {last - first:,.0f}" if len(with_counter) > 1 else f"{name} {last:,.0f}"
    gauge = _metrics_range(inputs, "num_retracted_reqs")
    if gauge:
        return max(gauge), f"num_retracted_reqs (a gauge) up to {max(gauge):,.0f}"
    return None


def kv_pressure(inputs: DiagnosisInputs) -> list[Finding]:
    evidence: list[Evidence] = []
    worst = 0.0
    log = inputs.log
    if log is not None and len(log.decode) >= 1:
        full = [(n, e) for n, e in log.decode if (e.usage or 0) >= KV_FULL]
        if len(full) >= MIN_LINES or (full and len(full) >= QUEUE_SHARE * len(log.decode)):
            queued = [e.queue_req or 0 for _, e in full]
            worst = max(e.usage or 0 for _, e in full)
            if max(queued) > 0 or log.retract_lines:
                when, lines = _span(full)
                evidence.append(Evidence(f"token usage {worst:.2f} in {len(full)} of {len(log.decode)} decode "
                                         f"batches with up to {max(queued)} requests queued", "log",
                                         time_range=when, log_lines=lines))
        if log.retract_lines and evidence:
            evidence.append(Evidence(f"{len(log.retract_lines)} retraction lines", "log",
                                     log_lines=(log.retract_lines[0], log.retract_lines[-1])))
    got = retracted(inputs)
    for rank, rows in sorted(rank_rows(inputs).items()):
        at_full = [(u, q) for u, q, _ in rows if u >= KV_FULL]
        if not at_full:
            continue
        waiting = max(q for _, q in at_full)
        if waiting > 0 or (got is not None and got[0] > 0):
            top = max(u for u, _ in at_full)
            worst = max(worst, top)
            evidence.append(Evidence(f"/metrics {_rank_name(rank)}: token_usage up to {top:.2f} with up to "
                                     f"{waiting:.0f} queued", "metrics"))
    if evidence and got is not None and got[0] > 0:
        evidence.append(Evidence(f"/metrics: {got[1]} requests retracted", "metrics"))
    if not evidence:
        return []
    return [Finding(
        "kv_pressure", f"The KV cache is full ({worst:.0%}): requests wait for KV space or are retracted",
        tuple(evidence), clamp(0.55 + (worst - KV_FULL) * 3 + 0.1 * (len(evidence) - 1)),
        "give the KV pool more room: raise --mem-fraction-static, or an FP8 KV cache (candidate profile)",
        _config_key("kv_pressure", log, ("mem_fraction_static", "kv_cache_dtype", "max_running_requests")),
        flags={"--kv-cache-dtype": "fp8_e4m3"},
        search_space={"--mem-fraction-static": ["0.85", "0.88", "0.92"], "--kv-cache-dtype": ["auto", "fp8_e4m3"]})]


def queue_cap(inputs: DiagnosisInputs) -> list[Finding]:
    evidence: list[Evidence] = []
    running_cap = 0
    log = inputs.log
    if log is not None and len(log.decode) >= MIN_LINES:
        # each line is one rank's own figures; a queue under QUEUE_MIN is a moment's wait, not a cap
        waiting = [(n, e) for n, e in log.decode if (e.queue_req or 0) >= QUEUE_MIN and (e.usage or 0) < KV_LOW]
        if len(waiting) >= MIN_LINES and len(waiting) >= QUEUE_SHARE * len(log.decode):
            running = [e.running_req or 0 for _, e in waiting]
            if not (log.graph_max_bs and max(running) == log.graph_max_bs):  # that one is the graph's limit
                running_cap = max(running)
                when, lines = _span(waiting)
                peak_usage = max(e.usage or 0 for _, e in waiting)
                cap = f" (max_running_requests {log.max_running_requests})" if log.max_running_requests else ""
                evidence.append(Evidence(f"{len(waiting)} of {len(log.decode)} decode batches have requests queued "
                                         f"(up to {max(e.queue_req or 0 for _, e in waiting)}) while token usage "
                                         f"stays at or under {peak_usage:.2f}; running at most {running_cap}{cap}", "log",
                                         time_range=when, log_lines=lines))
    for rank, rows in sorted(rank_rows(inputs).items()):
        # every scrape of this rank has a queue while its own KV pool has room
        if rows and min(q for _, q, _ in rows) >= QUEUE_MIN and max(u for u, _, _ in rows) < KV_LOW:
            running_cap = max(running_cap, int(max(r for _, _, r in rows)))
            evidence.append(Evidence(f"/metrics {_rank_name(rank)}: {min(q for _, q, _ in rows):.0f}-"
                                     f"{max(q for _, q, _ in rows):.0f} queued while its token usage is at most "
                                     f"{max(u for u, _, _ in rows):.2f}", "metrics"))
    if not evidence:
        return []
    target = max(64, running_cap * 2)
    return [Finding(
        "queue_cap", "Requests queue while the KV cache has room: the running-request cap binds",
        tuple(evidence), clamp(0.55 + 0.1 * len(evidence)),
        f"relaunch with --max-running-requests {target} (candidate profile)",
        f"queue_cap:{running_cap}",
        flags={"--max-running-requests": str(target)},
        search_space={"--max-running-requests": [str(running_cap), str(target), str(target * 2)]})]
