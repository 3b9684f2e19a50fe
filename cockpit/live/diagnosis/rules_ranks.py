"""Per-rank and feature rules from /metrics and the log: dp_imbalance, spec_low_accept,
eplb_imbalance."""

from __future__ import annotations

from statistics import fmean

from cockpit.live.diagnosis.findings import Evidence, Finding, clamp
from cockpit.live.diagnosis.inputs import DiagnosisInputs

QUEUE_MIN = 5  # a rank with this many queued while another idles is imbalance, not noise
IDLE_SHARE = 0.25
LOW_ACCEPT_LEN = 1.5
LOW_ACCEPT_RATE = 0.3
LOW_BALANCEDNESS = 0.7
SPEC_ARGS = ("speculative_algorithm", "speculative_num_steps", "speculative_num_draft_tokens")


def _per_rank_from_log(inputs: DiagnosisInputs) -> dict[str, tuple[float, float, int]]:
    """dp rank -> (running, queued, line) of its last decode line."""
    out: dict[str, tuple[float, float, int]] = {}
    if inputs.log is not None:
        for n, e in inputs.log.decode:
            if e.ranks.dp is not None:
                out[str(e.ranks.dp)] = (float(e.running_req or 0), float(e.queue_req or 0), n)
    return out


def dp_imbalance(inputs: DiagnosisInputs) -> list[Finding]:
    sources: list[tuple[str, dict[str, tuple[float, float]], tuple[int, ...]]] = []
    if inputs.metrics:
        last = inputs.metrics[-1].gauges_by_dp
        running, queued = last.get("num_running_reqs", {}), last.get("num_queue_reqs", {})
        ranks = {r: (running.get(r, 0.0), queued.get(r, 0.0)) for r in running if r != ""}
        if len(ranks) >= 2:
            sources.append(("metrics", ranks, ()))
    from_log = _per_rank_from_log(inputs)
    if len(from_log) >= 2:
        sources.append(("log", {r: (a, b) for r, (a, b, _) in from_log.items()},
                        tuple(sorted(n for *_, n in from_log.values()))))
    for source, ranks, lines in sources:
        busiest = max(ranks, key=lambda r: ranks[r][1])
        top_running = max(v[0] for v in ranks.values())
        idle = [r for r, (run, queue) in ranks.items() if run <= IDLE_SHARE * max(1.0, top_running) and queue == 0]
        if ranks[busiest][1] >= QUEUE_MIN and idle:
            said = ", ".join(f"dp{r}: {run:.0f} running / {q:.0f} queued" for r, (run, q) in sorted(ranks.items()))
            line_span = (lines[0], lines[-1]) if lines else ()
            return [Finding(
                "dp_imbalance", f"Data-parallel ranks are uneven: dp{busiest} queues {ranks[busiest][1]:.0f} while "
                f"{len(idle)} of {len(ranks)} ranks idle", (Evidence(said, source, log_lines=line_span),),
                clamp(0.55 + 0.3 * len(idle) / len(ranks)),
                "route by load: relaunch with --load-balance-method minimum_tokens (candidate profile)",
                f"dp_imbalance:dp{busiest}:{len(idle)}idle",
                flags={"--load-balance-method": "minimum_tokens"},
                search_space={"--load-balance-method": ["round_robin", "shortest_queue", "minimum_tokens"]})]
    return []


def spec_low_accept(inputs: DiagnosisInputs) -> list[Finding]:
    evidence: list[Evidence] = []
    length: float | None = None
    if inputs.log is not None:
        rows = [(n, e) for n, e in inputs.log.decode if e.accept_len is not None]
        if len(rows) >= 3:
            length = fmean(e.accept_len or 0 for _, e in rows)
            rates = [e.accept_rate for _, e in rows if e.accept_rate is not None]
            rate = fmean(rates) if rates else None
            if length < LOW_ACCEPT_LEN or (rate is not None and rate < LOW_ACCEPT_RATE):
                times = [e.ts for _, e in rows if e.ts]
                evidence.append(Evidence(f"mean accept len {length:.2f} over {len(rows)} decode batches"
                                         + (f", accept rate {rate:.2f}" if rate is not None else ""), "log",
                                         time_range=(times[0], times[-1]) if times else None,
                                         log_lines=(rows[0][0], rows[-1][0])))
    if inputs.metrics:
        values = [s.gauges["spec_accept_length"] for s in inputs.metrics if s.gauges.get("spec_accept_length")]
        if values and fmean(values) < LOW_ACCEPT_LEN:
            length = fmean(values)
            evidence.append(Evidence(f"/metrics spec_accept_length {length:.2f}", "metrics"))
    if not evidence or length is None:
        return []
    return [Finding(
        "spec_low_accept", f"Speculative decoding accepts few drafts (about {length:.2f} tokens a step): "
        "the draft costs more than it saves", tuple(evidence), clamp(0.5 + (LOW_ACCEPT_LEN - length)),
        "compare a run without speculative decoding, and fewer draft tokens (search space)",
        "spec_low_accept:" + ",".join(f"{n}={inputs.log.server_args[n]}" for n in SPEC_ARGS
                                      if inputs.log is not None and n in inputs.log.server_args),
        flags={"--speculative-num-draft-tokens": "2"},
        search_space={"--speculative-num-steps": ["1", "2", "3"], "--speculative-num-draft-tokens": ["2", "4"]})]


def eplb_imbalance(inputs: DiagnosisInputs) -> list[Finding]:
    values = [s.gauges["eplb_balancedness"] for s in inputs.metrics if "eplb_balancedness" in s.gauges]
    if not values or fmean(values) >= LOW_BALANCEDNESS:
        return []
    mean = fmean(values)
    return [Finding(
        "eplb_imbalance", f"Expert load is uneven across EP ranks (balancedness {mean:.2f}; 1.0 is even)",
        (Evidence(f"/metrics eplb_balancedness mean {mean:.2f} over {len(values)} scrapes", "metrics"),),
        clamp(0.5 + (LOW_BALANCEDNESS - mean)),
        "relaunch with --enable-eplb and redundant experts (candidate profile)",
        "eplb_imbalance",
        flags={"--enable-eplb": "", "--ep-num-redundant-experts": "32"},
        search_space={"--ep-num-redundant-experts": ["0", "16", "32"]})]
