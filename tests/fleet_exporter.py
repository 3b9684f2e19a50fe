"""A stand-in fleet for a real Prometheus to scrape: many labelled exporters on one port.

Each target is a path (`/node-a/dcgm`, `/node-a/sglang`) serving one of the exposition
texts of tests/data/metrics (the SGLang and dcgm-exporter fixtures, see make_fixtures.py)
with counters advancing: the n-th scrape of an SGLang path serves `a + n * (b - a)` for
every sample of its `-a` / `-b` pair, so rates and histogram windows are real. A DCGM path
serves its text with `Hostname` set to the target's host, cloned to `gpus` GPUs, power
moving a little with each scrape. `down(path)` makes a target answer 503 (Prometheus then
marks it `up == 0`).

The Prometheus fixture (prometheus_fixture.py) writes one scrape target per path, with
`instance` set to `HOST:PORT` so hosts are told apart though all listen on 127.0.0.1.
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "metrics"
SAMPLE = re.compile(r"^(?P<head>[^#\s][^ ]*(?:\{.*\})?) (?P<value>\S+)$")

# kind -> (page a, page b): the second page's counters are further on
SGLANG_PAGES = {
    "sglang": ("sglang-0.4-dp2-a.txt", "sglang-0.4-dp2-b.txt"),
    "router": ("router-sglang_-a.txt", "router-sglang_-b.txt"),
    "sglang-0.3": ("sglang-0.3-old-names.txt", "sglang-0.3-old-names.txt"),
}
DCGM_PAGES = {"dcgm": "dcgm-exporter-a.txt", "dcgm-defaults": "dcgm-exporter-defaults.txt"}


def _samples(text: str) -> list[tuple[str, float] | str]:
    out: list[tuple[str, float] | str] = []
    for line in text.splitlines():
        m = SAMPLE.match(line)
        out.append((m["head"], float(m["value"])) if m else line)
    return out


PAGE_GAP_S = 60.0
"""The fixtures' `-b` page is read as a scrape this long after `-a` (their counters moved
by a minute's traffic: ~1,500 generated tokens/s)."""


def advancing(a: str, b: str, n: float) -> str:
    """Page a, moved n steps of (b - a) along: counters and buckets advance, lines as written."""
    lines = []
    for x, y in zip(_samples(a), _samples(b)):
        if isinstance(x, str):
            lines.append(x)
        else:
            head, va = x
            vb = y[1] if isinstance(y, tuple) else va
            lines.append(f"{head} {va + n * (vb - va)!r}")
    return "\n".join(lines) + "\n"


def dcgm_text(base: str, host: str, gpus: int, n: int) -> str:
    """dcgm-exporter's text for `host` with `gpus` GPUs (clones of the file's GPU 0 and 1)."""
    out = []
    for line in base.splitlines():
        if line.startswith("#"):
            out.append(line)
            continue
        if 'gpu="0"' not in line:
            continue  # GPU 0's line is cloned to every index below
        m = SAMPLE.match(line)
        if m is None:
            continue
        head, value = m["head"], float(m["value"])
        for g in range(gpus):
            h = (head.replace('gpu="0"', f'gpu="{g}"').replace("nvidia0", f"nvidia{g}")
                 .replace("000000000000", f"{g:012d}").replace('Hostname="gpu-node-1"', f'Hostname="{host}"'))
            v = value
            if head.startswith("DCGM_FI_DEV_POWER_USAGE"):
                v = round(value - 15 * g + 40 * math.sin((n + g) / 3), 1)
            elif head.startswith("DCGM_FI_DEV_GPU_UTIL"):
                v = float(max(0, min(100, round(value - 3 * g))))
            out.append(f"{h} {v!r}")
    return "\n".join(out) + "\n"


@dataclass
class Target:
    path: str
    host: str
    port: int
    kind: str
    gpus: int = 8
    hits: int = 0
    down: bool = False

    @property
    def instance(self) -> str:
        return f"{self.host}:{self.port}"

    def page(self) -> str:
        self.hits += 1
        if self.kind in SGLANG_PAGES:
            a, b = SGLANG_PAGES[self.kind]
            # one scrape a second: each moves 1/60 of the way from page a to page b
            return advancing((DATA / a).read_text(), (DATA / b).read_text(), self.hits / PAGE_GAP_S)
        return dcgm_text((DATA / DCGM_PAGES[self.kind]).read_text(), self.host, self.gpus, self.hits)


class FleetExporter:
    """`hosts`: (name, kinds...) e.g. ("node-a", "dcgm", "sglang"); one target per kind."""

    def __init__(self, hosts: list[tuple[str, ...]], gpus: int = 8) -> None:
        self.targets: dict[str, Target] = {}
        for name, *kinds in hosts:
            for kind in kinds:
                port = 9400 if kind.startswith("dcgm") else 30000
                path = f"/{name}/{kind}"
                self.targets[path] = Target(path, name, port, kind, gpus)
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                target = owner.targets.get(self.path)
                if target is None or target.down:
                    self.send_response(404 if target is None else 503)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = target.page().encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.address = f"127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def down(self, path: str, is_down: bool = True) -> None:
        self.targets[path].down = is_down

    def __enter__(self) -> FleetExporter:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
