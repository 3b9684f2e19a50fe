"""Diagnosis of a large /metrics page (issue 34: 31 MB, 700,000 series took 24-30 s and 640
MB): before (the whole page parsed by prometheus-client, as `cockpit diagnose` did) and
after (the page read line by line keeping only the families the rules read), each in a
fresh child process: wall time and peak RSS (the child's ru_maxrss).

    .venv/bin/python benchmarks/bench_large_metrics.py [--series 700000] [--runs 3]

Goal: after <= 5 s and <= 200 MB. Prints a table and writes benchmarks/out/large_metrics.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
sys.path.insert(0, str(ROOT / "tests"))

from large_metrics_page import large_page  # noqa: E402

# each mode: read and parse the page into the diagnosis's ServerScrape (what `inputs_from_files` did / does)
MODES = {
    "before: whole page": ("from pathlib import Path; import sys\n"
                           "from cockpit.live.diagnosis.load import _text, scrape_from_text\n"
                           "p = Path(sys.argv[1]); s = scrape_from_text(_text(p), str(p))\n"
                           "print(s.gauges['num_running_reqs'])"),
    "after: streamed": ("from pathlib import Path; import sys\n"
                        "from cockpit.live.diagnosis.load import scrape_from_file\n"
                        "s = scrape_from_file(Path(sys.argv[1]))\n"
                        "print(s.gauges['num_running_reqs'])"),
    "after: cockpit diagnose": None,  # the whole command, session load and rules included
    "python + imports only": ("import cockpit.live.diagnosis.load, cockpit.live.diagnosis.engine\nprint(20.0)"),
}


def run_child(argv: list[str]) -> tuple[float, float, str]:
    """(wall s, peak RSS MB, stdout) of one child process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    out = proc.stdout.read().decode() if proc.stdout else ""
    err = proc.stderr.read().decode() if proc.stderr else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[:3]} failed ({proc.returncode}): {err[-2000:]}")
    return wall, usage.ru_maxrss / 1024, out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--series", type=int, default=700_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "metrics.txt"
        page.write_text(large_page(args.series), encoding="utf-8")
        session = Path(tmp) / "s.toml"
        session.write_text('schema_version = 1\ntitle = "large page"\n', encoding="utf-8")
        size_mb = page.stat().st_size / 1e6
        for mode, code in MODES.items():
            argv = ([sys.executable, "-m", "cockpit", "diagnose", str(session), "--metrics", str(page), "--json"]
                    if code is None else [sys.executable, "-c", code, str(page)])
            walls, peaks = [], []
            for _ in range(args.runs):
                wall, peak, out = run_child(argv)
                walls.append(wall)
                peaks.append(peak)
            rows.append({"mode": mode, "wall_s_median": statistics.median(walls), "wall_s": walls,
                         "peak_rss_mb_max": max(peaks), "peak_rss_mb": peaks, "output": out.strip()[:60]})
    print(f"page: {size_mb:.1f} MB, {args.series:,} unread series + the 0.5 fixture's; "
          f"{args.runs} runs each, fresh process per run")
    print(f"{'mode':<26} {'wall s (median)':>16} {'peak RSS MB (max)':>18}")
    for r in rows:
        print(f"{r['mode']:<26} {r['wall_s_median']:>16.2f} {r['peak_rss_mb_max']:>18.0f}")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "large_metrics.json").write_text(json.dumps(
        {"page_mb": size_mb, "series": args.series, "runs": args.runs, "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
