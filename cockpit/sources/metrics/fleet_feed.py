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
not). rate() and the percentiles' windows follow each target's own scrape interval as
Grafana's `$__rate_interval` does (at least 4 scrapes, and one refresh plus one scrape; the
percentiles never under 60 s, so one is more than a few requests), read from Prometheus's
targets API, or `rate_window_s` when the session sets one: a target scraped every 60 s does
not stretch the window of one scraped every 5 s. One query asks every window the targets
need, each answer tagged (`win`), and each server keeps its own target's. A host the
session names, or one seen before, that Prometheus has no series for is said ("no series",
"target down"), never shown as zero; so is a family a server or host lacks (no TTFT
histogram, no power limit exported).


`FleetModel` (fleet_model.py) is plain Python (answers in, `FleetSnapshot` out, from
fleet_snapshot.py); `FleetFeed` here runs the queries (fleet_queries.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

from cockpit.model.prom_match import Matcher, MatchError, matchers_of, matches, promql
from cockpit.parse.metrics.fleet_snapshot import FleetSnapshot
from cockpit.sources.metrics.fleet_model import FleetModel, instance_host
from cockpit.sources.metrics.fleet_queries import (
    HISTORY_POINTS,
    gpu_query,
    percentile_window,
    power_history_query,
    rate_window,
    server_query,
    throughput_history_query,
    up_query,
)
from cockpit.sources.metrics.prometheus_api import (
    PrometheusClient,
    PrometheusError,
    PromSeries,
    config_scrape_intervals,
)


@dataclasses.dataclass(frozen=True, slots=True)
class _Window:
    """One window the targets need: rate(), percentiles, and the scrape interval it is for."""

    rate_s: float
    pct_s: float
    scrape_s: float | None


def timeout_for(interval_s: float) -> float:
    """A query may take most of an interval, never less than 2 s nor more than 10 s."""
    return min(10.0, max(2.0, 0.8 * interval_s))


class FleetFeed:
    """A `[[prometheus]]` source as a live feed: `FleetSnapshot`s, history first."""

    def __init__(self, name: str, url: str, *, auth_env: str | None = None, interval_s: float = 5.0,
                 history_h: float = 3.0, expected: Mapping[str, Sequence[str]] | None = None,
                 window_s: float | None = None, match: Mapping[str, str] | str | None = None,
                 client: PrometheusClient | None = None, clock: Callable[[], float] = time.time) -> None:
        """`window_s`: the rate window (`rate_window_s`); None: from each target's scrape
        interval, read on open (`resolve_window`). `match`: `[[prometheus]] match`; one that
        is not PromQL label matchers (RE2's regex rules) is said in every snapshot, never
        queried."""
        self.name, self.url, self.interval_s = name, url, interval_s
        self.history_s = history_h * 3600.0
        self.window_setting = window_s
        try:
            self.matchers: tuple[Matcher, ...] = matchers_of(match)
            self.match_error: str | None = None
        except MatchError as exc:
            self.matchers, self.match_error = (), f"[[prometheus]] {name}: {exc}"
        self.match = promql(self.matchers)
        self.step_s = max(interval_s, self.history_s / HISTORY_POINTS)
        self.client = client or PrometheusClient(url, auth_env=auth_env, timeout_s=timeout_for(interval_s))
        self.clock = clock
        self.model = FleetModel(name, url, expected=expected, history_s=self.history_s, min_gap_s=self.step_s / 4)
        self.description = f"Prometheus {name} · {url} every {interval_s:g} s"
        self.scrape_s: float | None = None
        self._set_window(None, {})
        self._resolved = window_s is not None

    def _set_window(self, scrape_s: float | None, per_instance: Mapping[str, float]) -> None:
        """`scrape_s`: the interval for a target the targets API did not name (the slowest
        known); `per_instance`: each known target's own."""
        self.scrape_s = scrape_s
        self.window_s, self.window_note = rate_window(scrape_s, self.interval_s, setting=self.window_setting)
        default = _Window(self.window_s, percentile_window(self.window_s, setting=self.window_setting), scrape_s)
        own: dict[str, _Window] = {}
        if self.window_setting is None:  # a session's rate_window_s is every target's
            for inst, scrape in per_instance.items():
                rate_s = rate_window(scrape, self.interval_s)[0]
                own[inst] = _Window(rate_s, percentile_window(rate_s), scrape)
        windows = sorted({default, *own.values()}, key=lambda x: (x.rate_s, x.pct_s))
        self.windows = windows
        tags = {w: f"w{i}" if len(windows) > 1 else "" for i, w in enumerate(windows)}
        self._tag_of = {inst: tags[w] for inst, w in own.items()}
        self._default_tag = tags[default]
        self._default_window = default
        self._window_of = own
        self.server_q = " or ".join(server_query(w.rate_s, self.match, pct_window_s=w.pct_s, win=tags[w])
                                    for w in windows)

    def _note(self, instances: Sequence[str]) -> str:
        """The window said in the tab: one, or each target's when the servers shown differ."""
        used = sorted({self._window_of.get(i, self._default_window) for i in instances},
                      key=lambda x: (x.rate_s, x.pct_s))
        if len(used) <= 1:
            return self.window_note if not used or used[0] == self._default_window else _say(used[0])
        return "each target's own window: " + "; ".join(_say(w) for w in used)

    def _own(self, series: Sequence[PromSeries]) -> list[PromSeries]:
        """Each instance's answers from its own window (all of them with one window)."""
        if len(self.windows) == 1:
            return list(series)
        return [s for s in series
                if s.labels.get("win") == self._tag_of.get(s.labels.get("instance", ""), self._default_tag)]

    def server_window_s(self, instance: str) -> float:
        """The rate window this server's figures are over."""
        return self._window_of.get(instance, self._default_window).rate_s

    async def resolve_window(self) -> None:
        """Each matched target's scrape interval (the targets API; else the loaded config's
        slowest for all); each target's window follows its own. Asked once; unknown stays
        unknown, said."""
        if self._resolved:
            return
        self._resolved = True
        scrape: float | None = None
        per_instance: dict[str, float] = {}
        try:
            targets = await self.client.targets()
            for t in targets:
                if t.scrape_interval_s is not None and matches(self.matchers, t.labels):
                    inst = t.labels.get("instance", "")
                    per_instance[inst] = max(per_instance.get(inst, 0.0), t.scrape_interval_s)
            scrape = max(per_instance.values()) if per_instance else None
        except PrometheusError:
            pass
        if scrape is None:
            try:
                found = config_scrape_intervals(await self.client.config_yaml())
                scrape = max(found) if found else None
            except PrometheusError:
                pass
        self._set_window(scrape, per_instance)

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
        if self.match_error:
            return self.match_error
        await self.resolve_window()
        end = self.clock()
        start = end - self.history_s
        # a point every step: its rate window covers the step too ($__rate_interval's step term)
        tags = [(w, f"w{i}" if len(self.windows) > 1 else "") for i, w in enumerate(self.windows)]
        tput_q = " or ".join(
            throughput_history_query(max(w.rate_s, self.step_s + (w.scrape_s or 0.0)), self.match, win=tag)
            for w, tag in tags)
        try:
            power, tput = await asyncio.gather(
                self.client.query_range(power_history_query(self.match), start, end, self.step_s),
                self.client.query_range(tput_q, start, end, self.step_s))
        except PrometheusError as exc:
            return str(exc)
        self.model.load_history(power, self._own(tput))
        return None

    async def refresh(self) -> FleetSnapshot:
        at = self.clock()
        if self.match_error:
            return self.model.failed(PrometheusError("bad-match", self.match_error), at)
        try:
            gpus, servers, up = await asyncio.gather(
                self.client.query(gpu_query(self.match), at), self.client.query(self.server_q, at),
                self.client.query(up_query(self.match), at))
        except PrometheusError as exc:
            return self.model.failed(exc, at)
        snap = self.model.update(gpus, self._own(servers), up, at)
        hosts = tuple(dataclasses.replace(h, servers=tuple(
            dataclasses.replace(srv, rate_window_s=self.server_window_s(srv.instance)) for srv in h.servers))
            for h in snap.hosts)
        note = self._note([srv.instance for h in hosts for srv in h.servers])
        return dataclasses.replace(snap, hosts=hosts, rate_window_s=self.window_s, rate_window_note=note)

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


def _say(w: _Window) -> str:
    if w.scrape_s is None:
        return f"rate over {w.rate_s:g} s (scrape interval unknown)"
    if w.pct_s == w.rate_s:
        return f"rate over {w.rate_s:g} s (scrape {w.scrape_s:g} s)"
    return f"rate over {w.rate_s:g} s, percentiles over {w.pct_s:g} s (scrape {w.scrape_s:g} s)"


def _with_note(snap: FleetSnapshot, note: str) -> FleetSnapshot:
    return dataclasses.replace(snap, notes=(*snap.notes, note))


def _ssh_host(ssh: str | None) -> str | None:
    """`user@gpu1:2222` -> `gpu1` (what Prometheus's instance label may say)."""
    if not ssh:
        return None
    host = ssh.rsplit("@", 1)[-1]
    return instance_host(host) if host.count(":") == 1 or host.startswith("[") else host
