"""SGLang's `/metrics` -> `ServerScrape`: the figures the metrics pane shows, from one scrape.

Labels (SGLang's docs on `--enable-metrics`; the pages in tests/data/metrics/): `model_name`,
`engine_type`, `tp_rank`, `pp_rank`, `dp_rank`, and `moe_ep_rank` in 0.5.x. Every TP / PP / EP rank of one
DP group reports the same scheduler figures (with `--enable-metrics-for-all-schedulers`), so
one of them is kept (the lowest ranks); DP groups are separate schedulers, so counts and
rates are summed over them and fractions averaged (token usage weighted by each group's KV
pool when the page gives `max_total_num_tokens`: used / total over the whole server).

Groups are made by meaning, not by a fixed label list: 0.5.x serves its gauges through
prometheus_client's multiprocess collector, which adds a `pid` label, a different value on
every rank. A label whose value is fixed by a series' ranks and differs between ranks (`pid`,
a host name, a GPU id) only says which process wrote it, so it never splits a rank group.

Names the pane expects and the text lacks are listed in `missing`, never read as zero.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from cockpit.parse.metrics.prom_histogram import Histogram
from cockpit.parse.metrics.prom_text import SGLANG_PREFIX, Exposition, Labels, parse_exposition_kept
from cockpit.parse.numbers import read_float

# Ranks whose every member repeats the same figure: one per group is kept.
REPLICA_LABELS = ("tp_rank", "pp_rank", "moe_ep_rank")
DP_LABEL = "dp_rank"

SUMMED_GAUGES = ("num_running_reqs", "num_queue_reqs", "num_used_tokens", "gen_throughput",
                 "num_grammar_queue_reqs", "num_retracted_reqs", "max_total_num_tokens")
AVERAGED_GAUGES = ("token_usage", "cache_hit_rate", "spec_accept_length", "spec_accept_rate")
COUNTERS = ("prompt_tokens_total", "generation_tokens_total", "num_requests_total",
            "cached_tokens_total", "num_aborted_requests_total",
            # newer families (0.5.x), read where a server exposes them; names as in SGLang's
            # srt/metrics/collector.py (forward_execution_seconds_total was
            # gpu_execution_seconds_total before; the MFU pair needs --enable-mfu-metrics)
            "num_retracted_requests_total", "forward_execution_seconds_total", "gpu_execution_seconds_total",
            "cuda_graph_passes_total", "estimated_flops_per_gpu_total", "estimated_read_bytes_per_gpu_total")
# counters split by one label: cuda_graph_passes_total{mode="decode_cuda_graph"|"decode_none"|...}
BY_LABEL = (("cuda_graph_passes_total", "mode"), ("forward_execution_seconds_total", "category"))
# Summaries whose mean is the figure (eplb_balancedness is a Summary with forward_mode)
SUMMARY_MEANS = ("eplb_balancedness",)
HISTOGRAMS = ("time_to_first_token_seconds", "inter_token_latency_seconds",
              "time_per_output_token_seconds", "e2e_request_latency_seconds", "queue_time_seconds")

# A figure of the page is a count, a rate, seconds or a share: never negative, never near
# float's end (1e308 summed over DP ranks is inf), and a share is at most 1. A value outside
# (inf, nan, -1e308) is no reading: left out, and named in `ServerScrape.refused`.
MAX_FIGURE = 1e18
FRACTIONS = frozenset({"token_usage", "cache_hit_rate", "spec_accept_rate"})
_READ = tuple(SGLANG_PREFIX + n for n in SUMMED_GAUGES + AVERAGED_GAUGES + COUNTERS) + tuple(
    SGLANG_PREFIX + n + part for n in SUMMARY_MEANS for part in ("_count", "_sum")) + tuple(
    SGLANG_PREFIX + n + part for n in HISTOGRAMS for part in ("_bucket", "_count", "_sum"))

# What the pane shows; each entry: the name, and older names that serve instead.
EXPECTED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("num_running_reqs", ()),
    ("num_queue_reqs", ()),
    ("token_usage", ()),
    ("gen_throughput", ()),
    ("prompt_tokens_total", ()),
    ("generation_tokens_total", ()),
    ("num_requests_total", ()),
    ("time_to_first_token_seconds", ()),
    # 0.3.x named it time_per_output_token_seconds; 0.4 renamed it inter_token_latency_seconds
    ("inter_token_latency_seconds", ("time_per_output_token_seconds",)),
    ("e2e_request_latency_seconds", ()),
)

# Why a name may be absent, said beside it in the pane.
MISSING_HINTS: Mapping[str, str] = {
    "num_requests_total": "added in SGLang 0.4; is the server older?",
    "inter_token_latency_seconds": "0.3.x served time_per_output_token_seconds instead",
    "time_to_first_token_seconds": "is the server older than 0.3.6, or started without --enable-metrics?",
}


@dataclass(frozen=True, slots=True)
class ServerScrape:
    """One scrape's SGLang figures (cumulative counters, cumulative histograms)."""

    gauges: Mapping[str, float] = field(default_factory=dict)
    gauges_by_dp: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """gauge -> dp_rank -> value, for servers with data parallelism ("" when unlabelled)."""
    counters: Mapping[str, float] = field(default_factory=dict)
    histograms: Mapping[str, Histogram] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    """Expected names (the server's `sglang:` spelling) the text lacks, in the pane's order."""
    models: tuple[str, ...] = ()
    spellings: frozenset[str] = frozenset()
    by_label: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """counter -> label value -> value, for the counters of BY_LABEL the text has."""
    counters_by_dp: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """counter -> dp_rank -> value (per-rank figures with --enable-metrics-for-all-schedulers)."""
    refused: tuple[tuple[str, float], ...] = ()
    """(sample name, value) of each value left out as no reading (inf, nan, negative, 1e308)."""

    @property
    def is_sglang(self) -> bool:
        return bool(self.spellings)

    def figures(self) -> dict[str, float]:
        """Gauges and counters by their short name (what `cockpit metrics --json` prints)."""
        return {**self.gauges, **self.counters}


