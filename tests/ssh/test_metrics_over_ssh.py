"""/metrics read through the host's SSH connection (a direct TCP channel) against the real
loopback sshd, to a real HTTP server that listens on the "remote" loopback only."""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics_server import MetricsServer  # noqa: E402

from cockpit.live.metrics.server_metrics import ServerMetricsFold  # noqa: E402
from cockpit.parse.gpu.events import GpuSamplesTaken  # noqa: E402
from cockpit.parse.metrics.events import MetricsScraped, MetricsScrapeFailed  # noqa: E402
from cockpit.parse.metrics.sglang_metrics import sglang_scrape  # noqa: E402
from cockpit.sources.metrics.scrape import DcgmFeed, MetricsFeed, scrape_once  # noqa: E402
from cockpit.sources.transport.host_events import HostConnected  # noqa: E402
from cockpit.sources.transport.ssh_pool import Backoff, SshPool  # noqa: E402


def pool(events=None):
    return SshPool(events.append if events is not None else None,
                   backoff=Backoff(base_s=0.05, cap_s=0.2), agent_path=None)


async def test_scrapes_share_the_hosts_one_connection(sshd):
    events: list = []
    with MetricsServer("sglang-0.4-dp2-a.txt", "sglang-0.4-dp2-b.txt") as srv:
        async with pool(events) as p:
            target = sshd.target()
            feed = MetricsFeed(srv.url, host="gpu1", pool=p, target=target, interval_s=0.05)
            got = []
            async for event in feed.stream():
                got.append(event)
                if len(got) == 3:
                    break
    assert all(isinstance(e, MetricsScraped) for e in got), got
    assert srv.hits == 3
    assert sum(isinstance(e, HostConnected) for e in events) == 1  # one SSH connection for all
    fold = ServerMetricsFold()
    fold.add(sglang_scrape(got[0].exposition), 0.0)
    m = fold.add(sglang_scrape(got[1].exposition), 10.0)
    assert m.rates["generation_tokens_per_s"] == 9000 and m.latency["ttft"]["p50"] is not None
    assert "via ssh gpu1" in feed.description


async def test_nothing_listening_on_the_remote_port_is_said(sshd):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    async with pool() as p:
        event = await scrape_once(f"http://127.0.0.1:{port}/metrics", pool=p, target=sshd.target(), timeout_s=10)
    assert isinstance(event, MetricsScrapeFailed)
    assert f"could not connect to 127.0.0.1:{port}" in event.reason and "is the server up there?" in event.reason


async def test_an_unreachable_ssh_host_is_a_failed_scrape(sshd):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    async with pool() as p:
        event = await scrape_once("http://127.0.0.1:30000/metrics", pool=p,
                                  target=sshd.target(port=port), timeout_s=10)
    assert isinstance(event, MetricsScrapeFailed) and "refused" in event.reason


async def test_dcgm_exporter_through_ssh_feeds_gpu_rows(sshd):
    with MetricsServer("dcgm-exporter-a.txt") as srv:
        async with pool() as p:
            feed = DcgmFeed(MetricsFeed(srv.url, host="gpu1", pool=p, target=sshd.target(), interval_s=0.05))
            async for tick in feed.stream():  # noqa: B007 - the first tick, kept after the loop
                break
    assert isinstance(tick, GpuSamplesTaken)
    assert [(g.host, g.index, g.power_limit_w) for g in tick.samples] == [("gpu1", 0, 700.0), ("gpu1", 1, 700.0)]


async def test_a_hanging_server_behind_ssh_times_out(sshd):
    with MetricsServer("sglang-0.4-dp2-a.txt", mode="hang", hang_s=2.0) as srv:
        async with pool() as p:
            event = await asyncio.wait_for(
                scrape_once(srv.url, pool=p, target=sshd.target(), timeout_s=0.5), 10)
    assert isinstance(event, MetricsScrapeFailed) and "within 0.5 s" in event.reason


def test_cli_reads_a_session_hosts_metrics_through_its_ssh(sshd, tmp_path):
    import json

    from sshd_fixture import ALIAS

    with MetricsServer("sglang-0.4-dp2-a.txt") as srv, MetricsServer("dcgm-exporter-a.txt") as dcgm:
        session = tmp_path / "s.toml"
        session.write_text(f'schema_version = 1\n\n[[hosts]]\nname = "gpu1"\nssh = "{ALIAS}"\n'
                           f'gpu_source = "dcgm"\nmetrics_url = "{srv.url}"\ndcgm_url = "{dcgm.url}"\n')
        r = sshd.cockpit("metrics", "host:gpu1", "--session", str(session), "--once", "--json")
        g = sshd.cockpit("metrics", "host:gpu1", "--session", str(session), "--dcgm", "--once", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["sglang"]["num_running_reqs"] == 25
    assert [x["host"] for x in json.loads(g.stdout)["gpus"]] == ["gpu1", "gpu1"]
    assert srv.hits == 1 and dcgm.hits == 1


def test_cli_goes_through_the_hosts_ssh_not_around_it(sshd, tmp_path):
    # the server is reachable from here, but the host's sshd is down: the scrape must fail
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with MetricsServer("sglang-0.4-dp2-a.txt") as srv:
        session = tmp_path / "s.toml"
        session.write_text(f'schema_version = 1\n\n[[hosts]]\nname = "gpu1"\nssh = "me@127.0.0.1:{port}"\n'
                           f'metrics_url = "{srv.url}"\n')
        r = sshd.cockpit("metrics", "host:gpu1", "--session", str(session), "--once", "--timeout", "10")
    assert r.returncode == 1 and "refused" in r.stderr and srv.hits == 0
