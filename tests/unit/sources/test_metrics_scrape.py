"""Scraping /metrics from a real HTTP server on 127.0.0.1 (tests/metrics_server.py)."""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from metrics_server import MetricsServer  # noqa: E402

from cockpit.live.metrics.server_metrics import ServerMetricsFold  # noqa: E402
from cockpit.model.session import Session  # noqa: E402
from cockpit.parse.gpu.events import GpuSamplesTaken, GpuStreamInterrupted  # noqa: E402
from cockpit.parse.metrics.events import MetricsScraped, MetricsScrapeFailed  # noqa: E402
from cockpit.parse.metrics.sglang_metrics import sglang_scrape  # noqa: E402
from cockpit.sources.metrics.scrape import DcgmFeed, MetricsFeed, dcgm_feed_for_host, metrics_feed_for_host, scrape_once  # noqa: E402
from cockpit.sources.session_feeds import sources_for_session  # noqa: E402


async def take(feed, n: int) -> list:
    out = []
    async for event in feed.stream():
        out.append(event)
        if len(out) == n:
            return out
    return out


async def test_a_scrape_reads_the_servers_figures():
    with MetricsServer("sglang-0.4-dp2-a.txt") as srv:
        event = await scrape_once(srv.url, host="box", timeout_s=5)
    assert isinstance(event, MetricsScraped) and event.host == "box"
    assert sglang_scrape(event.exposition).gauges["num_running_reqs"] == 25


async def test_a_chunked_answer_reads_the_same():
    with MetricsServer("sglang-0.4-dp2-a.txt", mode="chunked") as srv:
        event = await scrape_once(srv.url, timeout_s=5)
    assert isinstance(event, MetricsScraped)
    assert sglang_scrape(event.exposition).counters["prompt_tokens_total"] == 1_000_000


async def test_an_http_error_is_a_failed_scrape_with_the_status():
    with MetricsServer("sglang-0.4-dp2-a.txt", mode="404") as srv:
        event = await scrape_once(srv.url, timeout_s=5)
    assert isinstance(event, MetricsScrapeFailed) and event.reason == "HTTP 404 Not Found"


async def test_a_closed_port_is_refused_with_a_hint():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    event = await scrape_once(f"http://127.0.0.1:{port}/metrics", timeout_s=5)
    assert isinstance(event, MetricsScrapeFailed) and "refused" in event.reason
    assert "--enable-metrics" in event.reason


async def test_garbage_is_a_failed_scrape_not_a_crash():
    with MetricsServer("<html><body>hello</body></html>\n") as srv:
        event = await scrape_once(srv.url, timeout_s=5)
    assert isinstance(event, MetricsScrapeFailed)
    assert event.reason.startswith("not Prometheus exposition text")


async def test_a_hanging_scrape_times_out_and_the_feed_goes_on():
    with MetricsServer("sglang-0.4-dp2-a.txt", mode="hang", hang_s=2.0) as srv:
        feed = MetricsFeed(srv.url, interval_s=0.1, timeout_s=0.3)
        events = await asyncio.wait_for(take(feed, 2), 10)
    assert [type(e) for e in events] == [MetricsScrapeFailed, MetricsScrapeFailed]
    assert events[0].reason == f"no answer from {srv.url} within 0.3 s"
    assert srv.hits == 2


async def test_the_feed_scrapes_on_its_interval_and_folds_to_rates():
    with MetricsServer("sglang-0.4-dp2-a.txt", "sglang-0.4-dp2-b.txt") as srv:
        feed = MetricsFeed(srv.url, interval_s=0.05)
        events = await asyncio.wait_for(take(feed, 2), 10)
    fold = ServerMetricsFold()
    fold.add(sglang_scrape(events[0].exposition), 0.0)
    m = fold.add(sglang_scrape(events[1].exposition), 10.0)
    assert m.rates["prompt_tokens_per_s"] == 30_000 and m.missing == ()


async def test_dcgm_text_becomes_gpu_ticks():
    with MetricsServer("dcgm-exporter-a.txt") as srv:
        feed = DcgmFeed(MetricsFeed(srv.url, host="node1", interval_s=0.05))
        (tick,) = await asyncio.wait_for(take(feed, 1), 10)
    assert isinstance(tick, GpuSamplesTaken) and tick.host == "node1"
    assert [(g.index, g.power_w, g.host) for g in tick.samples] == [(0, 612.5, "node1"), (1, 592.5, "node1")]


async def test_a_dcgm_url_serving_other_text_says_so():
    with MetricsServer("sglang-0.4-dp2-a.txt") as srv:
        feed = DcgmFeed(MetricsFeed(srv.url, host="node1", interval_s=0.05))
        (event,) = await asyncio.wait_for(take(feed, 1), 10)
    assert isinstance(event, GpuStreamInterrupted) and "is it dcgm-exporter?" in event.reason


def test_session_hosts_name_their_endpoints():
    session = Session(hosts=[{"name": "box", "gpu_source": "dcgm", "gpu_interval_s": 2.0,
                              "metrics_url": "http://127.0.0.1:30000/metrics", "metrics_interval_s": 3.0}])
    host = session.hosts[0]
    feed = metrics_feed_for_host(host, None)
    assert feed is not None and (feed.url, feed.interval_s, feed.target) == (host.metrics_url, 3.0, None)
    dcgm = dcgm_feed_for_host(host, None)
    assert dcgm.metrics.url == "http://127.0.0.1:9400/metrics" and dcgm.metrics.interval_s == 2.0
    assert isinstance(sources_for_session(session).hosts.update(session.hosts).feeds["gpu@box"], DcgmFeed)
    assert metrics_feed_for_host(Session(hosts=[{"name": "x"}]).hosts[0], None) is None
    plain = Session(hosts=[{"name": "y", "metrics_url": "http://10.0.0.2:30000/metrics"}]).hosts[0]
    assert metrics_feed_for_host(plain, None).interval_s == 5.0
