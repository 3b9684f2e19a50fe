"""`cockpit mcp`'s server metrics and fleet resources (issue 23 item 7): the assistant reads
what the metrics pane and the Fleet tab show. The server is the STAND-IN SGLang server (its
/metrics in SGLang's format); the fleet, the demo's replay of answers recorded from a real
Prometheus through the real FleetFeed, and a Prometheus that does not answer."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from pathlib import Path

import pytest
from mcp import Client

from sweep_support import StandinServer, free_port

from cockpit.assistant import live_figures
from cockpit.assistant.mcp_server import build_server
from cockpit.demo.fleet import demo_fleet_feed
from cockpit.model.session import Host, PrometheusSource, Session
from cockpit.store.toml_store import save_session


@pytest.fixture(scope="module")
def server():
    srv = StandinServer(tok_s=400)
    yield srv
    srv.close()


def _generate(port: int) -> None:
    body = json.dumps({"text": "hi hi", "sampling_params": {"max_new_tokens": 30}}).encode()
    urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/generate", body), timeout=30).read()


async def _read(path: Path, name: str) -> dict:
    async with Client(build_server(path)) as c:
        result = await c.read_resource(f"cockpit://session/live/{name}")
    return json.loads(result.contents[0].text)  # type: ignore[union-attr]


async def test_the_metrics_resource_gives_each_hosts_server_figures_while_it_serves(tmp_path, server):
    path = tmp_path / "s.toml"
    save_session(Session(hosts=[Host(name="box", metrics_url=f"http://127.0.0.1:{server.port}/metrics"),
                                Host(name="quiet", metrics_url=f"http://127.0.0.1:{free_port()}/metrics"),
                                Host(name="nothing")]), path)
    # ~3 s of requests: the server serves through both scrapes even on a loaded machine
    busy = asyncio.create_task(asyncio.to_thread(lambda: [_generate(server.port) for _ in range(40)]))
    await asyncio.sleep(0.3)
    figures = (await _read(path, "metrics"))["hosts"]
    await busy
    assert set(figures) == {"box", "quiet"}  # a host without metrics_url is not read
    box = figures["box"]
    assert box["state"] == "ok" and box["url"].endswith("/metrics")
    assert "num_running_reqs" in box["gauges"] and box["rates_per_s"]["generation_tokens_per_s"] > 0
    assert set(box["latency_s_since_start"]["ttft"]) == {"p50", "p90", "p99"}
    assert figures["quiet"]["state"] == "failing" and figures["quiet"]["error"]


async def test_without_a_metrics_url_the_resource_says_what_to_set(tmp_path):
    path = tmp_path / "s.toml"
    save_session(Session(hosts=[Host(name="box")]), path)
    assert "metrics_url" in (await _read(path, "metrics"))["note"]


async def test_the_fleet_resource_is_the_fleet_tabs_snapshot_and_says_a_prometheus_that_does_not_answer(tmp_path):
    path = tmp_path / "s.toml"
    save_session(Session(prometheus=[PrometheusSource(name="prom", url=f"http://127.0.0.1:{free_port()}")]), path)
    down = (await _read(path, "fleet"))["sources"]["prom"]
    assert down["state"] != "ok" and down["error"]
    # the same call over the demo's recorded answers (a real Prometheus's, replayed)
    session = Session(prometheus=[PrometheusSource(name="demo", url="http://replay")])
    fleet = (await live_figures.fleet(session, lambda _src, _s: demo_fleet_feed()))["sources"]["demo"]
    assert fleet["state"] == "ok" and {h["name"] for h in fleet["hosts"]} >= {"node-a", "node-b"}
    assert any(h["power_w"] for h in fleet["hosts"]) and "replay" in fleet["description"]
