"""Time to first frame of `cockpit --demo`, and until the panes are alive, in tmux.

    .venv/bin/python benchmarks/bench_demo.py [--runs 5]

Starts the real program in a private tmux server at 120x40 and polls `capture-pane`
every 10 ms: first frame = the header with DEMO is on screen; alive = decode metrics and
eight GPU rows are. Baseline in the same run: a bare `python -c "import textual"`
start. Goal: first frame under 1 s. Prints a table, writes benchmarks/out/demo.json.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out"
GPU_ROW = re.compile(r"│([0-7]) [^│]*?\d+%\s+\d{2,3}/600 ?W")


def _tmux(socket: str, *args: str) -> str:
    return subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True).stdout


def one_run(program: str) -> tuple[float, float]:
    socket = f"bench-demo-{uuid.uuid4().hex[:6]}"
    with tempfile.TemporaryDirectory() as state:
        start = time.perf_counter()
        _tmux(socket, "new-session", "-d", "-x", "120", "-y", "40", "-e", f"XDG_STATE_HOME={state}",
              f"{program} --demo")
        first = alive = None
        deadline = start + 60
        while time.perf_counter() < deadline:
            screen = _tmux(socket, "capture-pane", "-p")
            now = time.perf_counter() - start
            if first is None and "DEMO" in screen:
                first = now
            if first is not None and "gen tok/s" in screen and "Decode batch" in screen \
                    and len(set(GPU_ROW.findall(screen))) == 8:
                alive = now
                break
            time.sleep(0.01)
        _tmux(socket, "send-keys", "q")
        time.sleep(0.5)
        _tmux(socket, "kill-server")
    return first or float("nan"), alive or float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    cockpit = Path(sys.executable).with_name("cockpit")
    program = str(cockpit) if cockpit.exists() else f"{sys.executable} -m cockpit"
    baseline = []
    for _ in range(args.runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import textual.app"], check=True)
        baseline.append(time.perf_counter() - t)
    firsts, alives = zip(*(one_run(program) for _ in range(args.runs)), strict=True)
    result = {
        "runs": args.runs,
        "python_import_textual_s": round(statistics.median(baseline), 3),
        "first_frame_s": round(statistics.median(firsts), 3),
        "alive_s": round(statistics.median(alives), 3),
        "first_frame_all_s": [round(x, 3) for x in firsts],
        "goal_first_frame_s": 1.0,
    }
    print(f"{'measure (median of %d)' % args.runs:40} {'seconds':>8}")
    print(f"{'baseline: python -c import textual.app':40} {result['python_import_textual_s']:8.3f}")
    print(f"{'demo: first frame (goal < 1 s)':40} {result['first_frame_s']:8.3f}")
    print(f"{'demo: decode metrics + 8 GPU rows':40} {result['alive_s']:8.3f}")
    OUT.mkdir(exist_ok=True)
    (OUT / "demo.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
