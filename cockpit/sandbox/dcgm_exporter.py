"""SIMULATOR / STAND-IN dcgm-exporter (NOT NVIDIA's), for cockpit's tests and walks on a machine
without GPUs.

Serves `/metrics` as dcgm-exporter does (DCGM_FI_DEV_POWER_USAGE and the enforced limit, one
series per GPU, `modelName="STAND-IN GPU"`), with a draw that follows the stand-in SGLang
server: `--busy-w` per GPU while the server's log (`--follow-log`) shows running requests (a
batch line with #running-req > 0 in the last 0.2 s), `--idle-w` otherwise. So a sweep against
the stand-in server records power, tok/J and output tok/J from samples taken over its window,
as it does against real GPUs. A host reads it with `gpu_source = "dcgm"` and `dcgm_url` (the
host form's GPU source and DCGM URL).

    python cockpit/sandbox/dcgm_exporter.py --port 0 --follow-log /tmp/walk/server.log

prints `STAND-IN dcgm-exporter at http://127.0.0.1:PORT/metrics` once it listens. Only the
standard library.
"""

from __future__ import annotations

import argparse
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

RUNNING = re.compile(r"(?:Prefill|Decode) batch.*#running-req: (\d+)")


class Draw:
    """Busy while the followed log shows requests running."""

    def __init__(self, log: Path | None, busy_w: float, idle_w: float) -> None:
        self.log, self.busy_w, self.idle_w = log, busy_w, idle_w
        self.busy_until = 0.0

    def watts(self) -> float:
        return self.busy_w if time.monotonic() < self.busy_until else self.idle_w

    def follow(self) -> None:
        if self.log is None:
            return
        while not self.log.exists():
            time.sleep(0.05)
        with open(self.log, errors="replace") as fh:
            while True:
                line = fh.readline()
                if not line:
                    time.sleep(0.01)
                    continue
                found = RUNNING.search(line)
                if found and int(found.group(1)) > 0:
                    self.busy_until = time.monotonic() + 0.2


def page(watts: float, gpus: int, limit_w: float) -> str:
    labels = [f'gpu="{i}",UUID="GPU-standin-{i}",device="nvidia{i}",modelName="STAND-IN GPU",Hostname="standin"'
              for i in range(gpus)]
    lines = ["# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).", "# TYPE DCGM_FI_DEV_POWER_USAGE gauge"]
    lines += [f"DCGM_FI_DEV_POWER_USAGE{{{lab}}} {watts}" for lab in labels]
    lines += ["# HELP DCGM_FI_DEV_ENFORCED_POWER_LIMIT Enforced power limit (in W).",
              "# TYPE DCGM_FI_DEV_ENFORCED_POWER_LIMIT gauge"]
    lines += [f"DCGM_FI_DEV_ENFORCED_POWER_LIMIT{{{lab}}} {limit_w}" for lab in labels]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="STAND-IN dcgm-exporter (not NVIDIA's)")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--follow-log", type=Path, default=None)
    p.add_argument("--gpus", type=int, default=2)
    p.add_argument("--busy-w", type=float, default=400.0)
    p.add_argument("--idle-w", type=float, default=70.0)
    p.add_argument("--limit-w", type=float, default=700.0)
    args = p.parse_args(argv)
    draw = Draw(args.follow_log, args.busy_w, args.idle_w)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args: object) -> None:
            pass

        def do_GET(self) -> None:
            body = page(draw.watts(), args.gpus, args.limit_w).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=draw.follow, daemon=True).start()
    print(f"STAND-IN dcgm-exporter at http://127.0.0.1:{httpd.server_address[1]}/metrics", flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
