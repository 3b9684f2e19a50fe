"""Benchmark what the log pane's day-long keys cost: the search's match count ("3 of 41")
over a full ring and as lines come, and a frame drawn with wrap on vs off.  A script, not a test.

    python benchmarks/bench_log_view_keys.py [--lines N] [--runs N]

(a) `LogBuffer.matches` from nothing over N lines (a new search or filter), and then after
    1,000 more lines (what each 4 Hz recount while lines pour in costs);
(b) a whole frame of the line view (`render_lines`) at 160x50 on N lines of the bench mix,
    long decode lines included, cut at the edge and wrapped.
Writes benchmarks/out/log_view_keys.json.  The machine is 2 shared cores: numbers are noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_common import timed  # noqa: E402


def lines(n: int, start: int = 0) -> list[str]:
    out = []
    for i in range(start, start + n):
        if i % 97 == 0:
            out.append(f"[2025-03-01 12:00:00 TP0] needle {i} NCCL WARN retrying")
        else:
            out.append(f"[2025-03-01 12:{i // 60 % 60:02d}:{i % 60:02d} DP3 TP3] Decode batch. #running-req: {i % 64}, "
                       f"#token: {5000 + i}, token usage: 0.31, cuda graph: True, "
                       f"gen throughput (token/s): {800 + i % 500:.2f}, #queue-req: {i % 4}")
    return out


def bench_matches(n: int, runs: int) -> dict[str, float]:
    from cockpit.live.log.items import RUN
    from cockpit.ui.widgets.log.buffer import LogBuffer, compile_pattern

    buffer = LogBuffer(n)
    texts = lines(n)
    buffer.add_segments([(RUN, texts, [0] * len(texts))])
    pattern = compile_pattern("needle")
    assert pattern is not None

    def fresh() -> None:
        buffer.generation += 1  # as a new filter does: count from nothing
        buffer.matches(pattern)

    full = timed(fresh, runs)
    more = lines(1000, n)
    step = [n]

    def incremental() -> None:
        buffer.add_segments([(RUN, more, [0] * len(more))])
        buffer.matches(pattern)
        step[0] += 1000

    buffer.matches(pattern)
    inc = timed(incremental, runs)
    return {"count_full_ms": full * 1e3, "count_after_1000_lines_ms": inc * 1e3,
            "matches": float(len(buffer.matches(pattern)))}


async def bench_frames(n: int, runs: int) -> dict[str, float]:
    from textual.app import App, ComposeResult
    from textual.geometry import Region

    from cockpit.live.log.items import RUN
    from cockpit.ui.widgets.log.buffer import LogBuffer
    from cockpit.ui.widgets.log.view import LogLinesView

    buffer = LogBuffer(n)
    texts = lines(n)
    buffer.add_segments([(RUN, texts, [0] * len(texts))])

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield LogLinesView(buffer)

    out: dict[str, float] = {}
    app = One()
    async with app.run_test(size=(160, 50)) as pilot:
        view = app.query_one(LogLinesView)
        view.sync(True)
        await pilot.pause()
        for wrap in (False, True):
            view.set_wrap(wrap)
            await pilot.pause()
            region = Region(0, 0, view.size.width, view.size.height)
            out[f"frame_{'wrapped' if wrap else 'cut'}_ms"] = timed(lambda region=region: view.render_lines(region), runs) * 1e3
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    res = {"lines": args.lines, **bench_matches(args.lines, args.runs), **asyncio.run(bench_frames(args.lines, args.runs))}
    print(f"{'what':<32} {'value':>10}")
    for key, value in res.items():
        print(f"{key:<32} {value:>10.2f}")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "log_view_keys.json").write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    main()