RANK_LABELS = (DP_LABEL, *REPLICA_LABELS)
# a histogram's bucket bound and a summary's quantile split one process's series by design
_DIMENSIONS = frozenset({"le", "quantile"})


def per_process_labels(rows: Iterable[tuple[Labels, float]]) -> frozenset[str]:
    """Labels of these rows that only name the process a row came from: each rank (its
    dp / tp / pp / ep ranks) has one value of the label and the ranks' values differ.

    `pid` is always one where the rows carry ranks (a restarted rank leaves its dead pid's
    row beside the new one: still one rank). Rows with no rank labels at all (the tokenizer's
    series) are separate processes doing separate work when they differ, and are kept apart."""
    rows = list(rows)
    if not any(r in labels for labels, _ in rows for r in RANK_LABELS):
        return frozenset()
    values: dict[str, dict[tuple[str | None, ...], set[str | None]]] = {}
    names = {k for labels, _ in rows for k in labels} - set(RANK_LABELS) - _DIMENSIONS
    for labels, _ in rows:
        rank = tuple(labels.get(r) for r in RANK_LABELS)
        for name in names:
            values.setdefault(name, {}).setdefault(rank, set()).add(labels.get(name))
    out = {"pid"} & names
    for name, by_rank in values.items():
        fixed_by_rank = all(len(v) == 1 for v in by_rank.values())
        if fixed_by_rank and len({next(iter(v)) for v in by_rank.values()}) > 1:
            out.add(name)
    return frozenset(out)


def _one_per_group(rows: Iterable[tuple[Labels, float]]) -> dict[
        tuple[tuple[str, str], ...], tuple[tuple[int, ...], float]]:
    """Rows keyed by their labels less the replica ranks and the per-process labels; the
    lowest ranks win."""
    rows = list(rows)
    drop = set(REPLICA_LABELS) | per_process_labels(rows)
    out: dict[tuple[tuple[str, str], ...], tuple[tuple[int, ...], float]] = {}
    for labels, value in rows:
        key = tuple(sorted((k, v) for k, v in labels.items() if k not in drop))
        rank = tuple(_as_int(labels.get(r, "0")) for r in REPLICA_LABELS)
        if key not in out or rank < out[key][0]:
            out[key] = (rank, value)
    return out


def _as_int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0


def _dp_values(expo: Exposition, name: str) -> dict[str, float]:
    per_dp: dict[str, float] = {}
    for key, (_, value) in _one_per_group(expo.get(SGLANG_PREFIX + name)).items():
        dp = dict(key).get(DP_LABEL, "")
        per_dp[dp] = per_dp.get(dp, 0.0) + value
    return per_dp


def _histogram(expo: Exposition, name: str) -> Histogram | None:
    base = SGLANG_PREFIX + name
    if not expo.has(base + "_bucket"):
        return None
    buckets: dict[float, float] = {}
    for key, (_, value) in _one_per_group(expo.get(base + "_bucket")).items():
        le = read_float(dict(key)["le"]) if "le" in dict(key) else float("inf")
        if le is None or le != le:  # a bound that is no number (or nan): no bucket
            continue
        buckets[le] = buckets.get(le, 0.0) + value
    count = sum(v for _, v in _one_per_group(expo.get(base + "_count")).values())
    total = sum(v for _, v in _one_per_group(expo.get(base + "_sum")).values())
    ordered = tuple(sorted(buckets.items()))
    if not expo.has(base + "_count") and ordered:
        count = ordered[-1][1]
    return Histogram(ordered, count, total)


