"""The fleet through Prometheus: every host's GPUs and every SGLang server, from PromQL.

Many hosts are read through the Prometheus a team already runs (`[[prometheus]]`), not one
SSH connection per host. A host is dcgm-exporter's `Hostname` label, else the `instance`
label's host part; a server is an `instance` with `sglang:` (or the router's `sglang_`)
series, placed under the host its instance names.

On open, `query_range` fills the last `history_h` hours (power per host, generation
throughput per server); then instant queries every `interval_s` refresh the figures and
extend the history. A host's power is the sum over its physical GPUs of each one's largest
reading: a MIG GPU's every instance reports the whole GPU's power, so live and history both
take the max per GPU (dcgm-exporter's `gpu` index) before summing.

`[[prometheus]] match` (model/prom_match.py) goes into every query's selector: only the
targets it names are rows (a shared Prometheus's other jobs, and their down targets, are
not). rate() and the percentiles' windows follow the targets' scrape interval as Grafana's
`$__rate_interval` does (at least 4 scrapes, and one refresh plus one scrape; never under
60 s, so a percentile is more than a few requests), read from Prometheus's targets API, or
`rate_window_s` when the session sets one. A host the session names, or one seen before, that Prometheus has no
series for is said ("no series", "target down"), never shown as zero; so is a family a
server or host lacks (no TTFT histogram, no power limit exported).

`FleetModel` is plain Python (answers in, `FleetSnapshot` out); `FleetFeed` runs the queries.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import re
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cockpit.model.prom_match import Matcher, matchers_of, matches, promql
from cockpit.sources.metrics.prometheus_api import PrometheusClient, PrometheusError, PromSeries, config_scrape_intervals

HISTORY_POINTS = 120
"""Range-query points per series on open (a 3 h history: one every 90 s)."""

POWER, LIMIT, UTIL = "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_POWER_MGMT_LIMIT", "DCGM_FI_DEV_GPU_UTIL"
# The server's `sglang:` and the router's / Ray's `sglang_` spellings, matched by one regex.
SG = 'sglang[:_]'
MIN_WINDOW_S = 60.0
"""The shortest automatic rate window: percentiles over fewer seconds are a handful of requests."""


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


def _rate(family: str, window: str, match: str = "") -> str:
    return f'sum by (instance) (rate({{__name__=~"{SG}{family}"{_m(match)}}}[{window}]))'


def _gauge(family: str, match: str = "") -> str:
    # every TP / PP rank of a DP group repeats the scheduler's figure: one per group, summed
    # (a per-rank label such as 0.5.x's `pid` goes with the max)
    return f'sum by (instance) (max by (instance, dp_rank) ({{__name__=~"{SG}{family}"{_m(match)}}}))'


def _quantile(q: float, families: Sequence[str], window: str, match: str = "") -> str:
    # the first family a server has wins (0.3.x named ITL time_per_output_token_seconds)
    return " or ".join(
        f'histogram_quantile({q}, sum by (instance, le) (rate({{__name__=~"{SG}{f}_bucket"{_m(match)}}}[{window}])))'
        for f in families)


def _window(window_s: float) -> str:
    return f"{max(1, round(window_s))}s"


def server_query(window_s: float, match: str = "") -> str:
    """One PromQL query for every server figure, each series tagged with a `fig` label.

    `has_any`: every instance with any series of either spelling, with the spelling in a
    `spelling` label: a server is a row whatever subset of the families it has (the ones
    the figures need and it lacks are named)."""
    w = _window(window_s)
    itl = ("inter_token_latency_seconds", "time_per_output_token_seconds")
    parts = {
        "gen_tok_s": _rate("generation_tokens_total", w, match),
        "prompt_tok_s": _rate("prompt_tokens_total", w, match),
        "req_s": _rate("num_requests_total", w, match),
        "running": _gauge("num_running_reqs", match),
        "queued": _gauge("num_queue_reqs", match),
        "ttft_p50": _quantile(0.5, ("time_to_first_token_seconds",), w, match),
        "ttft_p99": _quantile(0.99, ("time_to_first_token_seconds",), w, match),
        "itl_p50": _quantile(0.5, itl, w, match),
        "itl_p99": _quantile(0.99, itl, w, match),
    }
    for family, series in PRESENCE.items():
        parts[f"has_{family}"] = f'group by (instance) ({{__name__=~"{SG}{series}"{_m(match)}}})'
    parts["has_any"] = (f'group by (instance, spelling) (label_replace({{__name__=~"{SG}.+"{_m(match)}}}, '
                        f'"spelling", "$1", "__name__", "(sglang[:_]).*"))')
    return " or ".join(f'label_replace({q}, "fig", "{fig}", "", "")' for fig, q in parts.items())


def power_history_query(match: str = "") -> str:
    # the live figure's sum of per-GPU maxima (a MIG GPU counted once, not once per instance)
    return f"sum by (Hostname, instance) (max by (Hostname, instance, gpu) ({POWER}{{{match}}}))" if match \
        else f"sum by (Hostname, instance) (max by (Hostname, instance, gpu) ({POWER}))"


def throughput_history_query(window_s: float, match: str = "") -> str:
    return _rate("generation_tokens_total", _window(window_s), match)


def rate_window(scrape_s: float | None, interval_s: float, *, setting: float | None = None) -> tuple[float, str]:
    """The rate window and why (said in the tab): the session's `rate_window_s`, else
    Grafana's `$__rate_interval` rule (4 scrapes, one refresh plus one scrape) with a 60 s
    floor, else (scrape interval unknown) 60 s or two refreshes."""
    if setting is not None:
        return setting, f"rate over {setting:g} s (rate_window_s)"
    if scrape_s is None:
        w = max(MIN_WINDOW_S, 2 * interval_s)
        return w, f"rate over {w:g} s (scrape interval unknown: rate_window_s sets it)"
    w = max(MIN_WINDOW_S, 4 * scrape_s, interval_s + scrape_s)
    return w, f"rate over {w:g} s (scrape {scrape_s:g} s)"


def instance_host(instance: str) -> str:
    """`node-a:9400` -> `node-a`; `[::1]:9400` -> `::1`; no port: as it is."""
    if instance.startswith("["):
        return instance[1:].split("]", 1)[0]
    if instance.count(":") == 1:
        return instance.rsplit(":", 1)[0]
    return instance


def host_of(labels: Mapping[str, str]) -> str:
    """dcgm-exporter's `Hostname` label, else the instance's host part."""
    return labels.get("Hostname") or instance_host(labels.get("instance", "")) or "?"


def natural_key(name: str) -> list[Any]:
    """node-2 before node-10."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def _num(v: float) -> float | None:
    return None if math.isnan(v) else v


