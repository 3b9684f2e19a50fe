"""PromQL answers recorded from a real Prometheus, replayed by query text.

A recording (tests/data/fleet/record_fleet.py writes them: Debian's Prometheus scraping
the stand-in fleet) maps each query the Fleet tab asks, `query PROMQL` or `query_range
PROMQL`, to the series Prometheus answered. `RecordedPrometheus` gives them back as they
were (the Fleet tab's snapshot tests); `DemoPrometheus` gives them at the time asked, each
figure moved by a per-host load swell, so the demo's Fleet tab is alive: power, util,
throughput and latencies rise and fall, the history ends now, and the limits, the missing
families and the target that is down stay what the real Prometheus said.
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cockpit.sources.metrics.prometheus_api import PrometheusClient, PrometheusError, PromSeries, PromTarget

REPLAY_URL = "replay://prometheus"
"""Stands in for the URL: a replay never opens a connection."""


@dataclass(frozen=True, slots=True)
class Recording:
    at: float
    """When the recorder asked (its instant queries' time, its range queries' end)."""
    interval_s: float
    history_s: float
    answers: Mapping[str, list[dict[str, Any]]]
    """`query PROMQL` / `query_range PROMQL` -> [{"labels": {...}, "points": [[t, v], ...]}]."""

    @classmethod
    def load(cls, path: Path) -> Recording:
        doc = json.loads(path.read_text(encoding="utf-8"))
        return cls(doc["at"], doc["interval_s"], doc["history_s"], doc["answers"])


class RecordedPrometheus(PrometheusClient):
    """The recorded answers, as they were (same figures, same times, every run)."""

    def __init__(self, answers: Mapping[str, list[dict[str, Any]]], url: str = REPLAY_URL) -> None:
        super().__init__(url)
        self.answers = answers

    def _recorded(self, key: str) -> list[dict[str, Any]]:
        try:
            return self.answers[key]
        except KeyError:  # a query the recorder never asked: the Fleet tab asks something new
            raise PrometheusError("bad-query", f"no recorded answer for {key[:80]}") from None

    async def query(self, promql: str, at: float | None = None) -> list[PromSeries]:
        return [PromSeries(a["labels"], tuple((t, v) for t, v in a["points"]))
                for a in self._recorded(f"query {promql}")]

    async def query_range(self, promql: str, start: float, end: float, step_s: float) -> list[PromSeries]:
        return [PromSeries(a["labels"], tuple((t, v) for t, v in a["points"]))
                for a in self._recorded(f"query_range {promql}")]

    async def targets(self) -> list[PromTarget]:
        """The targets API's answer as recorded (their scrape intervals set the rate window)."""
        return [PromTarget(a["labels"], a["scrape_interval_s"], a.get("health", "")) for a in self._recorded("targets")]

    async def config_yaml(self) -> str:
        raise PrometheusError("bad-query", "no recorded configuration")


def load_factor(host: str, t: float) -> float:
    """The demo fleet's load on `host` at unix time `t` against the recording's: a slow swell
    (5 min) and a small ripple (47 s), each host at its own phase. Between 0.85 and 1.05: the
    busiest recorded GPU (93 % of its limit) stays under it."""
    phase = zlib.crc32(host.encode()) % 628 / 100
    return 0.95 + 0.08 * math.sin(2 * math.pi * t / 300 + phase) + 0.02 * math.sin(2 * math.pi * t / 47 + 2 * phase)


def _host(labels: Mapping[str, str]) -> str:
    """dcgm-exporter's Hostname, else the instance without its port (as the Fleet tab groups)."""
    return labels.get("Hostname") or labels.get("instance", "").rsplit(":", 1)[0]


def moved(labels: Mapping[str, str], value: float, factor: float) -> float:
    """`value` of the series `labels` under `factor` times the recorded load."""
    name = labels.get("fig") or labels.get("__name__", "")
    if math.isnan(value) or name == "up" or name.startswith("has_") or name.endswith("_LIMIT"):
        return value  # presence, scrape health and power limits do not follow the load
    if name.startswith(("ttft_", "itl_")):
        return value * (1 + 1.5 * (factor - 1))  # a busier server answers later
    if name in ("running", "queued"):
        return float(round(value * factor))
    if name.endswith("_UTIL"):
        return float(min(100, round(value * factor)))
    return value * factor  # power (per GPU, per host), tokens and requests per second


class DemoPrometheus(RecordedPrometheus):
    """The recorded answers at the time asked, moved by `load_factor()`: instants at `at`, ranges
    with a point every step, each from the series' recorded (last) value."""

    async def query(self, promql: str, at: float | None = None) -> list[PromSeries]:
        if at is None:
            raise ValueError("the demo replay answers at a given time (FleetFeed passes its clock)")
        return [self._at(s, (at,)) for s in await super().query(promql, at)]

    async def query_range(self, promql: str, start: float, end: float, step_s: float) -> list[PromSeries]:
        times = tuple(start + k * step_s for k in range(int((end - start) / step_s) + 1))
        return [self._at(s, times) for s in await super().query_range(promql, start, end, step_s)]

    @staticmethod
    def _at(series: PromSeries, times: tuple[float, ...]) -> PromSeries:
        host = _host(series.labels)
        value = series.value
        return PromSeries(series.labels, tuple((t, moved(series.labels, value, load_factor(host, t))) for t in times))
