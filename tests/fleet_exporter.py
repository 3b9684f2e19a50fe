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
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "metrics"
SAMPLE = re.compile(r"^(?P<head>[^#\s][^ ]*(?:\{.*\})?) (?P<value>\S+)$")

# kind -> (page a, page b): the second page's counters are further on
SGLANG_PAGES = {
    "sglang": ("sglang-0.4-dp2-a.txt", "sglang-0.4-dp2-b.txt"),
    "router": ("router-sglang_-a.txt", "router-sglang_-b.txt"),
    "sglang-0.3": ("sglang-0.3-old-names.txt", "sglang-0.3-old-names.txt"),
    "sglang-0.5": ("sglang-0.5-dp2-tp4-pid-a.txt", "sglang-0.5-dp2-tp4-pid-b.txt"),
    # a re-export with the router's spelling and only some families: the scheduler's gauges
    "router-gauges": ("router-sglang_-a.txt", "router-sglang_-b.txt"),
    # samples as a target scraped once a minute gives them (see Target.page)
    "sglang-60s": ("sglang-0.4-dp2-a.txt", "sglang-0.4-dp2-b.txt"),
    # a router's page of two workers told apart by `worker_addr` (the same page every scrape)
    "router-2w": ("router-2-workers.txt", "router-2-workers.txt"),
}
GAUGES_ONLY = ("token_usage", "gen_throughput", "cache_hit_rate")
"""router-gauges: none of the families the Fleet tab's figures need, only these."""
VIRTUAL_SCRAPE_S = 60.0
DCGM_PAGES = {"dcgm": "dcgm-exporter-a.txt", "dcgm-defaults": "dcgm-exporter-defaults.txt",
              "dcgm-mig": "dcgm-exporter-a.txt"}
MIG_INSTANCES = (("1", "3g.40gb"), ("2", "2g.20gb"), ("3", "2g.20gb"))
"""dcgm-mig: every GPU split in three MIG instances; each reports the whole GPU's power
(dcgm-exporter labels a device field with the instance's GPU_I_ID / GPU_I_PROFILE)."""


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


def only_families(text: str, families: tuple[str, ...]) -> str:
    """The page less every series not of `families` (either spelling)."""
    keep = []
    for line in text.splitlines():
        m = SAMPLE.match(line)
        name = m["head"].split("{", 1)[0] if m else None
        if name is None or any(name in (f"sglang:{f}", f"sglang_{f}") for f in families):
            keep.append(line)
    return "\n".join(keep) + "\n"


def power_at(value: float, g: int, n: int) -> float:
    """GPU g's power at the n-th scrape (the same for each MIG instance of it)."""
    return round(value - 15 * g + 40 * math.sin((n + g) / 3), 1)


def dcgm_text(base: str, host: str, gpus: int, n: int, mig: bool = False) -> str:
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
                v = power_at(value, g, n)
            elif head.startswith("DCGM_FI_DEV_GPU_UTIL"):
                v = float(max(0, min(100, round(value - 3 * g))))
            if not mig:
                out.append(f"{h} {v!r}")
                continue
            for inst, profile in MIG_INSTANCES:
                out.append(f'{h[:-1]},GPU_I_ID="{inst}",GPU_I_PROFILE="{profile}"}} {v!r}')
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
    labels: dict[str, str] | None = None
    """More target labels (cluster, job...) the Prometheus config gives this target."""
    t0: float = field(default_factory=lambda: time.time() - 10 * VIRTUAL_SCRAPE_S)

    def sixty_s_page(self, a: str, b: str) -> str:
        """sglang-60s: the samples a target scraped every 60 s would have given, with their
        timestamps (Prometheus keeps a page's own): the k-th page is stamped t0 + 60 k s and
        moved a minute's traffic on; k catches up with now, then stays (the same samples
        again, which Prometheus ignores). A minute of such a target takes a few seconds."""
        k = min(self.hits - 1, int((time.time() - self.t0) // VIRTUAL_SCRAPE_S))
        stamp = int((self.t0 + VIRTUAL_SCRAPE_S * k) * 1000)
        lines = [line if line.startswith("#") or not line else f"{line} {stamp}"
                 for line in advancing(a, b, k).splitlines()]
        return "\n".join(lines) + "\n"

    @property
    def instance(self) -> str:
        return f"{self.host}:{self.port}"

    def page(self) -> str:
        self.hits += 1
        if self.kind == "blank":  # a target with no series of the fleet's (up, and nothing else)
            return "# no samples\n"
        if self.kind in SGLANG_PAGES:
            a, b = SGLANG_PAGES[self.kind]
            if self.kind == "sglang-60s":
                return self.sixty_s_page((DATA / a).read_text(), (DATA / b).read_text())
            # one scrape a second: each moves 1/60 of the way from page a to page b
            page = advancing((DATA / a).read_text(), (DATA / b).read_text(), self.hits / PAGE_GAP_S)
            return only_families(page, GAUGES_ONLY) if self.kind == "router-gauges" else page
        return dcgm_text((DATA / DCGM_PAGES[self.kind]).read_text(), self.host, self.gpus, self.hits,
                         mig=self.kind == "dcgm-mig")


class FleetExporter:
    """`hosts`: (name, kinds...) e.g. ("node-a", "dcgm", "sglang"); one target per kind."""

    def __init__(self, hosts: list[tuple[str, ...]], gpus: int = 8,
                 labels: dict[str, dict[str, str]] | None = None) -> None:
        """`labels`: host name -> target labels for every target of that host."""
        self.targets: dict[str, Target] = {}
        for name, *kinds in hosts:
            for kind in kinds:
                port = 9400 if kind.startswith("dcgm") else 9100 if kind == "blank" else 30000
                path = f"/{name}/{kind}"
                self.targets[path] = Target(path, name, port, kind, gpus, labels=(labels or {}).get(name))
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
