"""PromQL client failures against a real HTTP server that is not (or not quite) Prometheus:
each is a PrometheusError with its kind and a sentence, never a hang or a traceback."""

from __future__ import annotations

import asyncio

import pytest

from metrics_server import MetricsServer

from cockpit.sources.metrics.prometheus_api import PrometheusClient, PrometheusError


def run_query(client: PrometheusClient) -> PrometheusError:
    with pytest.raises(PrometheusError) as err:
        asyncio.run(asyncio.wait_for(client.query("up"), 30))
    return err.value


def test_a_url_that_is_not_prometheus_says_so() -> None:
    with MetricsServer("sglang-0.4-dp2-a.txt") as server:  # 404 on /api/v1/query
        err = run_query(PrometheusClient(server.url.removesuffix("/metrics")))
    assert err.kind == "http" and "is this the Prometheus URL?" in str(err)


def test_a_hanging_server_times_out_as_a_state() -> None:
    with MetricsServer("sglang-0.4-dp2-a.txt", mode="hang", hang_s=5) as server:
        err = run_query(PrometheusClient(server.url.removesuffix("/metrics"), timeout_s=0.5))
    assert err.kind == "timeout" and "within 0.5 s" in str(err)


def test_credentials_come_from_the_named_variable_only() -> None:
    client = PrometheusClient("http://127.0.0.1:1", auth_env="PROM_X", environ={})
    err = run_query(client)
    assert err.kind == "no-credentials" and "$PROM_X" in str(err)
    assert PrometheusClient("http://x", auth_env="P", environ={"P": "tok"})._headers() == {
        "Authorization": "Bearer tok"}
