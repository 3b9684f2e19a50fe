"""Benchmark the log pane: open a 1M-line log (vs toolong), whole-file metrics, key latency
under 20k lines/s, peak RSS after 1M and 10M lines.  A script, not a test.

    python benchmarks/bench_log_pane.py [--lines N] [--skip-toolong] [--metrics-lines N]

(a) headless run_test: time from app start until the file's last line is drawn; toolong in
    tmux (`tl FILE`, capture-pane polled) from benchmarks/out/toolong-venv.
(b) the pane fed the file from its first byte: time until the strip's snapshot has folded
    every event (measured on --metrics-lines, default 100k, and scaled to the whole file).
(c) a writer appends 20k lines/s to a file tailed by LogFeed into the pane; a `b` key event
    posted every 100 ms as the driver would; time until the view draws its first line after
    the toggle, p50/p99.
(d) a subprocess pushes N lines through LogPane.feed (5000-line batches of parsed events,
    re-used: parsing is the feed's cost, not the pane's) and reports ru_maxrss.
Writes benchmarks/out/log_pane.json.  The machine is 2 shared cores: numbers are noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "ui"))


def build(n: int) -> Path:
    from bench_parse_log import build_log  # the parse benchmark's real-format mix

    path = OUT / f"bench_v2_{n}.log"
    if not path.exists():
        build_log(path, n)
    return path


def last_text(path: Path) -> str:
    with path.open("rb") as f:
        f.seek(max(0, path.stat().st_size - 4096))
        return f.read().decode("utf-8", "replace").rstrip("\n").rsplit("\n", 1)[-1]


async def open_in_pane(path: Path) -> float:
    from test_log_pane import PaneApp, screen_rows

    from cockpit.sources.log_feed import LogFeed

    want = last_text(path)[:40]
    t0 = time.perf_counter()
    app = PaneApp(LogFeed.local(str(path), lines=50_000))
    async with app.run_test(size=(160, 50)) as pilot:
        pane = app.query_one("LogPane")
        while not any(want in r for r in screen_rows(pane)[-3:]):
            await pilot.pause(0.01)
        return time.perf_counter() - t0


def open_in_toolong(path: Path) -> float | None:
    tl = OUT / "toolong-venv" / "bin" / "tl"
    if not tl.exists() or not shutil.which("tmux"):
        return None
    want = last_text(path)[:40]
    session = "bench-toolong"
    subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    t0 = time.perf_counter()
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "50", f"{tl} {path}"], check=True)
    try:
        while time.perf_counter() - t0 < 120:
            cap = subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout
            if want[:30] in cap:
                return time.perf_counter() - t0
            time.sleep(0.02)
        return None
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


async def metrics_whole(path: Path, n: int) -> float:
    from test_log_pane import PaneApp

    from cockpit.sources.log_feed import LogFeed

    part = OUT / f"bench_metrics_{n}.log"
    with path.open("rb") as src, part.open("wb") as dst:
        for _, line in zip(range(n), src):
            dst.write(line)
    t0 = time.perf_counter()
    app = PaneApp(LogFeed.local(str(part), from_start=True))
    async with app.run_test(size=(160, 50)) as pilot:
        pane = app.query_one("LogPane")
        while not (pane.buffer.total >= n and pane.metrics_idle and pane.metrics.lines >= n):
            await pilot.pause(0.05)
        return time.perf_counter() - t0


async def key_latency(path: Path, rate: int = 20_000, seconds: float = 8.0) -> dict:
    from test_log_pane import PaneApp

    from cockpit.sources.log_feed import LogFeed

    with path.open("rb") as f:
        pool = [next(f) for _ in range(20_000)]
    live = OUT / "bench_live.log"
    live.write_bytes(b"")
    stop = threading.Event()

    def writer() -> None:
        with live.open("ab", buffering=0) as out:
            k, t = 0, time.perf_counter()
            while not stop.is_set():
                out.write(b"".join(pool[(k + i) % len(pool)] for i in range(rate // 50)))
                k += rate // 50
                t += 0.02
                time.sleep(max(0.0, t - time.perf_counter()))

    app = PaneApp(LogFeed.local(str(live), lines=0))
    lat: list[float] = []
    async with app.run_test(size=(160, 50)) as pilot:
        pane = app.query_one("LogPane")
        th = threading.Thread(target=writer, daemon=True)
        th.start()
        await pilot.pause(1.0)
        from textual import events

        view = pane.view
        drawn: list[float] = []
        original = view.render_line

        def render_line(y: int):  # the first line drawn after the toggle = on screen
            if y == 0 and pending:
                drawn.append(time.perf_counter())
                pending.clear()
            return original(y)

        view.render_line = render_line  # type: ignore[method-assign]
        pending: list[bool] = []
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            before = pane.view_state.hide_batches
            drawn.clear()
            t0 = time.perf_counter()
            app.post_message(events.Key("b", "b"))  # as the terminal driver delivers a key
            while pane.view_state.hide_batches == before:
                await asyncio.sleep(0.0005)
            pending.append(True)
            while not drawn:
                await asyncio.sleep(0.0005)
            lat.append((drawn[0] - t0) * 1000)
            await asyncio.sleep(0.1)
        stop.set()
        got = pane.buffer.total
    lat.sort()
    return {"samples": len(lat), "p50_ms": round(statistics.median(lat), 1),
            "p99_ms": round(lat[min(len(lat) - 1, int(len(lat) * 0.99))], 1),
            "max_ms": round(lat[-1], 1), "lines_received": got}


RSS_CHILD = r'''
import asyncio, resource, sys
sys.path[:0] = sys.argv[3:]
from test_log_pane import PaneApp
from cockpit.parse.sglang_log import parse_text
from cockpit.sources.log_feed import LogBatch
n = int(sys.argv[1])
with open(sys.argv[2], "rb") as f:
    events = parse_text(b"".join(next(f) for _ in range(5000)))
async def main():
    app = PaneApp()
    async with app.run_test(size=(160, 50)) as pilot:
        pane = app.query_one("LogPane")
        fed = 0
        while fed < n:
            pane.feed(LogBatch(events)); fed += len(events)
            await pilot.pause()
        print(pane.buffer.total, len(pane.buffer), pane.metrics.skipped)
asyncio.run(main())
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
'''


def peak_rss(path: Path, n: int) -> dict:
    paths = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "ui")]
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", RSS_CHILD, str(n), str(path), *paths],
                         capture_output=True, text=True, check=True).stdout.split()
    return {"lines": n, "kept": int(out[1]), "metrics_skipped": int(out[2]),
            "peak_rss_mb": round(int(out[3]) / 1024, 1), "seconds": round(time.perf_counter() - t0, 1)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--metrics-lines", type=int, default=100_000)
    ap.add_argument("--skip-toolong", action="store_true")
    ap.add_argument("--rss", default="1000000,10000000")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    log = build(args.lines)
    res: dict = {"lines": args.lines, "bytes": log.stat().st_size, "cpus": 2, "note": "shared, loaded machine"}
    def step(key: str, value: object) -> None:  # print and save as we go: a slow box may time out
        res[key] = value
        print(f"  {key}: {value}", flush=True)
        (OUT / "log_pane.json").write_text(json.dumps(res, indent=2) + "\n")

    step("open_pane_s", round(asyncio.run(open_in_pane(log)), 2))
    t = None if args.skip_toolong else open_in_toolong(log)
    step("open_toolong_s", None if t is None else round(t, 2))
    m = asyncio.run(metrics_whole(log, args.metrics_lines))
    res["metrics_lines"] = args.metrics_lines
    step("metrics_s", round(m, 2))
    step("metrics_whole_file_est_s", round(m * args.lines / args.metrics_lines, 1))
    step("key_latency", asyncio.run(key_latency(log)))
    res["rss"] = []
    for n in (int(x) for x in args.rss.split(",") if x):
        res["rss"].append(peak_rss(log, n))
        step("rss", res["rss"])
    print(f"{res['lines']:,} lines, {res['bytes'] / 1e6:.0f} MB (2 shared cores: noisy)")
    rows = [
        ("(a) open, last line on screen: pane", f"{res['open_pane_s']} s"),
        ("(a) open, last line on screen: toolong", f"{res['open_toolong_s']} s"),
        (f"(b) metrics over {args.metrics_lines:,} lines", f"{res['metrics_s']} s"),
        ("(b) ... scaled to the whole file", f"{res['metrics_whole_file_est_s']} s"),
        ("(c) key->screen at 20k lines/s p50 / p99",
         f"{res['key_latency']['p50_ms']} / {res['key_latency']['p99_ms']} ms"),
        *((f"(d) peak RSS after {r['lines']:,} lines", f"{r['peak_rss_mb']} MB (kept {r['kept']:,})")
          for r in res["rss"]),
    ]
    for name, value in rows:
        print(f"{name:<46} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
