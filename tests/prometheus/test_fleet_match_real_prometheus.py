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
  cluster w: node-w, a router's page of two workers told apart by `worker_addr`.
  cluster slow: node-s, whose samples are a target scraped every 60 s (explicit timestamps a
             minute apart, the fleet exporter's sglang-60s: ten minutes of them in a few
             seconds), and a job `slow` scraping node-s's blank page every 60 s as the same
             instance: the targets API says 60 s for node-s:30000, as it would for a server
             scraped once a minute.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from fleet_exporter import FleetExporter
from prometheus_fixture import (  # noqa: F401
    AUTH_ENV,
    PASSWORD,
    USER,
    RunningPrometheus,
    prom_auth,
    start_prometheus,
    stop_prometheus,
)

from cockpit.parse.metrics.fleet_snapshot import FleetSnapshot
from cockpit.sources.metrics.fleet_feed import FleetFeed

HOSTS = [("node-a", "dcgm", "sglang-0.5"), ("node-m", "dcgm-mig"), ("node-r", "router-gauges"),
         ("node-x", "dcgm", "sglang"), ("node-y", "dcgm"), ("node-s", "sglang-60s", "blank"),
         ("node-w", "router-2w")]
CLUSTER = {"node-a": "a", "node-m": "a", "node-r": "a", "node-x": "b", "node-y": "b", "node-s": "slow",
           "node-w": "w"}


@pytest.fixture(scope="module")
def shared_prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningPrometheus]:
    labels = {host: {"cluster": c} for host, c in CLUSTER.items()}
    with FleetExporter([tuple(h) for h in HOSTS], gpus=4, labels=labels) as exporter:
        exporter.down("/node-y/dcgm")
        slow_job = ("  - job_name: slow\n    scrape_interval: 60s\n    scrape_timeout: 10s\n"
                    "    static_configs:\n"
                    f'      - targets: ["{exporter.address}"]\n'
                    '        labels: {instance: "node-s:30000", __metrics_path__: "/node-s/blank", '
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
    assert fast.window_note == "rate over 4 s, percentiles over 60 s (scrape 1 s)"
    set_ = feed(shared_prometheus, match={"cluster": "slow"}, window_s=90)
    snapshot(set_)
    assert set_.window_s == 90 and set_.window_note == "rate over 90 s (rate_window_s)"


def query_at(prom: RunningPrometheus, promql: str, at: float) -> list[dict[str, Any]]:
    """A query run by hand on the real Prometheus at time `at` (urllib, not cockpit's client)."""
    req = urllib.request.Request(f"{prom.url}/api/v1/query?{urllib.parse.urlencode({'query': promql, 'time': at})}")
    req.add_header("Authorization", "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode())
    with urllib.request.urlopen(req, timeout=5) as r:
        return list(json.load(r)["data"]["result"])


def test_a_router_s_two_workers_are_summed_as_cockpit_metrics_sums_the_raw_page(shared_prometheus,
                                                                               prom_auth) -> None:  # noqa: F811
    from cockpit.parse.metrics.prom_text import parse_exposition
    from cockpit.parse.metrics.sglang_metrics import sglang_scrape

    with urllib.request.urlopen(f"http://{shared_prometheus.exporter.address}/node-w/router-2w", timeout=5) as r:
        page = sglang_scrape(parse_exposition(r.read().decode()))  # `cockpit metrics` on the raw page
    assert (page.gauges["num_running_reqs"], page.gauges["num_queue_reqs"]) == (30, 3)
    shared_prometheus.wait_for('sglang_num_running_reqs{instance="node-w:30000"}', count=4)
    (server,) = rows(snapshot(feed(shared_prometheus, match={"cluster": "w"})))["node-w"].servers
    # each worker's two TP ranks counted once, the two workers summed (max per instance read 20 / 2)
    assert (server.get("running"), server.get("queued")) == (30, 3)


def test_each_target_s_rate_window_follows_its_own_scrape_interval(shared_prometheus, prom_auth) -> None:  # noqa: F811
    at = time.time()
    mixed = FleetFeed("shared", shared_prometheus.url, auth_env=AUTH_ENV, interval_s=1.0, history_h=0.02,
                      match='{cluster=~"a|slow"}', clock=lambda: at)
    snap = snapshot(mixed)
    fast, slow = rows(snap)["node-a"].servers[0], rows(snap)["node-s"].servers[0]
    # node-a is scraped every second (4 s: 4 scrapes), node-s every minute (240 s); one window
    # for both (the slowest) read node-a, up for seconds, at a fraction of what it makes
    assert (fast.rate_window_s, slow.rate_window_s) == (4, 240)
    assert "each target's own window" in snap.rate_window_note
    for server, window in ((fast, 4), (slow, 240)):
        (by_hand,) = query_at(shared_prometheus, f'sum(rate(sglang:generation_tokens_total{{instance="{server.instance}"}}'
                                                 f"[{window}s]))", at)
        assert server.get("gen_tok_s") == pytest.approx(float(by_hand["value"][1]), rel=1e-9)
    # the stand-in moves node-a's counter 1,500 tokens a scrape, a scrape a second
    assert 1200 < fast.get("gen_tok_s") < 1800
    assert 1000 < slow.get("gen_tok_s") <= 1600


@pytest.mark.parametrize(("selector", "refused"), [('{job=~"(?!other).*"}', True), ('{job=~"\\\\pL+"}', False)])
def test_match_is_judged_by_prometheus_s_own_regex_rules(shared_prometheus, prom_auth, selector: str,
                                                         refused: bool) -> None:  # noqa: F811
    from cockpit.model.prom_match import match_problem

    body = selector[1:-1]
    try:
        answer = shared_prometheus.query(f"up{{{body}}}")
        prometheus_refused = False
    except urllib.error.HTTPError as exc:  # 400 bad_data: the query Prometheus refuses
        prometheus_refused = exc.code == 400
        answer = []
    assert prometheus_refused is refused and (match_problem(selector) is not None) is refused
    snap = snapshot(feed(shared_prometheus, match=selector))
    if refused:  # said, never queried
        assert snap.state == "failing" and snap.error_kind == "bad-match" and "(?!" in (snap.error or "")
    else:  # the targets Prometheus's own matching picks (job "fleet"; the `slow` job too)
        assert snap.state == "ok" and "fleet" in {str(a["metric"]["job"]) for a in answer}
        assert "node-a" in rows(snap)
