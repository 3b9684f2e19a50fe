"""The demo's /metrics replay: real exposition text through the real parser and fold, with
counters that keep rising and percentiles that move."""

import asyncio

from cockpit.demo.build import data_dir
from cockpit.demo.metrics import DemoMetricsFeed, DemoMetricsPages
from cockpit.live.metrics.server_metrics import ServerMetricsFold
from cockpit.parse.metrics.metrics_events import MetricsScraped
from cockpit.parse.metrics.prom_text import parse_exposition

DEMO = data_dir() / "demo"


def pages() -> DemoMetricsPages:
    return DemoMetricsPages((DEMO / "sglang-metrics-a.txt").read_text(), (DEMO / "sglang-metrics-b.txt").read_text(),
                            scale=0.1)


def test_the_replay_folds_to_rates_and_moving_percentiles_without_a_restart():
    fold = ServerMetricsFold(60)
    seen = []
    for n in range(60):
        m = fold.feed(MetricsScraped("lxc", "u", parse_exposition(pages().page(n)), 1000.0 + 2 * n, 0.0))
        seen.append(m)
    last = seen[-1]
    assert last.state == "ok" and last.run_index == 0 and last.missing == ()
    assert last.models == ("lukealonso/GLM-5-NVFP4",)
    assert all(m.rates["generation_tokens_per_s"] > 0 for m in seen[1:])
    p50s = {round(m.latency["ttft"]["p50"], 3) for m in seen[5:]}
    assert len(p50s) > 5  # the load shifts: TTFT moves, as a live server's does
    ttft = last.latency["ttft"]
    assert ttft["p50"] < ttft["p90"] < ttft["p99"]


def test_counters_only_grow_and_buckets_stay_cumulative():
    p = pages()
    for n in (3, 4):
        expo = parse_exposition(p.page(n))
        assert expo  # parses
    lines = [(a.rpartition(" ")[0], float(a.rpartition(" ")[2]), float(b.rpartition(" ")[2]))
             for a, b in zip(p.page(3).splitlines(), p.page(4).splitlines()) if not a.startswith("#")]
    for series, before, after in lines:
        if series.partition("{")[0].endswith(("_total", "_count", "_sum", "_bucket")):
            assert after >= before, series
    buckets = [v for s, _, v in lines if s.startswith("sglang:time_to_first_token_seconds_bucket")]
    assert buckets == sorted(buckets)


async def test_the_feed_yields_parsed_scrapes():
    feed = DemoMetricsFeed(DEMO / "sglang-metrics-a.txt", DEMO / "sglang-metrics-b.txt", interval_s=0.01)
    got = []
    async for item in feed.stream():
        got.append(item)
        if len(got) == 3:
            break
    assert all(isinstance(i, MetricsScraped) and i.host == "lxc" for i in got)
    assert "demo" in feed.description
    await asyncio.sleep(0)
