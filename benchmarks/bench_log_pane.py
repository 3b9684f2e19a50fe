"""Benchmark the log pane: open a 1M-line log (vs toolong), whole-file metrics, key latency
under 20k lines/s, peak RSS after 1M and 10M lines.  A script, not a test.

    python benchmarks/bench_log_pane.py [--lines N] [--runs N] [--skip-toolong] [--metrics-lines N]
                                        [--rss N,...] [--only micro,open,metrics,key,rss]

(µ) parse (LogParser) and fold (LogMetrics.apply_all, 5000-event batches) cost per line, on
    the bench file (random timestamps: every batch line its own series point, the worst
    case) and on the same lines with monotone timestamps (5k lines/s, as a busy server).
(a) every program started the same way, in a fresh tmux session at 160x50, timed until the
    file's last line is on its screen (capture-pane polled): `cockpit log FILE` (the pane
    alone), `tl FILE` (toolong 1.5.0, installed into benchmarks/out/toolong-venv on first
    run), and for reference the
    whole cockpit on a session whose host log is FILE. Process start and imports count.
    Medians of --runs rounds, one run of each per round.
(b) `cockpit log FILE` in tmux at 250 columns, until "whole log:" (the file's figures:
    its beginning scanned at C speed in a child process, its last lines folded) shows.
    Also (b2) the live path's rate: the pane fed --metrics-lines from the first byte,
    until every event is folded, scaled to the file.
(c) a writer process appends 20k lines/s (monotone stamps, now) to a file tailed by
    LogFeed into `cockpit log`'s app, then into the whole cockpit (main screen, focus on
    the log pane); a `b` key event posted every 100 ms as the driver would; time until the
    view draws its first row in the toggled state, p50/p99.
(d) a subprocess pushes N lines through LogPane.feed (5000-line LogLines, re-used:
    parsing and folding are the pipeline child's cost, not the pane's) and reports ru_maxrss.
Writes benchmarks/out/log_pane.json.  The machine is 2 shared cores: numbers are noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
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


def monotone(path: Path, rate: int = 5000) -> Path:
    """The same lines, their record stamps rewritten to a clock that moves on by 1 s every
    `rate` lines (a real log's stamps never jump about like the bench mix's)."""
    import re

    out = OUT / f"{path.stem}_monotone.log"
    if out.exists():
        return out
    ts = re.compile(rb"\[(?:\d{4}-\d{2}-\d{2} |\d{2}-\d{2} )?\d{2}:\d{2}:\d{2}(?:[.,]\d{1,6})?")
    with path.open("rb") as f, out.open("wb") as dst:
        buf: list[bytes] = []
        for i, line in enumerate(f):
            stamp = b"[" + time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(1767225600 + i // rate)).encode()
            buf.append(ts.sub(lambda _m, stamp=stamp: stamp, line, count=1))
            if len(buf) >= 100_000:
                dst.write(b"".join(buf))
                buf = []
        dst.write(b"".join(buf))
    return out


def micro(path: Path, n: int = 100_000) -> dict:
    """µs per line: parse, fold (median of 3)."""
    from cockpit.live.log.metrics import LogMetrics
    from cockpit.parse.log.sglang_log import LogParser

    with path.open("rb") as f:
        data = b"".join(next(f) for _ in range(n))
    runs = []
    for _ in range(3):
        t0 = time.perf_counter()
        parser = LogParser()
        events = []
        for i in range(0, len(data), 1 << 18):
            events += parser.feed(data[i:i + (1 << 18)])
        events += parser.end()
        t1 = time.perf_counter()
        metrics = LogMetrics()
        for i in range(0, len(events), 5000):
            metrics.apply_all(events[i:i + 5000])
        runs.append(((t1 - t0) / n * 1e6, (time.perf_counter() - t1) / n * 1e6))
    return {"parse_us": round(statistics.median(r[0] for r in runs), 2),
            "fold_us": round(statistics.median(r[1] for r in runs), 2)}


def last_text(path: Path) -> str:
    with path.open("rb") as f:
        f.seek(max(0, path.stat().st_size - 4096))
        return f.read().decode("utf-8", "replace").rstrip("\n").rsplit("\n", 1)[-1]


def in_tmux(command: str, want: str, size: tuple[int, int] = (160, 50), limit_s: float = 60.0) -> float | None:
    """Seconds from starting `command` in a fresh tmux session until `want` is on its
    screen (capture-pane polled every 20 ms): what a person at that terminal would see.
    Every program is timed this way, process start and imports included."""
    session = "bench-open"
    subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    t0 = time.perf_counter()
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", str(size[0]), "-y", str(size[1]), command],
                   check=True)
    try:
        while time.perf_counter() - t0 < limit_s:
            cap = subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout
            if want in cap:
                return time.perf_counter() - t0
            time.sleep(0.02)
        return None
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def cockpit_bin() -> str:
    return str(Path(sys.executable).with_name("cockpit"))


def session_for(path: Path) -> Path:
    """A session whose one host's log is `path` (a local file): the full cockpit on it."""
    toml = OUT / "bench_open_session.toml"
    toml.write_text(f'''schema_version = 1
title = "open benchmark"

[goal]
summary = "open a big log"

[[hosts]]
name = "local"
log_path = "{path}"
gpu_source = "none"
''', encoding="utf-8")
    return toml


