"""`cockpit mcp` over stdio as an assistant sees it: start-up, one tool call (a locked
load-edit-save), one handoff read; on the example session and on a 5,000-item one.

    .venv/bin/python benchmarks/bench_mcp.py [--calls 30]

Prints a table and writes benchmarks/out/mcp.json. Goal: a tool call well inside the
TUI's 1.5 s poll on a big session, so the person sees each edit on the next poll.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from bench_store import big_session
from mcp import Client, StdioServerParameters

from cockpit.store.toml_store import save_session

OUT = Path(__file__).resolve().parent / "out"
EXAMPLE = Path(__file__).resolve().parents[1] / "sessions" / "glm5-nvfp4.toml"


async def measure(path: Path, calls: int) -> dict[str, float]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "cockpit", "mcp", str(path)],
                                   env=dict(os.environ))
    start = time.perf_counter()
    async with Client(params) as client:
        started = time.perf_counter() - start
        call, read = [], []
        for i in range(calls):
            t0 = time.perf_counter()
            result = await client.call_tool("add_task", {"title": f"bench {i}"})
            call.append(time.perf_counter() - t0)
            assert not result.is_error, result.content
            t0 = time.perf_counter()
            await client.read_resource("cockpit://session/handoff")
            read.append(time.perf_counter() - t0)
    return {"start_s": started, "tool_call_ms": statistics.median(call) * 1000,
            "handoff_read_ms": statistics.median(read) * 1000}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=30)
    args = ap.parse_args()
    rows: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "example.toml"
        shutil.copy(EXAMPLE, small)
        big = Path(tmp) / "big.toml"
        save_session(big_session(5000), big)
        rows["example session"] = anyio.run(measure, small, args.calls)
        rows["5,000 items"] = anyio.run(measure, big, args.calls)
    print(f"{'session':<18} {'start s':>8} {'tool call ms':>13} {'handoff read ms':>16}")
    for name, row in rows.items():
        print(f"{name:<18} {row['start_s']:>8.2f} {row['tool_call_ms']:>13.1f} {row['handoff_read_ms']:>16.1f}")
    OUT.mkdir(exist_ok=True)
    (OUT / "mcp.json").write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
