"""A sweep point's server TTFT / ITL percentiles against a REAL Prometheus's `histogram_quantile`
(Debian's `prometheus`, tests/prometheus_fixture.py) over the same buckets: cockpit reads the
same histogram page Prometheus scraped, and each figure must equal PromQL's answer, and lie in
the bucket cockpit records beside it (`server_buckets`).

The pages: SGLang-shaped exposition fixtures (tests/data/metrics/, made by cockpit's authors in
SGLang's format), and the issue's case: four first tokens all in one bucket, whose p99 reads
as the bucket's 99 % (19.9 ms of a 10-20 ms bucket) - PromQL says the same, and the record
says it is a bucket, not a measurement of 19.9 ms."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from prometheus_fixture import RunningPrometheus, start_prometheus, stop_prometheus

from cockpit.live.experiment.sweep_server_metrics import window_fields
from cockpit.parse.metrics.prom_text import parse_exposition
from cockpit.parse.metrics.sglang_metrics import sglang_scrape

DATA = Path(__file__).resolve().parents[1] / "data" / "metrics"
TTFT, ITL = "sglang:time_to_first_token_seconds", "sglang:inter_token_latency_seconds"
QUANTILES = (("p50", 0.5), ("p90", 0.9), ("p95", 0.95), ("p99", 0.99))


def _few_page() -> str:
    """Four first tokens, all between 10 and 20 ms (SGLang's smallest TTFT buckets)."""
    bounds = [0.01, 0.02, 0.04, 0.08, 0.1]
    lines = [f"# HELP {TTFT} Histogram of time to first token in seconds.", f"# TYPE {TTFT} histogram"]
    for le in bounds:
        lines.append(f'{TTFT}_bucket{{le="{le}",model_name="m"}} {0.0 if le == 0.01 else 4.0}')
    lines += [f'{TTFT}_bucket{{le="+Inf",model_name="m"}} 4.0', f'{TTFT}_sum{{model_name="m"}} 0.05',
              f'{TTFT}_count{{model_name="m"}} 4.0',
              "# HELP sglang:num_requests_total requests.", "# TYPE sglang:num_requests_total counter",
              'sglang:num_requests_total{model_name="m"} 4.0']
    return "\n".join(lines) + "\n"


PAGES = {"/a": (DATA / "sglang-0.4-dp2-a.txt").read_text(), "/b": (DATA / "sglang-0.4-dp2-b.txt").read_text(),
         "/few": _few_page()}


@dataclass
class _Target:
    path: str
    host: str
    kind: str = "fixed"
    labels: dict[str, str] | None = None

    @property
    def instance(self) -> str:
        return f"{self.host}:30000"


class FixedPages:
    """Serves each page of PAGES, the same bytes at every scrape (an exporter for start_prometheus)."""

    def __init__(self) -> None:
        self.targets = {path: _Target(path, path.strip("/")) for path in PAGES}

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                body = PAGES.get(self.path, "").encode()
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.address = f"127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningPrometheus]:
    pages = FixedPages()
    running = start_prometheus(pages, tmp_path_factory.mktemp("prometheus"))  # type: ignore[arg-type]
    try:
        running.wait_for(f"{TTFT}_count", count=len(PAGES))
        yield running
    finally:
        stop_prometheus(running)
        pages.httpd.shutdown()


def _promql(prometheus: RunningPrometheus, family: str, q: float, host: str) -> float:
    (series,) = prometheus.query(f'histogram_quantile({q}, sum by (le) ({family}_bucket{{instance="{host}:30000"}}))')
    return float(series["value"][1])  # type: ignore[index]


@pytest.mark.parametrize("path", list(PAGES))
def test_each_server_percentile_is_promqls_histogram_quantile_and_lies_in_its_bucket(prometheus, path):
    # the point's window from a server that had observed nothing (a family absent at the start)
    empty = sglang_scrape(parse_exposition("# HELP sglang:num_requests_total r.\n# TYPE sglang:num_requests_total "
                                           "counter\nsglang:num_requests_total{model_name=\"m\"} 0\n"))
    fields = window_fields(empty, sglang_scrape(parse_exposition(PAGES[path])))
    host = path.strip("/")
    checked = 0
    for short, family in (("ttft", TTFT), ("itl", ITL)):
        for name, q in QUANTILES:
            key = f"server_{short}_{name}_ms"
            if key not in fields:
                assert family not in PAGES[path], key
                continue
            expected = _promql(prometheus, family, q, host) * 1000.0
            assert fields[key] == pytest.approx(expected, abs=1e-3), key
            low, high = fields["server_buckets"][key]
            assert low <= fields[key] <= high, key
            checked += 1
    assert checked == (4 if path == "/few" else 8)


def test_the_issues_bucket_edge_is_said_to_be_a_bucket(prometheus):
    fields = window_fields(sglang_scrape(parse_exposition("")), sglang_scrape(parse_exposition(PAGES["/few"])))
    assert fields["server_ttft_p99_ms"] == pytest.approx(19.9) == pytest.approx(_promql(prometheus, TTFT, 0.99, "few")
                                                                                * 1000.0)
    assert fields["server_buckets"]["server_ttft_p99_ms"] == [10.0, 20.0]