def toolong() -> Path | None:
    """`tl` from its own venv (benchmarks/out/toolong-venv), made on first use: toolong
    pins an older Textual than cockpit's. None when it cannot be installed."""
    venv = OUT / "toolong-venv"
    tl = venv / "bin" / "tl"
    if not tl.exists():
        log = OUT / "toolong-install.log"
        with log.open("w") as out:
            ok = subprocess.run([sys.executable, "-m", "venv", str(venv)], stdout=out, stderr=out).returncode == 0 \
                and subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "toolong==1.5.0"],
                                   stdout=out, stderr=out).returncode == 0
        if not ok:
            print(f"  toolong not installed (see {log})")
            return None
    return tl


def open_times(path: Path, runs: int, skip_toolong: bool) -> dict:
    """Medians of `runs` rounds, each round one run of each program (load hits them alike)."""
    want = last_text(path)[:30]
    tl = None if skip_toolong else toolong()
    progs = {"log": f"{cockpit_bin()} log {path}", "session": f"{cockpit_bin()} {session_for(path)}"}
    if tl is not None:
        progs["toolong"] = f"{tl} {path}"
    times: dict[str, list[float]] = {name: [] for name in progs}
    for _ in range(runs):
        for name, cmd in progs.items():
            t = in_tmux(cmd, want)
            if t is not None:
                times[name].append(t)
    out = {name: round(statistics.median(v), 2) if v else None for name, v in times.items()}
    out["runs"] = runs
    return out


def open_metrics(path: Path) -> float | None:
    """`cockpit log FILE` at 250 columns: until the whole file's figures are on screen."""
    return in_tmux(f"{cockpit_bin()} log {path}", "whole log:", size=(250, 50))


async def metrics_whole(path: Path, n: int) -> float:
    from test_log_pane import PaneApp

    from cockpit.sources.log.feed import LogFeed

    part = OUT / f"bench_metrics_{n}.log"
    with path.open("rb") as src, part.open("wb") as dst:
        for _, line in zip(range(n), src):
            dst.write(line)
    t0 = time.perf_counter()
    app = PaneApp(LogFeed.local(str(part), from_start=True))
    async with app.run_test(size=(160, 50)) as pilot:
        pane = app.query_one("LogPane")
        while not (pane.buffer.total >= n and pane.metrics.lines >= n):
            await pilot.pause(0.05)
        return time.perf_counter() - t0


WRITER = r'''
import sys, time
src, live, rate = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(src, "rb") as f:
    pool = [next(f) for _ in range(20_000)]
stamped = [line.startswith(b"[20") and line[20:21] in (b"]", b" ") for line in pool]
with open(live, "ab", buffering=0) as out:  # the pool's lines, stamped now: a live log's order
    k, t = 0, time.perf_counter()
    while True:
        now = time.strftime("[%Y-%m-%d %H:%M:%S", time.gmtime()).encode()
        out.write(b"".join(now + pool[j][20:] if stamped[j] else pool[j]
                           for j in ((k + i) % len(pool) for i in range(rate // 50))))
        k += rate // 50
        t += 0.02
        time.sleep(max(0.0, t - time.perf_counter()))
'''


