"""The demo's /metrics replay: real exposition text through the real parser and fold, with
counters that keep rising and percentiles that move."""

import asyncio

from cockpit.demo.build import data_dir
from cockpit.demo.metrics import DemoMetricsFeed, DemoMetricsPages
from cockpit.live.metrics.server_metrics import ServerMetricsFold
from cockpit.parse.metrics.events import MetricsScraped
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


def test_the_metrics_replay_says_what_the_replayed_log_says():
    """One truth (issue 23): the /metrics pane's running, queued and generation speed are the
    log pane's, line after line of the demo's log (they said 33 running beside `running 1`)."""
    from cockpit.demo.replay import DemoLoad, split_capture
    from cockpit.live.log.metrics import LogMetrics
    from cockpit.parse.log.sglang_log import parse_line

    startup, steady = split_capture((DEMO / "sglang-server.log").read_text())
    load, log, fold = DemoLoad(), LogMetrics(), ServerMetricsFold(60)
    p = pages()
    checked: set[int] = set()
    checked_lines: list[str] = []
    for line in startup + steady:
        load.read(line)
        log.apply(parse_line(line))
        if "Decode batch" not in line:
            continue
        m = fold.feed(MetricsScraped("lxc", "u", parse_exposition(p.following(load, 2.0)), 1000.0 + 2 * len(checked_lines), 0.0))
        checked_lines.append(line)
        running = log.running_req.values()[-1]
        assert m.gauges["num_running_reqs"] == running, line
        assert m.gauges["num_queue_reqs"] == log.queue_req.values()[-1], line
        assert abs(m.gauges["gen_throughput"] - log.gen_throughput.values()[-1]) <= 1, line
        if m.rates:  # the counters grow at the log's speed
            assert abs(m.rates["generation_tokens_per_s"] - load.gen_tps) <= 0.01 * load.gen_tps + 1
        checked.add(running)
    assert {1, 8, 64, 1024} <= checked  # the whole sweep of the capture, not one level


async def test_the_demo_wires_its_metrics_to_its_log(tmp_path, monkeypatch):
    from cockpit.demo.build import build_demo

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    _path, sources = build_demo()
    try:
        assert sources.metrics.load is sources.on_start[0].__self__.load
    finally:
        sources.run_stops()
