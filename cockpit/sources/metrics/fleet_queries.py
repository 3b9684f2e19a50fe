"""The fleet's PromQL: the GPU, server and `up` queries, the history range queries, and the
rate window (Grafana's `$__rate_interval` rule). Strings only, no I/O; `[[prometheus]]
match` goes into every selector (model/prom_match.py). FleetFeed (fleet.py) sends them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

HISTORY_POINTS = 120
"""Range-query points per series on open (a 3 h history: one every 90 s)."""

POWER, LIMIT, UTIL = "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_POWER_MGMT_LIMIT", "DCGM_FI_DEV_GPU_UTIL"
# The server's `sglang:` and the router's / Ray's `sglang_` spellings, matched by one regex.
SG = 'sglang[:_]'
MIN_WINDOW_S = 60.0
"""The shortest automatic percentile window: percentiles over fewer seconds are a handful of requests."""


def _m(match: str) -> str:
    """`,job="x"` to append inside a selector's braces ("" for no matcher)."""
    return f",{match}" if match else ""


def gpu_query(match: str = "") -> str:
    # only the labels the model reads: dcgm-exporter's UUID, PCI id, driver... would be most
    # of the answer; max per GPU: a MIG GPU's instances each report the whole GPU's power
    return f'max by (__name__, Hostname, instance, gpu) ({{__name__=~"{POWER}|{LIMIT}|{UTIL}"{_m(match)}}})'


def up_query(match: str = "") -> str:
    return f"up{{{match}}}" if match else "up"


GPU_QUERY, UP_QUERY = gpu_query(), up_query()

# Server figure -> the family it needs (named when absent), as a `has_` figure of the query.
SERVER_FAMILIES: Mapping[str, str] = {
    "gen_tok_s": "sglang:generation_tokens_total",
    "prompt_tok_s": "sglang:prompt_tokens_total",
    "req_s": "sglang:num_requests_total",
    "running": "sglang:num_running_reqs",
    "queued": "sglang:num_queue_reqs",
    "ttft_p50": "sglang:time_to_first_token_seconds",
    "ttft_p99": "sglang:time_to_first_token_seconds",
    "itl_p50": "sglang:inter_token_latency_seconds",
    "itl_p99": "sglang:inter_token_latency_seconds",
}
# `has_` figure -> the series whose presence it tests (a rate needs two scrapes: a server
# scraped once has the family but no rate yet, which is not the same as lacking it)
PRESENCE: Mapping[str, str] = {
    "sglang:generation_tokens_total": "generation_tokens_total",
    "sglang:prompt_tokens_total": "prompt_tokens_total",
    "sglang:num_requests_total": "num_requests_total",
    "sglang:num_running_reqs": "num_running_reqs",
    "sglang:num_queue_reqs": "num_queue_reqs",
    "sglang:time_to_first_token_seconds": "time_to_first_token_seconds_bucket",
    "sglang:inter_token_latency_seconds": "(inter_token_latency|time_per_output_token)_seconds_bucket",
}


# Ranks whose every member repeats the scheduler's figure (and 0.5.x's per-process `pid`):
# one per group is kept, as `cockpit metrics` does (parse/metrics/sglang_metrics.py); every
# other label (dp_rank, a router's `worker_addr`) names separate work and is summed.
REPLICAS = "tp_rank, pp_rank, moe_ep_rank, pid"


def _rate(family: str, window: str, match: str = "") -> str:
    return f'sum by (instance) (max without ({REPLICAS}) (rate({{__name__=~"{SG}{family}"{_m(match)}}}[{window}])))'


def _gauge(family: str, match: str = "") -> str:
    # every TP / PP rank of a DP group repeats the scheduler's figure: one per group, summed
    # over DP groups and over a router's workers (told apart by `worker_addr`)
    return f'sum by (instance) (max without ({REPLICAS}) ({{__name__=~"{SG}{family}"{_m(match)}}}))'


def _quantile(q: float, families: Sequence[str], window: str, match: str = "") -> str:
    # the first family a server has wins (0.3.x named ITL time_per_output_token_seconds)
    return " or ".join(
        f'histogram_quantile({q}, sum by (instance, le) (max without ({REPLICAS}) '
        f'(rate({{__name__=~"{SG}{f}_bucket"{_m(match)}}}[{window}]))))'
        for f in families)