def pane_app(live: Path):  # noqa: ANN201
    """`cockpit log`'s app on the live file."""
    from cockpit.sources.log.feed import LogFeed
    from cockpit.ui.log_app import LogApp

    return LogApp(LogFeed.local(str(live), lines=0)), ()


def whole_app(live: Path):  # noqa: ANN201
    """The whole cockpit (board, log pane, GPU pane) on a session whose host log is the
    live file; `w` puts the focus on the log pane."""
    from cockpit.sources.session_feeds import sources_for_session
    from cockpit.store.toml_store import load_session
    from cockpit.ui.app import CockpitApp

    toml = session_for(live)
    session = load_session(toml)
    return CockpitApp(session, toml, sources=sources_for_session(session), watch_interval_s=None), ("w",)


async def key_latency(path: Path, rate: int = 20_000, seconds: float = 20.0, make=pane_app) -> dict:  # noqa: ANN001
    live = OUT / "bench_live.log"
    live.write_bytes(b"")
    # The writer is another process, as SGLang is: its work must not share our GIL.
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(live), str(rate)])
    app, focus_keys = make(live)
    lat: list[float] = []
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause(1.0)
        await pilot.press(*focus_keys)
        pane = app.query_one("LogPane")
        from textual import events

        view = pane.view
        original = view.render_line
        want: list[bool] = []  # the hide_batches state a sample waits to see drawn
        drawn = asyncio.Event()
        stamp: list[float] = []

        def render_line(y: int):  # the first line drawn in the toggled state = on screen
            if want and y == 0 and pane._state.hide_batches == want[0]:
                stamp.append(time.perf_counter())
                want.clear()
                drawn.set()
            return original(y)

        view.render_line = render_line  # type: ignore[method-assign]
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:  # no polling: the loop is as idle as a user's
            drawn.clear()
            stamp.clear()
            want.append(not pane._state.hide_batches)
            t0 = time.perf_counter()
            app.post_message(events.Key("b", "b"))  # as the terminal driver delivers a key
            await drawn.wait()
            lat.append((stamp[0] - t0) * 1000)
            await asyncio.sleep(0.1)
        writer.kill()
        writer.wait()
        got = pane.buffer.total
    lat.sort()
    return {"samples": len(lat), "p50_ms": round(statistics.median(lat), 1),
            "p99_ms": round(lat[min(len(lat) - 1, int(len(lat) * 0.99))], 1),
            "max_ms": round(lat[-1], 1), "lines_received": got}


