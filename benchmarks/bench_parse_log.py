"""Benchmark `cockpit parse-log FILE --json` against `grep -c 'Decode batch' FILE`.

Builds a 1M-line log in a real serving mix from the corpus lines (decode and prefill batch
lines, access lines, and every other corpus line as the rest), then times, each as a
subprocess, median of N runs: grep, cockpit parse-log, and a naive per-line regex loop.
Writes benchmarks/out/parse_log.json.  Usage: python benchmarks/bench_parse_log.py [--lines N] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "sglang-logs"
OUT = ROOT / "benchmarks" / "out"

NAIVE = r'''
import re, sys, json
dec = re.compile(r"Decode batch[.,].*?gen throughput \(token/s\): ([\d.]+)")
run = re.compile(r"(?:Decode|Prefill) batch[.,].*?#running-req: (\d+)")
pre = re.compile(r"Prefill batch[.,]")
err = re.compile(r"Traceback \(most recent call last\)|CUDA out of memory|NCCL error")
n_dec = n_pre = 0; gens = []; runs = []; errors = 0
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    for line in f:
        m = dec.search(line)
        if m: n_dec += 1; gens.append(float(m.group(1)))
        if pre.search(line): n_pre += 1
        m = run.search(line)
        if m: runs.append(int(m.group(1)))
        if err.search(line): errors += 1
print(json.dumps([n_dec, n_pre, max(gens, default=None), max(runs, default=None), errors]))
'''


def build_log(path: Path, n_lines: int, seed: int = 7) -> None:
    lines = []
    for log in sorted(CORPUS.glob("*.log")):
        lines += log.read_bytes().splitlines()
    decode = [l for l in lines if b"Decode batch" in l]
    prefill = [l for l in lines if b"Prefill batch" in l]
    access = [l for l in lines if b'HTTP/1.1"' in l]
    # The rest: startup, warnings, NCCL info... but not error or bench lines, which a
    # real serving log has a handful of, not 10%: one real crash is appended instead.
    crash = (CORPUS / "013.log").read_bytes().splitlines()
    noisy = set((CORPUS / "017.log").read_bytes().splitlines()) | set(
        l for log in ("002", "003", "013", "015", "020", "062", "014", "026", "028", "040", "047", "063")
        for l in (CORPUS / f"{log}.log").read_bytes().splitlines())
    other = [l for l in lines if l not in decode and l not in prefill and l not in access
             and l not in noisy]
    rng = random.Random(seed)
    pools = (decode, prefill, access, other)
    weights = (0.45, 0.20, 0.25, 0.10)
    chosen = rng.choices(pools, weights, k=n_lines - len(crash))
    body = [rng.choice(pool) for pool in chosen] + crash
    path.write_bytes(b"\n".join(body) + b"\n")


def timed(cmd: list[str], runs: int) -> tuple[float, str]:
    times, out = [], ""
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, check=True)
        times.append(time.perf_counter() - t0)
        out = proc.stdout.decode()
    return statistics.median(times), out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    log = OUT / f"bench_v2_{args.lines}.log"
    if not log.exists():
        build_log(log, args.lines)
    naive_py = OUT / "naive_parse.py"
    naive_py.write_text(NAIVE)

    grep_s, grep_out = timed(["grep", "-c", "Decode batch", str(log)], args.runs)
    cockpit_s, cockpit_out = timed([sys.executable, "-m", "cockpit", "parse-log", str(log), "--json"], args.runs)
    start_s, _ = timed([sys.executable, "-c", "import cockpit.cli.log_cmds"], args.runs)
    naive_s, _ = timed([sys.executable, str(naive_py), str(log)], max(1, min(3, args.runs)))
    summary = json.loads(cockpit_out)
    assert summary["decode_lines"] == int(grep_out), (summary["decode_lines"], grep_out)

    result = {
        "lines": args.lines,
        "bytes": log.stat().st_size,
        "runs": args.runs,
        "grep_s": round(grep_s, 4),
        "cockpit_parse_log_s": round(cockpit_s, 4),
        "python_startup_and_import_s": round(start_s, 4),
        "naive_per_line_regex_s": round(naive_s, 4),
        "ratio_cockpit_to_grep": round(cockpit_s / grep_s, 2),
        "ratio_naive_to_grep": round(naive_s / grep_s, 2),
        "decode_lines": summary["decode_lines"],
    }
    (OUT / "parse_log.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"{args.lines:,} lines, {result['bytes'] / 1e6:.1f} MB, median of {args.runs}")
    print(f"{'command':<44} {'seconds':>8} {'x grep':>7}")
    for name, secs in (("grep -c 'Decode batch'", grep_s),
                       ("cockpit parse-log --json", cockpit_s),
                       ("  (of which python start + import)", start_s),
                       ("naive per-line regex loop", naive_s)):
        print(f"{name:<44} {secs:>8.3f} {secs / grep_s:>7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
