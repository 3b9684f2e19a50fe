"""Benchmark the one sanitizer against a reference commit: `sanitize` per line (clean,
tabbed, dirty, 10,000 characters) and the log pane's buffer (`LogBuffer.add_events`, the
per-line path the log pane runs on every batch) on a synthetic serving log.

    python benchmarks/bench_sanitize.py [--ref GITREF] [--lines N] [--runs N]

GITREF (default: the merge base with main) is exported with `git archive` and measured in
its own process, the working tree in another, alternately, --runs rounds; medians are
reported. Writes benchmarks/out/sanitize.json. The machine is 2 shared cores: noisy.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"

MEASURE = r'''
import json, random, sys, timeit
import cockpit
from cockpit.ground.sanitize import sanitize
from cockpit.parse.log.sglang_log import parse_text
from cockpit.ui.widgets.log.buffer import LogBuffer

n = int(sys.argv[1])
clean = ("[2026-11-28 21:00:00 DP0 TP0] Decode batch. #running-req: 64, #token: 123456, token usage: 0.41, "
         "cuda graph: True, gen throughput (token/s): 1234.56, #queue-req: 0")
cases = {"clean line": clean, "line with a tab": clean + "\tx", "dirty line (ESC)": clean + "\x1b]0;x\x07",
         "10k clean": clean * 70, "10k dirty": (clean + "\u202e") * 70}
out = {}
for label, text in cases.items():
    number = 2000 if "10k" in label else 100000
    out[label + " (ns)"] = min(timeit.repeat(lambda: sanitize(text), number=number, repeat=5)) / number * 1e9
rng = random.Random(7)
lines = []
for i in range(n):
    r = rng.random()
    if r < 0.7:
        line = clean.replace("1234.56", f"{rng.uniform(500, 3000):.2f}")
    elif r < 0.9:
        line = f"[2026-11-28 21:00:00 TP0] Prefill batch. #new-seq: 1, #new-token: {rng.randint(1, 8192)}, #cached-token: 0"
    elif r < 0.999:
        line = f'[2026-11-28 21:00:00] INFO:     127.0.0.1:{rng.randint(1000, 65000)} - "POST /generate HTTP/1.1" 200 OK'
    else:
        line = "[2026-11-28 21:00:00] odd \x1b[2J line \u202e"
    lines.append(line)
events = list(parse_text(("\n".join(lines) + "\n").encode()))
batches = [events[i:i + 5000] for i in range(0, len(events), 5000)]
def run():
    buf = LogBuffer(50_000)
    for b in batches:
        buf.add_events(b)
best = min(timeit.repeat(run, number=1, repeat=3))
out["LogBuffer.add_events (lines/s)"] = len(events) / best
print(json.dumps(out))
print(cockpit.__file__, file=sys.stderr)
'''


def export(ref: str, into: Path) -> Path:
    data = subprocess.run(["git", "archive", ref, "cockpit"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def measure(tree: Path, lines: int) -> dict[str, float]:
    # cwd too: `python -c` puts the current directory first on sys.path.
    done = subprocess.run([sys.executable, "-c", MEASURE, str(lines)], capture_output=True, text=True, cwd=tree,
                          env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"}, check=True)
    assert done.stderr.strip().startswith(str(tree)), done.stderr  # measured the tree asked for
    return json.loads(done.stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", default=None, help="reference commit (default: merge base with main)")
    ap.add_argument("--lines", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    ref = args.ref or subprocess.run(["git", "merge-base", "HEAD", "main"], cwd=ROOT, capture_output=True,
                                     text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        old_tree = export(ref, Path(tmp))
        rounds: dict[str, list[dict[str, float]]] = {"ref": [], "now": []}
        for _ in range(args.runs):
            rounds["ref"].append(measure(old_tree, args.lines))
            rounds["now"].append(measure(ROOT, args.lines))
    keys = list(rounds["now"][0])
    med = {side: {k: statistics.median(r[k] for r in rs) for k in keys} for side, rs in rounds.items()}
    print(f"ref {ref[:10]} vs working tree; medians of {args.runs} rounds, {args.lines} log lines\n")
    print("| measure | ref | now | now/ref |\n| --- | ---: | ---: | ---: |")
    for k in keys:
        a, b = med["ref"][k], med["now"][k]
        print(f"| {k} | {a:,.0f} | {b:,.0f} | {b / a:.2f} |")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "sanitize.json").write_text(json.dumps({"ref": ref, "lines": args.lines, "runs": args.runs,
                                                   "median": med, "rounds": rounds}, indent=1))


if __name__ == "__main__":
    main()