RSS_CHILD = r'''
import asyncio, resource, sys
sys.path[:0] = sys.argv[3:]
from test_log_pane import PaneApp
from cockpit.live.log.items import lines_of
from cockpit.parse.log.sglang_log import parse_text
n = int(sys.argv[1])
with open(sys.argv[2], "rb") as f:
    events = parse_text(b"".join(next(f) for _ in range(5000)))
rows = lines_of(events)  # the pipeline's display rows (parsed and folded in its child)
async def main():
    app = PaneApp()
    async with app.run_test(size=(160, 50)) as pilot:
        pane = app.query_one("LogPane")
        fed = 0
        while fed < n:
            pane.feed(rows); fed += len(events)
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


GOALS = {
    "micro": "(diagnostic, no goal)",
    "open": "< half of toolong's",
    "metrics": "< 2 s",
    "key": "p99 < 50 ms",
    "rss": "flat, < 200 MB",
}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--metrics-lines", type=int, default=100_000)
    ap.add_argument("--skip-toolong", action="store_true")
    ap.add_argument("--runs", type=int, default=5, help="rounds of the open timings (medians)")
    ap.add_argument("--rss", default="1000000", help="comma-separated line counts (10000000 takes minutes)")
    ap.add_argument("--only", default="micro,open,metrics,key,rss", help="which parts to run")
    args = ap.parse_args()
    only = set(args.only.split(","))
    OUT.mkdir(parents=True, exist_ok=True)
    log = build(args.lines)
    mono = monotone(log)
    path = OUT / "log_pane.json"
    res: dict = json.loads(path.read_text()) if path.exists() else {}
    res.update({"lines": args.lines, "bytes": log.stat().st_size, "cpus": os.cpu_count(),
                "note": "2 shared cores, loaded: noisy; compare ratios"})

    def step(key: str, value: object) -> None:  # print and save as we go: a slow box may time out
        res[key] = value
        print(f"  {key}: {value}", flush=True)
        path.write_text(json.dumps(res, indent=2) + "\n")

    if "micro" in only:
        step("micro_bench_file", micro(log))
        step("micro_monotone", micro(mono))
    if "open" in only:
        times = open_times(log, args.runs, args.skip_toolong)
        step("open_log_s", times.get("log"))
        step("open_session_s", times.get("session"))
        step("open_toolong_s", times.get("toolong"))
        if times.get("log") and times.get("toolong"):
            step("open_ratio", round(times["log"] / times["toolong"], 2))
    if "metrics" in only:
        m = [t for t in (open_metrics(log) for _ in range(args.runs)) if t is not None]
        step("open_metrics_s", round(statistics.median(m), 2) if m else None)
        m = asyncio.run(metrics_whole(mono, args.metrics_lines))
        res["metrics_lines"] = args.metrics_lines
        step("metrics_s", round(m, 2))
        step("metrics_whole_file_est_s", round(m * args.lines / args.metrics_lines, 1))
    if "key" in only:
        step("key_latency", asyncio.run(key_latency(mono)))
        step("key_latency_whole_app", asyncio.run(key_latency(mono, make=whole_app)))
    if "rss" in only:
        res["rss"] = []
        for n in (int(x) for x in args.rss.split(",") if x):
            res["rss"].append(peak_rss(log, n))
            step("rss", res["rss"])
    g = res.get
    mb, mm = g("micro_bench_file") or {}, g("micro_monotone") or {}
    key = g("key_latency") or {}
    keyw = g("key_latency_whole_app") or {}
    rows = [
        ("(µ) parse + fold, µs/line, bench mix", f"{mb.get('parse_us')} + {mb.get('fold_us')}", GOALS["micro"]),
        ("(µ) parse + fold, µs/line, monotone stamps", f"{mm.get('parse_us')} + {mm.get('fold_us')}", GOALS["micro"]),
        ("(a) `cockpit log FILE`, last line on screen", f"{g('open_log_s')} s ({g('open_ratio')}x toolong)",
         GOALS["open"]),
        ("(a) `tl FILE` (toolong), last line on screen", f"{g('open_toolong_s')} s", ""),
        ("(a) `cockpit SESSION` (whole app), last line", f"{g('open_session_s')} s", "(for reference)"),
        ("(b) `cockpit log FILE`, whole-file figures shown", f"{g('open_metrics_s')} s", GOALS["metrics"]),
        (f"(b2) live fold of {g('metrics_lines') or 0:,} lines, scaled to the file",
         f"{g('metrics_whole_file_est_s')} s", "(the per-line path)"),
        ("(c) key->screen at 20k lines/s p50 / p99",
         f"{key.get('p50_ms')} / {key.get('p99_ms')} ms ({key.get('lines_received', 0):,} lines in)", GOALS["key"]),
        ("(c) the same in the whole cockpit (main screen)",
         f"{keyw.get('p50_ms')} / {keyw.get('p99_ms')} ms ({keyw.get('lines_received', 0):,} lines in)", GOALS["key"]),
        *((f"(d) peak RSS after {r['lines']:,} lines", f"{r['peak_rss_mb']} MB (kept {r['kept']:,})", GOALS["rss"])
          for r in g("rss") or []),
    ]
    print(f"{res['lines']:,} lines, {res['bytes'] / 1e6:.0f} MB (2 shared cores: noisy)")
    print(f"{'':<48} {'result':<34} goal")
    for name, value, goal in rows:
        print(f"{name:<48} {value:<34} {goal}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