def _readings(expo: Exposition) -> tuple[Exposition, tuple[tuple[str, float], ...]]:
    """`expo` less the values that are no reading, and those values."""
    refused: list[tuple[str, float]] = []
    kept: dict[str, tuple[tuple[Labels, float], ...]] = {}
    for name in _READ:
        rows = expo.samples.get(name)
        if rows is None:
            continue
        top = 1.0 if name[len(SGLANG_PREFIX):] in FRACTIONS else MAX_FIGURE
        if all(0.0 <= value <= top for _, value in rows):  # False for nan
            kept[name] = rows
            continue
        kept[name] = tuple(row for row in rows if 0.0 <= row[1] <= top)
        refused += [(name, value) for _, value in rows if not 0.0 <= value <= top]
    if not refused:
        return expo, ()
    return Exposition(samples={**expo.samples, **kept}, families=expo.families, spellings=expo.spellings), tuple(refused)


def sglang_scrape(expo: Exposition) -> ServerScrape:
    """The SGLang figures of one parsed scrape (empty, all missing, for other text). Values
    that are no reading are left out (`refused`): no sum, mean or rule sees inf or nan."""
    expo, refused = _readings(expo)
    gauges: dict[str, float] = {}
    by_dp: dict[str, Mapping[str, float]] = {}
    for name in SUMMED_GAUGES + AVERAGED_GAUGES:
        per_dp = _dp_values(expo, name)
        if not per_dp:
            continue
        by_dp[name] = dict(per_dp)
        values = list(per_dp.values())
        gauges[name] = sum(values) / len(values) if name in AVERAGED_GAUGES else sum(values)
    pools = by_dp.get("max_total_num_tokens", {})
    usage = by_dp.get("token_usage", {})
    if len(usage) > 1 and set(usage) <= set(pools) and sum(pools[dp] for dp in usage) > 0:
        # each DP group has its own KV pool: the server's usage is used / total over them
        gauges["token_usage"] = sum(u * pools[dp] for dp, u in usage.items()) / sum(pools[dp] for dp in usage)
    counters_by_dp = {name: _dp_values(expo, name) for name in COUNTERS if expo.has(SGLANG_PREFIX + name)}
    counters = {name: sum(per_dp.values()) for name, per_dp in counters_by_dp.items()}
    for name in SUMMARY_MEANS:
        count = sum(_dp_values(expo, name + "_count").values())
        if count > 0:
            gauges[name] = sum(_dp_values(expo, name + "_sum").values()) / count
    by_label = {name: _by_label(expo, name, label) for name, label in BY_LABEL if expo.has(SGLANG_PREFIX + name)}
    histograms = {name: h for name in HISTOGRAMS if (h := _histogram(expo, name)) is not None}
    present = set(gauges) | set(counters) | set(histograms)
    missing = tuple(SGLANG_PREFIX + name for name, alts in EXPECTED
                    if name not in present and not any(a in present for a in alts))
    # `model_name` since 0.4; 0.3.x labelled the scheduler's series `name` (func_latency's
    # `name` is a function name, hence only the gauges and counters are asked)
    models = sorted({model for name in SUMMED_GAUGES + AVERAGED_GAUGES + COUNTERS
                     for labels, _ in expo.get(SGLANG_PREFIX + name)
                     if (model := labels.get("model_name") or labels.get("name"))})
    return ServerScrape(
        gauges=dict(gauges), gauges_by_dp=dict(by_dp),
        counters=dict(counters), histograms=dict(histograms),
        missing=missing, models=tuple(models), spellings=expo.spellings,
        by_label=by_label, counters_by_dp={k: dict(v) for k, v in counters_by_dp.items()},
        refused=refused,
    )


# Every sample `sglang_scrape` reads (canonical names): a page's other families are not kept.
USED_SAMPLES: frozenset[str] = frozenset(
    SGLANG_PREFIX + name + suffix
    for names, suffixes in (
        (SUMMED_GAUGES + AVERAGED_GAUGES + COUNTERS, ("",)),
        (SUMMARY_MEANS, ("_count", "_sum")),
        (HISTOGRAMS, ("_bucket", "_count", "_sum")),
    )
    for name in names for suffix in suffixes)


def sglang_scrape_streamed(chunks: Iterable[str]) -> ServerScrape:
    """`sglang_scrape(parse_exposition(text))` of a page read in pieces, keeping only the
    families it reads (a large page: cockpit diagnose); raises ExpositionError as it does."""
    return sglang_scrape(parse_exposition_kept(chunks, USED_SAMPLES))


def _by_label(expo: Exposition, name: str, label: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for key, (_, value) in _one_per_group(expo.get(SGLANG_PREFIX + name)).items():
        which = dict(key).get(label, "")
        out[which] = out.get(which, 0.0) + value
    return out
