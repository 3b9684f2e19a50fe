"""The fleet model's pure parts: hosts from labels, what is said when missing, the shared
time axis of the sparklines, and how credentials become a header."""

from __future__ import annotations

import base64

from cockpit.parse.metrics.fleet_snapshot import bin_series
from cockpit.sources.metrics.fleet_model import FleetModel, host_of, instance_host
from cockpit.sources.metrics.fleet_queries import server_query
from cockpit.sources.metrics.prometheus_api import PromSeries, auth_header


def s(value: float, **labels: str) -> PromSeries:
    return PromSeries(labels, ((100.0, value),))


def test_hosts_are_dcgm_s_hostname_else_the_instance_s_host() -> None:
    assert host_of({"Hostname": "gpu-node-1", "instance": "10.0.0.5:9400"}) == "gpu-node-1"
    assert host_of({"instance": "node-a:30000"}) == "node-a"
    assert instance_host("[::1]:9400") == "::1" and instance_host("node-b") == "node-b"


def test_credentials_user_password_is_basic_anything_else_bearer() -> None:
    assert auth_header("u:p w") == "Basic " + base64.b64encode(b"u:p w").decode()
    assert auth_header("eyJhbGciOi.x.y") == "Bearer eyJhbGciOi.x.y"


def test_a_server_sits_under_the_host_its_dcgm_instance_names() -> None:
    gpus = [s(500, __name__="DCGM_FI_DEV_POWER_USAGE", Hostname="gpu-node-1", instance="10.0.0.5:9400", gpu="0")]
    servers = [s(1500, fig="gen_tok_s", instance="10.0.0.5:30000"),
               s(1, fig="has_sglang:generation_tokens_total", instance="10.0.0.5:30000")]
    snap = FleetModel("lab", "u").update(gpus, servers, [], 100.0)
    (host,) = snap.hosts
    assert host.name == "gpu-node-1" and host.servers[0].get("gen_tok_s") == 1500
    # families the server lacks are named; a figure of a present family with no data is None
    assert "sglang:time_to_first_token_seconds" in host.servers[0].missing
    assert host.missing == ("DCGM_FI_DEV_POWER_MGMT_LIMIT", "DCGM_FI_DEV_GPU_UTIL")
    assert host.limit_w is None and host.util_pct is None


def test_a_host_that_went_quiet_is_said_with_when() -> None:
    model = FleetModel("lab", "u")
    gpus = [s(500, __name__="DCGM_FI_DEV_POWER_USAGE", Hostname="n1", instance="n1:9400", gpu="0")]
    model.update(gpus, [], [], 100.0)
    snap = model.update([], [], [], 105.0)
    (host,) = snap.hosts
    assert host.state == "missing" and "no series in Prometheus since" in host.note
    assert host.power_w is None  # not zero


def test_the_server_query_tags_every_figure_and_presence() -> None:
    q = server_query(60)
    for fig in ("gen_tok_s", "ttft_p99", "itl_p50", "has_sglang:num_requests_total"):
        assert f'"fig", "{fig}"' in q
    assert "sglang[:_]" in q and "[60s]" in q


def test_every_query_carries_the_match_and_the_power_history_is_per_gpu() -> None:
    from cockpit.sources.metrics.fleet_queries import gpu_query, power_history_query, up_query

    m = 'cluster="a"'
    q = server_query(60, m)
    assert q.count('{__name__=~"sglang[:_]') == q.count(',cluster="a"}')  # every selector, none missed
    assert gpu_query(m).endswith(',cluster="a"})') and up_query(m) == 'up{cluster="a"}'
    assert power_history_query(m) == ('sum by (Hostname, instance) (max by (Hostname, instance, gpu) '
                                      '(DCGM_FI_DEV_POWER_USAGE{cluster="a"}))')
    assert up_query() == "up" and "{}" not in power_history_query()


def test_the_rate_window_follows_the_scrape_interval_like_grafana_s_rate_interval() -> None:
    from cockpit.sources.metrics.fleet_queries import percentile_window, rate_window

    assert rate_window(60, 5) == (240, "rate over 240 s (scrape 60 s)")   # 4 scrapes
    assert rate_window(5, 5) == (20, "rate over 20 s, percentiles over 60 s (scrape 5 s)")
    assert percentile_window(20) == 60                                  # percentiles never under 60 s
    assert rate_window(30, 100)[0] == 130                                # a refresh plus a scrape
    assert rate_window(60, 5, setting=45) == (45, "rate over 45 s (rate_window_s)")
    assert percentile_window(45, setting=45) == 45
    assert rate_window(None, 5)[1].endswith("(scrape interval unknown: rate_window_s sets it)")


def test_several_windows_in_one_query_are_told_apart_and_gauges_sum_a_router_s_workers() -> None:
    q = server_query(20, 'cluster="a"', pct_window_s=60, win="w1")
    assert "[20s]" in q and "[60s]" in q and q.count('"win", "w1"') == q.count('"fig", "')
    assert ("sum by (instance) (max without (tp_rank, pp_rank, moe_ep_rank, pid) "
            '({__name__=~"sglang[:_]num_running_reqs",cluster="a"}))') in q


def test_prometheus_durations_and_the_config_s_scrape_intervals() -> None:
    from cockpit.sources.metrics.prometheus_api import config_scrape_intervals, duration_s

    assert [duration_s(t) for t in ("15s", "1m30s", "500ms", "2h", "x", "")] == [15, 90, 0.5, 7200, None, None]
    yaml = "global:\n  scrape_interval: 1m\nscrape_configs:\n- job_name: a\n  scrape_interval: 2m\n"
    assert config_scrape_intervals(yaml) == [60, 120]


def test_bins_share_one_time_axis_and_hold_across_a_narrow_bin_but_not_a_gap() -> None:
    pts = [(float(t), float(t)) for t in range(0, 10)]  # one a second
    assert bin_series(pts, 5, start=0, end=10) == [0.5, 2.5, 4.5, 6.5, 8.5]
    held = bin_series(pts, 20, start=0, end=10)  # bins of 0.5 s: every other one empty, held
    assert None not in held[:19]
    gap = [(0.0, 1.0), (1.0, 1.0), (2.0, 1.0), (8.0, 5.0), (9.0, 5.0)]
    binned = bin_series(gap, 10, start=0, end=10)
    assert binned[4] is None and binned[5] is None  # six seconds without data stay empty