def _window(window_s: float) -> str:
    return f"{max(1, round(window_s))}s"


def server_query(window_s: float, match: str = "", *, pct_window_s: float | None = None, win: str = "") -> str:
    """One PromQL query for every server figure, each series tagged with a `fig` label:
    rates over `window_s`, percentiles over `pct_window_s` (default: the same).

    `has_any`: every instance with any series of either spelling, with the spelling in a
    `spelling` label: a server is a row whatever subset of the families it has (the ones
    the figures need and it lacks are named). `win`: a `win` label on every series, so the
    answers of several windows in one query are told apart (FleetFeed keeps each target's)."""
    w = _window(window_s)
    p = _window(window_s if pct_window_s is None else pct_window_s)
    itl = ("inter_token_latency_seconds", "time_per_output_token_seconds")
    parts = {
        "gen_tok_s": _rate("generation_tokens_total", w, match),
        "prompt_tok_s": _rate("prompt_tokens_total", w, match),
        "req_s": _rate("num_requests_total", w, match),
        "running": _gauge("num_running_reqs", match),
        "queued": _gauge("num_queue_reqs", match),
        "ttft_p50": _quantile(0.5, ("time_to_first_token_seconds",), p, match),
        "ttft_p99": _quantile(0.99, ("time_to_first_token_seconds",), p, match),
        "itl_p50": _quantile(0.5, itl, p, match),
        "itl_p99": _quantile(0.99, itl, p, match),
    }
    for family, series in PRESENCE.items():
        parts[f"has_{family}"] = f'group by (instance) ({{__name__=~"{SG}{series}"{_m(match)}}})'
    parts["has_any"] = (f'group by (instance, spelling) (label_replace({{__name__=~"{SG}.+"{_m(match)}}}, '
                        f'"spelling", "$1", "__name__", "(sglang[:_]).*"))')
    return " or ".join(_tag(f'label_replace({q}, "fig", "{fig}", "", "")', win) for fig, q in parts.items())


def _tag(query: str, win: str) -> str:
    return f'label_replace({query}, "win", "{win}", "", "")' if win else query


def power_history_query(match: str = "") -> str:
    # the live figure's sum of per-GPU maxima (a MIG GPU counted once, not once per instance)
    return f"sum by (Hostname, instance) (max by (Hostname, instance, gpu) ({POWER}{{{match}}}))" if match \
        else f"sum by (Hostname, instance) (max by (Hostname, instance, gpu) ({POWER}))"


def throughput_history_query(window_s: float, match: str = "", *, win: str = "") -> str:
    return _tag(_rate("generation_tokens_total", _window(window_s), match), win)


def rate_window(scrape_s: float | None, interval_s: float, *, setting: float | None = None) -> tuple[float, str]:
    """The rate window and why (said in the tab): the session's `rate_window_s`, else
    Grafana's `$__rate_interval` rule (4 scrapes, one refresh plus one scrape), else (scrape
    interval unknown) 60 s or two refreshes. Each target's own (FleetFeed): a target scraped
    every 60 s gets 240 s, one scraped every 5 s 20 s, and a server up 20 s reads its rate."""
    if setting is not None:
        return setting, f"rate over {setting:g} s (rate_window_s)"
    if scrape_s is None:
        w = max(MIN_WINDOW_S, 2 * interval_s)
        return w, f"rate over {w:g} s (scrape interval unknown: rate_window_s sets it)"
    w = max(4 * scrape_s, interval_s + scrape_s)
    p = percentile_window(w)
    return w, (f"rate over {w:g} s (scrape {scrape_s:g} s)" if p == w
               else f"rate over {w:g} s, percentiles over {p:g} s (scrape {scrape_s:g} s)")


def percentile_window(rate_window_s: float, *, setting: float | None = None) -> float:
    """The percentiles' window: never under 60 s (fewer seconds are a handful of requests),
    unless the session sets one window for all."""
    return setting if setting is not None else max(MIN_WINDOW_S, rate_window_s)
