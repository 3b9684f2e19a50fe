"""Fleet correctness through a REAL Prometheus (Debian's `prometheus`, tests/prometheus_fixture.py)
shared with things that are not this fleet: `[[prometheus]] match` picks the targets, a
MIG host's power history agrees with its live figure, a server with only the router's
`sglang_` names and none of the families the figures need is still a row, and the rate
window follows the targets' scrape interval.

The stand-in (tests/fleet_exporter.py), every target labelled with its `cluster`:
  cluster a: node-a (dcgm + SGLang 0.5, DP2xTP4, a pid per rank), node-m (dcgm-exporter on
             MIG GPUs: 4 GPUs, 3 instances each), node-r (an `sglang_` re-export of only
             token_usage, gen_throughput, cache_hit_rate)
  cluster b: node-x (dcgm + SGLang 0.4), node-y (dcgm, down: answers 503)
  cluster slow: node-s, whose samples are a target scraped every 60 s (explicit timestamps a
             minute apart, the fleet exporter's sglang-60s: ten minutes of them in a few
             seconds), and a job `slow` scraping node-s's blank page every 60 s: the targets
             API says 60 s for the cluster, as it would for a fleet scraped once a minute.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from fleet_exporter import FleetExporter
from prometheus_fixture import AUTH_ENV, RunningPrometheus, prom_auth, start_prometheus, stop_prometheus  # noqa: F401

from cockpit.live.fleet.fleet import FleetFeed
from cockpit.live.fleet.fleet_snapshot import FleetSnapshot

HOSTS = [("node-a", "dcgm", "sglang-0.5"), ("node-m", "dcgm-mig"), ("node-r", "router-gauges"),
         ("node-x", "dcgm", "sglang"), ("node-y", "dcgm"), ("node-s", "sglang-60s", "blank")]
CLUSTER = {"node-a": "a", "node-m": "a", "node-r": "a", "node-x": "b", "node-y": "b", "node-s": "slow"}


@pytest.fixture(scope="module")
def shared_prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningPrometheus]:
    labels = {host: {"cluster": c} for host, c in CLUSTER.items()}
    with FleetExporter([tuple(h) for h in HOSTS], gpus=4, labels=labels) as exporter:
        exporter.down("/node-y/dcgm")
        slow_job = ("  - job_name: slow\n    scrape_interval: 60s\n    scrape_timeout: 10s\n"
                    "    static_configs:\n"
                    f'      - targets: ["{exporter.address}"]\n'
                    '        labels: {instance: "node-s:9100", __metrics_path__: "/node-s/blank", '
                    'cluster: "slow"}\n')
        # lookback 5 m, Prometheus's default: a series scraped once a minute is "now" for 5 m
        running = start_prometheus(exporter, tmp_path_factory.mktemp("prometheus"), extra_jobs=slow_job,
                                   lookback="5m")
        try:
            running.wait_for('up{job="fleet"}', count=len(exporter.targets))
            running.wait_for('up{instance="node-y:9400"} == 0')
            running.wait_for('count_over_time(DCGM_FI_DEV_POWER_USAGE{Hostname="node-m"}[1m]) >= 5', count=12)
            running.wait_for('rate(sglang:generation_tokens_total{instance="node-a:30000"}[30s]) > 0')
            # node-s: ten minutes of once-a-minute samples, caught up with now
            running.wait_for('count_over_time(sglang:generation_tokens_total{instance="node-s:30000"}[15m]) >= 10')
            yield running
        finally:
            stop_prometheus(running)


def snapshot(feed: FleetFeed, history: bool = False) -> FleetSnapshot:
    async def go() -> FleetSnapshot:
        if history:
            assert await feed.load_history() is None
        else:
            await feed.resolve_window()
        return await feed.refresh()

    return asyncio.run(asyncio.wait_for(go(), 60))  # a guard against a stall, not a timing


def feed(prom: RunningPrometheus, **kw) -> FleetFeed:  # noqa: ANN003
    return FleetFeed("shared", prom.url, auth_env=AUTH_ENV, interval_s=1.0, history_h=0.02, **kw)


def rows(snap: FleetSnapshot) -> dict[str, object]:
    assert snap.state == "ok", snap.error
    return {h.name: h for h in snap.hosts}


def test_match_keeps_only_the_fleet_s_targets(shared_prometheus, prom_auth) -> None:  # noqa: F811
    every = rows(snapshot(feed(shared_prometheus)))
    assert {"node-a", "node-x", "node-y", "node-s"} <= set(every)  # a shared Prometheus: all of it
    assert every["node-y"].state == "down"
    mine = rows(snapshot(feed(shared_prometheus, match={"cluster": "a"})))
    assert sorted(mine) == ["node-a", "node-m", "node-r"]  # no node-x, and node-y's down target is not a row
    assert [s.instance for s in mine["node-a"].servers] == ["node-a:30000"]
    # a selector string: regex and negative matchers
    picked = rows(snapshot(feed(shared_prometheus, match='{cluster=~"a|b", fleet_kind!="dcgm-mig"}')))
    assert sorted(picked) == ["node-a", "node-r", "node-x", "node-y"]


def test_a_0_5_server_s_running_counts_each_dp_group_once(shared_prometheus, prom_auth) -> None:  # noqa: F811
    a = rows(snapshot(feed(shared_prometheus, match={"cluster": "a"})))["node-a"]
    (server,) = a.servers
    # DP2 x TP4, 10 + a little (the page advances) per DP group; every rank summed would be 80+
    assert 20 <= server.get("running") < 30 and server.missing == ()


def test_a_mig_host_s_power_history_agrees_with_its_live_figure(shared_prometheus, prom_auth) -> None:  # noqa: F811
    m = rows(snapshot(feed(shared_prometheus, match={"cluster": "a"}), history=True))["node-m"]
    assert [g.index for g in m.gpus] == ["0", "1", "2", "3"]  # 4 GPUs, not 12 MIG instances
    live = m.power_w
    history = [v for _, v in m.power_history]
    assert len(history) >= 3 and live is not None
    # every point of the history is one reading per physical GPU: the live figure's size,
    # under the 4 x 700 W limit (summed per MIG instance it was three times that)
    assert max(history) <= m.limit_w == 2800
    assert all(0.8 * live < v < 1.2 * live for v in history), (live, history)


def test_a_server_with_only_router_names_and_no_figure_families_is_a_row(shared_prometheus, prom_auth) -> None:  # noqa: F811
    r = rows(snapshot(feed(shared_prometheus, match={"cluster": "a"})))["node-r"]
    assert r.state == "ok" and r.gpus == ()
    (server,) = r.servers
    assert server.instance == "node-r:30000" and server.figures == {}
    # what it lacks, as it spells its names
    assert server.missing[:2] == ("sglang_generation_tokens_total", "sglang_prompt_tokens_total")
    assert "sglang_time_to_first_token_seconds" in server.missing and len(server.missing) == 7


def test_the_rate_window_follows_the_scrape_interval(shared_prometheus, prom_auth) -> None:  # noqa: F811
    slow = feed(shared_prometheus, match={"cluster": "slow"})
    s = rows(snapshot(slow))["node-s"]
    assert slow.window_s == 240 and slow.window_note == "rate over 240 s (scrape 60 s)"
    (server,) = s.servers
    # a minute's traffic a minute: 90,000 generated tokens (fleet_exporter's pages), 1,500/s,
    # less what rate()'s extrapolation leaves out between the window's edges and its samples
    assert 1000 < server.get("gen_tok_s") <= 1600
    assert server.get("ttft_p50") is not None
    # a 60 s window holds one sample of a target scraped every 60 s: no rate ("–" in the tab)
    fixed = rows(snapshot(feed(shared_prometheus, match={"cluster": "slow"}, window_s=60)))["node-s"]
    assert fixed.servers[0].get("gen_tok_s") is None
    # a fast cluster keeps the 60 s floor; a setting wins
    fast = feed(shared_prometheus, match={"cluster": "a"})
    snapshot(fast)
    assert fast.window_note == "rate over 60 s (scrape 1 s)"
    set_ = feed(shared_prometheus, match={"cluster": "slow"}, window_s=90)
    snapshot(set_)
    assert set_.window_s == 90 and set_.window_note == "rate over 90 s (rate_window_s)"
