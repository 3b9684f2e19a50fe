"""The demo's `/metrics` stream: two scrapes in SGLang's format, extended into an endless
replay whose counters keep rising and whose latencies drift as a load comes and goes.

Each page is exposition text, parsed by the real parser (parse/metrics/prom_text.py) into the
`MetricsScraped` events a real scrape gives, so the metrics pane folds rates and window
percentiles exactly as it does for a server. Page n is built from the two scrapes a and b:

* counters (`_total`, `_count`, `_sum`) grow by (b - a) per scrape, times a load factor;
* histogram buckets grow by a mix of b - a and the same shifted one bucket up (slower
  requests), so TTFT and ITL percentiles move over minutes;
* gauges swing between a and b.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from cockpit.demo.replay import DemoLoad
from cockpit.parse.metrics.events import MetricsScraped
from cockpit.parse.metrics.prom_text import parse_exposition

DEMO_URL = "http://127.0.0.1:30000/metrics"
_DP_RANK = re.compile(r'dp_rank="(\d+)"')
_COUNTER_SUFFIXES = ("_total", "_count", "_sum")


def _load(k: int) -> float:
    """Requests per scrape relative to the recording: a slow swell and ebb."""
    return 1.0 + 0.5 * math.sin(k / 5)


def _slow_share(k: int) -> float:
    """The share of requests one bucket slower than recorded."""
    return 0.5 + 0.5 * math.sin(k / 7)


def _split(line: str) -> tuple[str, str, float] | None:
    """`name{labels} value` -> (name, series without `le`, value); None for comments."""
    if not line or line.startswith("#"):
        return None
    series, _, value = line.rpartition(" ")
    name = series.partition("{")[0]
    group = ",".join(part for part in series.partition("{")[2].rstrip("}").split(",") if not part.startswith("le="))
    return name, f"{name}{{{group}}}", float(value)


class DemoMetricsPages:
    """Exposition text of scrape n, from two recorded scrapes of the same series."""

    def __init__(self, first: str, second: str, *, scale: float = 1.0) -> None:
        """`scale`: how much of b - a one scrape adds (the demo's load against the recording's)."""
        self.a, self.b = first.splitlines(), second.splitlines()
        self.scale = scale
        if len(self.a) != len(self.b):
            raise ValueError("the two scrapes must list the same series in the same order")
        # d' of a bucket: the previous bucket's delta in its histogram (+Inf keeps its own)
        self._shifted: dict[int, float] = {}
        previous: dict[str, float] = {}
        for i, (la, lb) in enumerate(zip(self.a, self.b)):
            pa, pb = _split(la), _split(lb)
            if pa is None or pb is None or not pa[0].endswith("_bucket"):
                continue
            delta = pb[2] - pa[2]
            self._shifted[i] = delta if 'le="+Inf"' in la else previous.get(pa[1], 0.0)
            previous[pa[1]] = delta
        # for following(): the recording's generated tokens per b - a, and its DP ranks
        self.generated_per_delta = sum(pb[2] - pa[2] for pa, pb in self._pairs() if pa[0] == "sglang:generation_tokens_total")
        self.dp_ranks = len({m.group(1) for line in self.a if (m := _DP_RANK.search(line))})
        self._k, self._plain, self._slow = 0, 0.0, 0.0

    def _pairs(self) -> list[tuple[tuple[str, str, float], tuple[str, str, float]]]:
        return [(pa, pb) for la, lb in zip(self.a, self.b) if (pa := _split(la)) and (pb := _split(lb))]

    def page(self, n: int) -> str:
        plain = self.scale * sum(_load(k) * (1 - _slow_share(k)) for k in range(n))
        slow = self.scale * sum(_load(k) * _slow_share(k) for k in range(n))
        return self._render(plain, slow, lambda _name, a, b, _rank: a + (0.5 + 0.5 * math.sin(n / 4)) * (b - a))

    def following(self, load: DemoLoad, interval_s: float) -> str:
        """The next page of a server doing what `load` says (the replayed log's last batch
        line): its gauges are that line's figures, split over the recording's DP ranks, and
        its counters grow by that line's generation speed over `interval_s`."""
        self._k += 1
        share = _slow_share(self._k)
        grown = load.gen_tps * interval_s / self.generated_per_delta if self.generated_per_delta else 0.0
        self._plain += grown * (1 - share)
        self._slow += grown * share
        ranks = self.dp_ranks or 1
        per_rank = {"sglang:num_running_reqs": load.running, "sglang:num_queue_reqs": load.queued,
                    "sglang:gen_throughput": load.gen_tps, "sglang:num_used_tokens": load.tokens}

        def gauge(name: str, a: float, _b: float, rank: int) -> float:
            if name == "sglang:token_usage":
                return load.usage
            if name in per_rank:  # rank 0 takes the remainder so the ranks add up to the line's figure
                whole = per_rank[name]
                part = float(int(whole) // ranks + (int(whole) % ranks if rank == 0 else 0))
                return part if float(whole).is_integer() else whole / ranks
            return a
        return self._render(self._plain, self._slow, gauge)

    def _render(self, plain: float, slow: float, gauge: Callable[[str, float, float, int], float]) -> str:
        out = []
        for i, (la, lb) in enumerate(zip(self.a, self.b)):
            pa, pb = _split(la), _split(lb)
            if pa is None or pb is None:
                out.append(la)
                continue
            name, _group, a = pa
            delta = pb[2] - a
            if name.endswith("_bucket"):
                value = a + plain * delta + slow * self._shifted[i]
            elif name.endswith("_sum"):
                value = a + (plain + 1.6 * slow) * delta  # the slower requests take longer
            elif name.endswith(_COUNTER_SUFFIXES):
                value = a + (plain + slow) * delta
            else:
                rank = _DP_RANK.search(la)
                value = gauge(name, a, pb[2], int(rank.group(1)) if rank else 0)
                if a.is_integer() and pb[2].is_integer():  # a count of requests stays whole
                    value = float(round(value))
            out.append(f"{la.rpartition(' ')[0]} {value!r}")
        return "\n".join(out) + "\n"


class DemoMetricsFeed:
    """A LiveFeed of `MetricsScraped`, one page every `interval_s`, through the real parser."""

    RECORDED_S = 10.0
    """The time between the two recorded scrapes."""
    LOAD = 0.12
    """The demo server's load against the recording's (about the example campaign's 1,240 output tok/s)."""

    def __init__(self, first: Path, second: Path, *, host: str = "lxc", interval_s: float = 2.0,
                 load: DemoLoad | None = None) -> None:
        """`load`: the replayed log's state (DemoLogWriter.load); given, every page follows it, so
        this pane and the log's say the same running, queued and generation speed."""
        self.load = load
        self.pages = DemoMetricsPages(first.read_text(encoding="utf-8"), second.read_text(encoding="utf-8"),
                                      scale=self.LOAD * interval_s / self.RECORDED_S)
        self.host = host
        self.interval_s = interval_s
        self.description = f"replay: metrics {DEMO_URL} on {host} every {interval_s:g} s (demo)"

    async def stream(self) -> AsyncIterator[MetricsScraped]:
        n = 0
        while True:
            started = time.monotonic()
            text = self.pages.page(n) if self.load is None else self.pages.following(self.load, self.interval_s)
            expo = parse_exposition(text)
            yield MetricsScraped(self.host, DEMO_URL, expo, time.time(), time.monotonic() - started)
            n += 1
            await asyncio.sleep(self.interval_s)
