"""A real Prometheus (Debian's `prometheus` package) on 127.0.0.1, scraping a stand-in fleet.

`start_prometheus(exporter, folder)` writes a config with one scrape target per exporter
path (`instance` set to the fleet host's `HOST:PORT`, scraped every second), a web config
with basic auth (user `cockpit`, password PASSWORD; the bcrypt hash below), and its own
data folder; starts `prometheus` on a free port and waits until it is ready. `wait_for`
then waits until a PromQL query answers (targets up, two scrapes for a rate).

The `prometheus_fleet` fixture (module scope: startup is well under a second, but rates
need a few scrapes) serves three hosts: node-a (dcgm + SGLang 0.4), node-b (dcgm with
dcgm-exporter's default counters, so no power limit, + the router's `sglang_` re-export),
node-c (dcgm only), plus node-d's SGLang 0.3 (old names, no GPUs exported).
"""

from __future__ import annotations

import base64
import json
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from fleet_exporter import FleetExporter

USER, PASSWORD = "cockpit", "fleet-test-pw"
# bcrypt of PASSWORD (cost 4: Prometheus checks it on every request)
PASSWORD_HASH = "$2b$04$Z5wZPghPAlLn6l/Ab3j7ZOgc96bGMrIfEZJTYtahqjxRuA.gJefsG"
AUTH_ENV = "COCKPIT_TEST_PROM_AUTH"
FLEET_HOSTS = [("node-a", "dcgm", "sglang"), ("node-b", "dcgm-defaults", "router"), ("node-c", "dcgm"),
               ("node-d", "sglang-0.3")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class RunningPrometheus:
    url: str
    process: subprocess.Popen[bytes]
    folder: Path
    exporter: FleetExporter

    def query(self, promql: str) -> list[dict[str, object]]:
        """A query from the test side (urllib, not cockpit's client)."""
        req = urllib.request.Request(f"{self.url}/api/v1/query?{urllib.parse.urlencode({'query': promql})}")
        req.add_header("Authorization", "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode())
        with urllib.request.urlopen(req, timeout=5) as r:
            return list(json.load(r)["data"]["result"])

    def wait_for(self, promql: str, count: int = 1, timeout_s: float = 30.0) -> list[dict[str, object]]:
        deadline = time.monotonic() + timeout_s
        got: list[dict[str, object]] = []
        while time.monotonic() < deadline:
            try:
                got = self.query(promql)
            except (urllib.error.URLError, OSError):
                got = []
            if len(got) >= count:
                return got
            time.sleep(0.2)
        log = (self.folder / "prometheus.log").read_text(errors="replace")[-2000:]
        raise AssertionError(f"Prometheus never answered {promql!r} with {count} series (got {len(got)})\n{log}")

    def pause(self) -> None:
        """SIGSTOP: the port still accepts connections, nothing answers (a hanging server)."""
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.process.send_signal(signal.SIGCONT)


def start_prometheus(exporter: FleetExporter, folder: Path, *, extra_jobs: str = "",
                     lookback: str = "30s") -> RunningPrometheus:
    """`extra_jobs`: more `scrape_configs` entries (YAML, indented as the list's items)."""
    binary = shutil.which("prometheus") or "/usr/bin/prometheus"
    folder.mkdir(parents=True, exist_ok=True)

    def labels(t: object) -> str:
        more = "".join(f', {k}: "{v}"' for k, v in (getattr(t, "labels", None) or {}).items())
        return (f'instance: "{t.instance}", __metrics_path__: "{t.path}", '  # type: ignore[attr-defined]
                f'fleet_kind: "{t.kind}"{more}')  # type: ignore[attr-defined]

    targets = "\n".join(
        f'      - targets: ["{exporter.address}"]\n'
        f'        labels: {{{labels(t)}}}'
        for t in exporter.targets.values())
    (folder / "prometheus.yml").write_text(
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
        "scrape_configs:\n  - job_name: fleet\n    static_configs:\n" + targets + "\n" + extra_jobs)
    (folder / "web.yml").write_text(f"basic_auth_users:\n  {USER}: {PASSWORD_HASH}\n")
    port = free_port()
    log = (folder / "prometheus.log").open("wb")
    proc = subprocess.Popen(
        [binary, f"--config.file={folder / 'prometheus.yml'}", f"--web.config.file={folder / 'web.yml'}",
         f"--storage.tsdb.path={folder / 'data'}", f"--web.listen-address=127.0.0.1:{port}",
         "--storage.tsdb.retention.time=1h", f"--query.lookback-delta={lookback}",
         "--web.console.templates=/nonexistent", "--web.console.libraries=/nonexistent"],
        stdout=log, stderr=subprocess.STDOUT, cwd=folder)
    running = RunningPrometheus(f"http://127.0.0.1:{port}", proc, folder, exporter)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"prometheus exited: {(folder / 'prometheus.log').read_text()[-2000:]}")
        try:
            req = urllib.request.Request(f"{running.url}/-/ready")
            req.add_header("Authorization", "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode())
            with urllib.request.urlopen(req, timeout=2) as r:
                if r.status == 200:
                    return running
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("prometheus did not become ready in 30 s")


def stop_prometheus(running: RunningPrometheus) -> None:
    running.resume()
    running.process.terminate()
    try:
        running.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        running.process.kill()
        running.process.wait()


@pytest.fixture(scope="module")
def prometheus_fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningPrometheus]:
    """A real Prometheus scraping FLEET_HOSTS, with rates available (a few scrapes in)."""
    with FleetExporter([tuple(h) for h in FLEET_HOSTS], gpus=4) as exporter:
        running = start_prometheus(exporter, tmp_path_factory.mktemp("prometheus"))
        try:
            running.wait_for('up == 1', count=len(exporter.targets))
            running.wait_for('rate({__name__=~"sglang[:_]generation_tokens_total"}[30s]) > 0', count=2)
            running.wait_for('histogram_quantile(0.5, sum by (instance, le) '
                             '(rate(sglang:time_to_first_token_seconds_bucket[60s]))) > 0', count=1)
            yield running
        finally:
            stop_prometheus(running)


@pytest.fixture
def prom_auth(monkeypatch: pytest.MonkeyPatch) -> str:
    """The credentials in AUTH_ENV, as a user exports them; returns the variable's name."""
    monkeypatch.setenv(AUTH_ENV, f"{USER}:{PASSWORD}")
    return AUTH_ENV


__all__ = ["AUTH_ENV", "FLEET_HOSTS", "RunningPrometheus", "prometheus_fleet", "prom_auth", "start_prometheus",
           "stop_prometheus"]
