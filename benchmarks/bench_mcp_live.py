"""`cockpit mcp`'s live resources over stdio: how long until a first read of
`live/log` shows a log's last line (the feeds start on that read and catch up on the
file), then what a read of `live/log` and `live/server` costs once they run.

    .venv/bin/python benchmarks/bench_mcp_live.py [--lines 50000] [--reads 30]

Prints a table and writes benchmarks/out/mcp_live.json. Goal: a read well under a
second once the feeds run (an assistant polls the server state while it waits).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

from cockpit.model.session import Host, Session
from cockpit.store.toml_store import save_session

OUT = Path(__file__).resolve().parent / "out"


def write_log(path: Path, lines: int) -> None:
    with path.open("w") as f:
        f.write("[2025-03-01 12:00:00] The server is fired up and ready to roll!\n")
        for i in range(lines):
            s = i * 2
            f.write(f"[2025-03-01 {12 + s // 3600 % 12:02d}:{s // 60 % 60:02d}:{s % 60:02d} TP0] Decode batch. "
                    f"#running-req: {10 + i % 7}, #token: {5000 + i}, token usage: 0.{i % 10}0, "
                    f"gen throughput (token/s): {800 + i % 400:.2f}, #queue-req: {i % 4}\n")
        f.write("[2025-03-01 23:59:59 TP0] the last line\n")


async def measure(session: Path, reads: int) -> dict[str, float]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "cockpit", "mcp", str(session)],
                                   env=dict(os.environ))
    async with Client(params) as client:
        start = time.perf_counter()
        while "the last line" not in (await client.read_resource("cockpit://session/live/log")).contents[0].text:  # type: ignore[union-attr]
            await anyio.sleep(0.02)
        first = time.perf_counter() - start
        log, server = [], []
        for _ in range(reads):
            t0 = time.perf_counter()
            await client.read_resource("cockpit://session/live/log")
            log.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            await client.read_resource("cockpit://session/live/server")
            server.append(time.perf_counter() - t0)
    return {"first_read_to_last_line_s": first, "log_read_ms": statistics.median(log) * 1000,
            "server_read_ms": statistics.median(server) * 1000}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=50_000)
    ap.add_argument("--reads", type=int, default=30)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "server.log"
        write_log(log, args.lines)
        session = Path(tmp) / "live.toml"
        save_session(Session(title="bench", hosts=[Host(name="here", log_path=str(log))]), session)
        row = anyio.run(measure, session, args.reads)
    row["log_lines"] = args.lines
    print(f"{'log lines':>10} {'first read -> last line s':>26} {'live/log read ms':>17} {'live/server read ms':>20}")
    print(f"{args.lines:>10,} {row['first_read_to_last_line_s']:>26.2f} {row['log_read_ms']:>17.1f} "
          f"{row['server_read_ms']:>20.1f}")
    OUT.mkdir(exist_ok=True)
    (OUT / "mcp_live.json").write_text(json.dumps(row, indent=1) + "\n")


if __name__ == "__main__":
    main()
