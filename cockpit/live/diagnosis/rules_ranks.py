"""Per-rank and feature rules from /metrics and the log: dp_imbalance, spec_low_accept,
eplb_imbalance."""

from __future__ import annotations

from statistics import fmean

from cockpit.live.diagnosis.findings import Evidence, Finding, clamp
from cockpit.live.diagnosis.inputs import DiagnosisInputs
from cockpit.parse.log.events import DecodeBatch

QUEUE_MIN = 5  # a rank with this many queued while another idles is imbalance, not noise
IDLE_SHARE = 0.25
LOW_ACCEPT_LEN = 1.5
LOW_ACCEPT_RATE = 0.3
MIN_ACCEPT_LINES = 3  # a rank's fewer decode lines than this say nothing about its acceptance
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


def _rank_label(rank: str) -> str:
    return f"dp{rank}" if rank else "the server"


def _accept_from_log(inputs: DiagnosisInputs) -> dict[str, list[tuple[int, DecodeBatch]]]:
    """DP rank ("" untagged) -> its decode lines that carry an accept length."""
    out: dict[str, list[tuple[int, DecodeBatch]]] = {}
    if inputs.log is not None:
        for n, e in inputs.log.decode:
            if e.accept_len is not None:
                out.setdefault("" if e.ranks.dp is None else str(e.ranks.dp), []).append((n, e))
    return out


def _accept_from_metrics(inputs: DiagnosisInputs, name: str) -> dict[str, list[float]]:
    """DP rank -> its readings of `name` over the scrapes. A 0 is no reading: a rank that
    has run no speculative step yet reports 0, and a working step accepts at least 1 token."""
    out: dict[str, list[float]] = {}
    for s in inputs.metrics:
        per = s.gauges_by_dp.get(name) or ({"": s.gauges[name]} if name in s.gauges else {})
        for rank, value in per.items():
            if value > 0:
                out.setdefault(rank, []).append(value)
    return out


def _low(length: float | None, rate: float | None) -> bool:
    return (length is not None and length < LOW_ACCEPT_LEN) or (rate is not None and rate < LOW_ACCEPT_RATE)


def spec_low_accept(inputs: DiagnosisInputs) -> list[Finding]:
    """Judged per DP rank: each rank drafts for its own requests, so one rank accepting little
    is a finding though the mean over ranks looks fine, and a finding names only the low ranks
    with their own figures, never a mean over ranks (issue 37)."""
    evidence: list[Evidence] = []
    low_lengths: dict[str, float] = {}
    for rank, rows in sorted(_accept_from_log(inputs).items()):
        if len(rows) < MIN_ACCEPT_LINES:
            continue
        mean_len = fmean(e.accept_len or 0 for _, e in rows)
        rates = [e.accept_rate for _, e in rows if e.accept_rate is not None]
        rate = fmean(rates) if rates else None
        if _low(mean_len, rate):
            low_lengths[rank] = min(mean_len, low_lengths.get(rank, mean_len))
            times = [e.ts for _, e in rows if e.ts]
            who = f"{_rank_label(rank)}: " if rank else ""
            evidence.append(Evidence(f"{who}mean accept len {mean_len:.2f} over {len(rows)} decode batches"
                                     + (f", accept rate {rate:.2f}" if rate is not None else ""), "log",
                                     time_range=(times[0], times[-1]) if times else None,
                                     log_lines=(rows[0][0], rows[-1][0])))
    lengths = _accept_from_metrics(inputs, "spec_accept_length")
    rates_by_rank = _accept_from_metrics(inputs, "spec_accept_rate")
    for rank in sorted(set(lengths) | set(rates_by_rank)):
        length = fmean(lengths[rank]) if rank in lengths else None
        rate = fmean(rates_by_rank[rank]) if rank in rates_by_rank else None
        if not _low(length, rate):
            continue
        if length is not None:
            low_lengths[rank] = min(length, low_lengths.get(rank, length))
        n = max(len(lengths.get(rank, [])), len(rates_by_rank.get(rank, [])))
        said = [f"spec_accept_length {length:.2f}" if length is not None else "",
                f"spec_accept_rate {rate:.2f}" if rate is not None else ""]
        evidence.append(Evidence(f"/metrics {_rank_label(rank)}: " + ", ".join(x for x in said if x)
                                 + (f" (mean of {n} scrapes)" if n > 1 else ""), "metrics"))
    if not evidence:
        return []
    worst = min(low_lengths.values()) if low_lengths else None
    ranks = sorted({r for r in low_lengths if r})
    where = f" on {', '.join(_rank_label(r) for r in ranks)}" if ranks else ""
    figure = f" (about {worst:.2f} tokens a step)" if worst is not None else ""
    return [Finding(
        "spec_low_accept", f"Speculative decoding accepts few drafts{where}{figure}: "
        "the draft costs more than it saves", tuple(evidence),
        clamp(0.5 + (LOW_ACCEPT_LEN - (worst if worst is not None else LOW_ACCEPT_LEN))),
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
        (Evidence(f"/metrics eplb_balancedness mean {mean:.2f} over {len(values)} "
                  + ("scrape" if len(values) == 1 else "scrapes"), "metrics"),),
        clamp(0.5 + (LOW_BALANCEDNESS - mean)),
        "relaunch with --enable-eplb and redundant experts (candidate profile)",
        "eplb_imbalance",
        flags={"--enable-eplb": "", "--ep-num-redundant-experts": "32"},
        search_space={"--ep-num-redundant-experts": ["0", "16", "32"]})]