@dataclass(frozen=True, slots=True)
class FleetGpu:
    index: str
    power_w: float | None
    limit_w: float | None
    util_pct: float | None


@dataclass(frozen=True, slots=True)
class FleetServer:
    instance: str
    figures: Mapping[str, float | None] = field(default_factory=dict)
    """gen_tok_s, prompt_tok_s, req_s, running, queued, ttft_p50/p99, itl_p50/p99 (seconds);
    None: the series exists but had no data in the window (no requests)."""
    missing: tuple[str, ...] = ()
    """Families this server's Prometheus series lack (said in the row)."""
    history: tuple[tuple[float, float], ...] = ()
    """Generation tokens/s over time."""

    def get(self, fig: str) -> float | None:
        return self.figures.get(fig)


@dataclass(frozen=True, slots=True)
class FleetHost:
    name: str
    state: str = "ok"
    """ok, down (a target Prometheus cannot scrape), missing (no series)."""
    note: str = ""
    gpus: tuple[FleetGpu, ...] = ()
    servers: tuple[FleetServer, ...] = ()
    missing: tuple[str, ...] = ()
    """DCGM fields none of this host's GPUs has (a limit not exported...)."""
    power_history: tuple[tuple[float, float], ...] = ()
    session_host: str | None = None
    """The session host of this name (selecting the row focuses its panes), if any."""

    @property
    def power_w(self) -> float | None:
        vals = [g.power_w for g in self.gpus if g.power_w is not None]
        return sum(vals) if vals else None

    @property
    def limit_w(self) -> float | None:
        vals = [g.limit_w for g in self.gpus if g.limit_w is not None]
        return sum(vals) if vals and len(vals) == len(self.gpus) else None

    @property
    def util_pct(self) -> float | None:
        vals = [g.util_pct for g in self.gpus if g.util_pct is not None]
        return sum(vals) / len(vals) if vals else None


@dataclass(frozen=True, slots=True)
class FleetSnapshot:
    source: str
    url: str
    at: float
    hosts: tuple[FleetHost, ...] = ()
    state: str = "ok"
    """connecting, ok, failing (the last query failed: the figures are the last good ones)."""
    error: str | None = None
    error_kind: str | None = None
    history_s: float = 3 * 3600.0
    notes: tuple[str, ...] = ()
    position: tuple[int, int] | None = None
    """Which of the session's `[[prometheus]]` sources this is, (2, 2), when it has several."""
    rate_window_s: float | None = None
    rate_window_note: str = ""
    """The rate window and where it came from ("rate over 240 s (scrape 60 s)")."""

    @property
    def label(self) -> str:
        """`lab` or, one of several, `lab (2/2)`."""
        return f"{self.source} ({self.position[0]}/{self.position[1]})" if self.position else self.source

    def to_json(self) -> dict[str, Any]:
        def pts(p: Iterable[tuple[float, float]]) -> list[list[float]]:
            return [[t, v] for t, v in p]
        return {
            "source": self.source, "url": self.url, "at": self.at, "state": self.state,
            "error": self.error, "error_kind": self.error_kind, "notes": list(self.notes),
            "rate_window_s": self.rate_window_s, "rate_window": self.rate_window_note,
            "hosts": [{
                "name": h.name, "state": h.state, "note": h.note, "session_host": h.session_host,
                "power_w": h.power_w, "limit_w": h.limit_w, "util_pct": h.util_pct, "missing": list(h.missing),
                "gpus": [{"index": g.index, "power_w": g.power_w, "limit_w": g.limit_w, "util_pct": g.util_pct}
                         for g in h.gpus],
                "servers": [{"instance": s.instance, **dict(s.figures), "missing": list(s.missing),
                             "history_points": len(s.history)} for s in h.servers],
                "power_history_points": len(h.power_history),
            } for h in self.hosts],
        }


class FleetModel:
    """Prometheus answers in, `FleetSnapshot`s out; keeps the history and who was seen."""

    def __init__(self, source: str, url: str, *, expected: Mapping[str, Sequence[str]] | None = None,
                 history_s: float = 3 * 3600.0, min_gap_s: float = 0.0) -> None:
        """`expected`: session host name -> other names Prometheus may know it by (its ssh host)."""
        self.source, self.url, self.history_s = source, url, history_s
        self.expected = {k: tuple(v) for k, v in (expected or {}).items()}
        self.min_gap_s = min_gap_s  # history keeps one point per gap (live refreshes are denser)
        self._power: dict[str, deque[tuple[float, float]]] = {}
        self._tput: dict[str, deque[tuple[float, float]]] = {}
        self._seen: dict[str, float] = {}
        self._last: FleetSnapshot | None = None

    # ----- history -----------------------------------------------------------------------
    def _push(self, store: dict[str, deque[tuple[float, float]]], key: str, t: float, v: float) -> None:
        dq = store.setdefault(key, deque(maxlen=8 * HISTORY_POINTS))
        if dq and t - dq[-1][0] < self.min_gap_s:
            return
        if dq and t <= dq[-1][0]:
            return
        dq.append((t, v))

    def load_history(self, power: Sequence[PromSeries], throughput: Sequence[PromSeries]) -> None:
        per_host: dict[str, dict[float, float]] = {}
        for s in power:
            by_t = per_host.setdefault(host_of(s.labels), {})
            for t, v in s.points:
                if not math.isnan(v):
                    by_t[t] = by_t.get(t, 0.0) + v
        for host, by_t in per_host.items():
            for t in sorted(by_t):
                self._push(self._power, host, t, by_t[t])
            self._seen.setdefault(host, max(by_t) if by_t else 0.0)
        for s in throughput:
            inst = s.labels.get("instance", "?")
            for t, v in s.points:
                if not math.isnan(v):
                    self._push(self._tput, inst, t, v)

    # ----- refresh -------------------------------------------------------------------------
    def update(self, gpus: Sequence[PromSeries], servers: Sequence[PromSeries], up: Sequence[PromSeries],
               at: float) -> FleetSnapshot:
        alias: dict[str, str] = {}  # instance host part -> host key
        gpu_vals: dict[str, dict[str, dict[str, float]]] = {}
        for s in gpus:
            host = host_of(s.labels)
            alias.setdefault(instance_host(s.labels.get("instance", "")), host)
            idx = s.labels.get("gpu", "?")
            gpu_vals.setdefault(host, {}).setdefault(idx, {})[s.labels.get("__name__", "")] = s.value
        srv_vals: dict[str, dict[str, float | None]] = {}
        spelling: dict[str, set[str]] = {}
        for s in servers:
            inst, fig = s.labels.get("instance", "?"), s.labels.get("fig", "")
            srv_vals.setdefault(inst, {})[fig] = _num(s.value)
            if fig == "has_any" and s.labels.get("spelling"):
                spelling.setdefault(inst, set()).add(s.labels["spelling"])
        hosts: dict[str, dict[str, Any]] = {}

        def host_entry(name: str) -> dict[str, Any]:
            return hosts.setdefault(name, {"gpus": [], "servers": [], "down": [], "missing": ()})

        for host, per_gpu in gpu_vals.items():
            entry = host_entry(host)
            for idx in sorted(per_gpu, key=natural_key):
                v = per_gpu[idx]
                entry["gpus"].append(FleetGpu(idx, _maybe(v.get(POWER)), _maybe(v.get(LIMIT)), _maybe(v.get(UTIL))))
            entry["missing"] = tuple(n for n in (POWER, LIMIT, UTIL) if all(n not in v for v in per_gpu.values()))
            total = sum(g.power_w for g in entry["gpus"] if g.power_w is not None)
            if any(g.power_w is not None for g in entry["gpus"]):
                self._push(self._power, host, at, total)
        for inst, figs in srv_vals.items():
            h = instance_host(inst)
            host = alias.get(h, h)
            missing = tuple(fam for fam in PRESENCE if f"has_{fam}" not in figs)
            if spelling.get(inst) == {"sglang_"}:  # said as this server spells them (the router's)
                said = tuple("sglang_" + fam.removeprefix("sglang:") for fam in missing)
            else:
                said = missing
            figs = {fig: figs.get(fig) for fig, fam in SERVER_FAMILIES.items() if fam not in missing}
            if figs.get("gen_tok_s") is not None:
                self._push(self._tput, inst, at, figs["gen_tok_s"])  # type: ignore[arg-type]
            host_entry(host)["servers"].append(FleetServer(
                inst, dict(figs), said, tuple(self._tput.get(inst, ()))))
        for s in up:
            if s.value == 0:
                inst = s.labels.get("instance", "?")
                h = instance_host(inst)
                job = s.labels.get("job")
                host_entry(alias.get(h, h))["down"].append(f"{inst}" + (f" ({job})" if job else ""))
        for name in hosts:
            self._seen[name] = at
        out: list[FleetHost] = []
        session_of = self._session_names(set(hosts) | set(self._seen))
        for name, e in hosts.items():
            rows: list[FleetServer] = sorted(e["servers"], key=lambda srv: natural_key(srv.instance))
            has_data = bool(e["gpus"] or rows)
            note = f"Prometheus cannot scrape {', '.join(e['down'])} (up == 0)" if e["down"] else ""
            out.append(FleetHost(
                name, "ok" if has_data else "down", note, tuple(e["gpus"]), tuple(rows), e["missing"],
                tuple(self._power.get(name, ())), session_of.get(name)))
        for name, last in self._seen.items():
            if name not in hosts:
                when = time.strftime("%H:%M:%S", time.localtime(last))
                out.append(FleetHost(name, "missing", f"no series in Prometheus since {when}",
                                     power_history=tuple(self._power.get(name, ())),
                                     session_host=session_of.get(name)))
        known = {h.session_host for h in out if h.session_host}
        for name in self.expected:
            if name not in known:
                out.append(FleetHost(name, "missing", "a session host with no series in Prometheus (no "
                                     "Hostname or instance label names it)", session_host=name))
        out.sort(key=lambda h: natural_key(h.name))
        self._last = FleetSnapshot(self.source, self.url, at, tuple(out), "ok", history_s=self.history_s)
        return self._last

    def failed(self, error: PrometheusError, at: float) -> FleetSnapshot:
        """The query failed: the last figures stay, marked failing, with the reason."""
        last = self._last
        self._last = FleetSnapshot(self.source, self.url, at, last.hosts if last else (), "failing",
                                   str(error), error.kind, self.history_s)
        return self._last

    def _session_names(self, names: Iterable[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for name in names:
            for session_name, aliases in self.expected.items():
                if name == session_name or name in aliases:
                    out[name] = session_name
        return out


def _maybe(v: float | None) -> float | None:
    return None if v is None else _num(v)


def bin_series(points: Sequence[tuple[float, float]], width: int, *, start: float, end: float) -> list[float | None]:
    """Points averaged into `width` equal time bins over [start, end]; None for an empty bin.

    Range history (one point a step) and live refreshes (one a second) share one time axis.
    A bin narrower than the points' spacing is empty between two points: it holds the last
    value when the next point is no further than twice the usual spacing (a gap stays a gap)."""
    if width <= 0 or end <= start:
        return []
    sums, counts = [0.0] * width, [0] * width
    span = end - start
    inside = [(t, v) for t, v in points if start <= t <= end]
    for t, v in inside:
        i = min(width - 1, int((t - start) / span * width))
        sums[i] += v
        counts[i] += 1
    out: list[float | None] = [s / c if c else None for s, c in zip(sums, counts)]
    if len(inside) >= 2:
        gaps = sorted(b[0] - a[0] for a, b in zip(inside, inside[1:]))
        hold_bins = 2 * gaps[len(gaps) // 2] / span * width
        filled = [i for i, c in enumerate(counts) if c]
        for a, b in zip(filled, filled[1:]):
            if 1 < b - a <= hold_bins + 1:
                for i in range(a + 1, b):
                    out[i] = out[a]
    return out


def timeout_for(interval_s: float) -> float:
    """A query may take most of an interval, never less than 2 s nor more than 10 s."""
    return min(10.0, max(2.0, 0.8 * interval_s))


class FleetFeed:
    """A `[[prometheus]]` source as a live feed: `FleetSnapshot`s, history first."""

    def __init__(self, name: str, url: str, *, auth_env: str | None = None, interval_s: float = 5.0,
                 history_h: float = 3.0, expected: Mapping[str, Sequence[str]] | None = None,
                 window_s: float | None = None, match: Mapping[str, str] | str | None = None,
                 client: PrometheusClient | None = None, clock: Callable[[], float] = time.time) -> None:
        """`window_s`: the rate window (`rate_window_s`); None: from the targets' scrape
        interval, read on open (`resolve_window`). `match`: `[[prometheus]] match`."""
        self.name, self.url, self.interval_s = name, url, interval_s
        self.history_s = history_h * 3600.0
        self.window_setting = window_s
        self.matchers: tuple[Matcher, ...] = matchers_of(match)
        self.match = promql(self.matchers)
        self.step_s = max(interval_s, self.history_s / HISTORY_POINTS)
        self.client = client or PrometheusClient(url, auth_env=auth_env, timeout_s=timeout_for(interval_s))
        self.clock = clock
        self.model = FleetModel(name, url, expected=expected, history_s=self.history_s, min_gap_s=self.step_s / 4)
        self.description = f"Prometheus {name} · {url} every {interval_s:g} s"
        self.scrape_s: float | None = None
        self._set_window(None)
        self._resolved = window_s is not None

    def _set_window(self, scrape_s: float | None) -> None:
        self.scrape_s = scrape_s
        self.window_s, self.window_note = rate_window(scrape_s, self.interval_s, setting=self.window_setting)
        self.server_q = server_query(self.window_s, self.match)

    async def resolve_window(self) -> None:
        """The slowest scrape interval among the matched targets (the targets API; else the
        loaded config's); the window follows it. Asked once; unknown stays unknown, said."""
        if self._resolved:
            return
        self._resolved = True
        scrape: float | None = None
        try:
            targets = await self.client.targets()
            found = [t.scrape_interval_s for t in targets
                     if t.scrape_interval_s is not None and matches(self.matchers, t.labels)]
            scrape = max(found) if found else None
        except PrometheusError:
            pass
        if scrape is None:
            try:
                found = config_scrape_intervals(await self.client.config_yaml())
                scrape = max(found) if found else None
            except PrometheusError:
                pass
        self._set_window(scrape)

    @classmethod
    def for_session(cls, source: Any, session: Any) -> FleetFeed:
        """`source`: a PrometheusSource; the session's hosts are the ones expected."""
        # hosts with GPUs or a server: the ones Prometheus should know (said when it does not)
        expected = {h.name: tuple(a for a in (_ssh_host(h.ssh),) if a) for h in session.hosts
                    if str(getattr(h.gpu_source, "value", h.gpu_source)) != "none" or h.metrics_url}
        return cls(source.name, source.url, auth_env=source.auth_env, interval_s=source.interval_s,
                   history_h=source.history_h, expected=expected, match=getattr(source, "match", None),
                   window_s=getattr(source, "rate_window_s", None))

    async def load_history(self) -> str | None:
        """The last `history_h` hours; the reason when Prometheus could not give them."""
        await self.resolve_window()
        end = self.clock()
        start = end - self.history_s
        # a point every step: its rate window covers the step too ($__rate_interval's step term)
        history_w = max(self.window_s, self.step_s + (self.scrape_s or 0.0))
        try:
            power, tput = await asyncio.gather(
                self.client.query_range(power_history_query(self.match), start, end, self.step_s),
                self.client.query_range(throughput_history_query(history_w, self.match), start, end, self.step_s))
        except PrometheusError as exc:
            return str(exc)
        self.model.load_history(power, tput)
        return None

    async def refresh(self) -> FleetSnapshot:
        at = self.clock()
        try:
            gpus, servers, up = await asyncio.gather(
                self.client.query(gpu_query(self.match), at), self.client.query(self.server_q, at),
                self.client.query(up_query(self.match), at))
        except PrometheusError as exc:
            return self.model.failed(exc, at)
        snap = self.model.update(gpus, servers, up, at)
        return dataclasses.replace(snap, rate_window_s=self.window_s, rate_window_note=self.window_note)

    async def stream(self) -> AsyncIterator[FleetSnapshot]:
        yield FleetSnapshot(self.name, self.url, self.clock(), state="connecting", history_s=self.history_s)
        history_error = await self.load_history()
        loop = asyncio.get_running_loop()
        next_at = loop.time()
        while True:
            snap = await self.refresh()
            if history_error:
                snap = _with_note(snap, f"no history: {history_error}")
                if snap.state == "ok":
                    history_error = await self.load_history()  # Prometheus is back: try again
            yield snap
            next_at = max(next_at + self.interval_s, loop.time())  # no burst after a slow answer
            await asyncio.sleep(next_at - loop.time())


def _with_note(snap: FleetSnapshot, note: str) -> FleetSnapshot:
    return dataclasses.replace(snap, notes=(*snap.notes, note))


def _ssh_host(ssh: str | None) -> str | None:
    """`user@gpu1:2222` -> `gpu1` (what Prometheus's instance label may say)."""
    if not ssh:
        return None
    host = ssh.rsplit("@", 1)[-1]
    return instance_host(host) if host.count(":") == 1 or host.startswith("[") else host
