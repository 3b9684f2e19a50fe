"""Benchmark `cockpit parse-log FILE --json` against `grep -c 'Decode batch' FILE`.

Builds a 1M-line log in a real serving mix from the corpus lines (decode and prefill batch
lines, access lines, and every other corpus line as the rest), then times, each as a
subprocess, median of N runs, interleaved (one run of each command per round, so machine
load hits them alike): grep, `cockpit parse-log --json`, the summary engine alone (python
start + `cockpit.parse.log_summary` import + summary, no CLI), python start + CLI import,
and a naive per-line regex loop. Ratios are to grep's median of the same run.
Writes benchmarks/out/parse_log.json.  Usage: python benchmarks/bench_parse_log.py [--lines N] [--runs N]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
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


ENGINE = ("import sys, json; from cockpit.parse.log_summary import summarize_stream; "
          "print(json.dumps(summarize_stream(open(sys.argv[1], 'rb'))))")


def timed_rounds(cmds: dict[str, list[str]], runs: int,
                 env: dict[str, dict[str, str]] | None = None) -> tuple[dict[str, float], dict[str, str]]:
    """Median wall time of each command over `runs` rounds; each round runs every command
    once. `env` adds variables to some commands' environment."""
    times: dict[str, list[float]] = {name: [] for name in cmds}
    outs: dict[str, str] = {}
    base = dict(os.environ)
    for _ in range(runs):
        for name, cmd in cmds.items():
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, check=True, cwd=ROOT,
                                  env={**base, **(env or {}).get(name, {})})
            times[name].append(time.perf_counter() - t0)
            outs[name] = proc.stdout.decode()
    return {name: statistics.median(ts) for name, ts in times.items()}, outs


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

    py = sys.executable
    # An installed package has its bytecode compiled (pip does it); a sandbox with
    # PYTHONDONTWRITEBYTECODE would otherwise compile every module on every run.
    compileall.compile_dir(ROOT / "cockpit", quiet=1)
    cmds = {
        "grep": ["grep", "-c", "Decode batch", str(log)],
        "parse_log": [py, "-m", "cockpit", "parse-log", str(log), "--json"],
        "parse_log_sre": [py, "-m", "cockpit", "parse-log", str(log), "--json"],
        "engine": [py, "-c", ENGINE, str(log)],
        "cli_import": [py, "-c", "import cockpit.cli as c; c.build_parser()"],
        "naive": [py, str(naive_py), str(log)],
    }
    from cockpit.parse import log_summary_hs

    engine = "hyperscan" if log_summary_hs.available() else "sre (no hyperscan wheel here)"
    med, outs = timed_rounds(cmds, args.runs, env={"parse_log_sre": {"COCKPIT_SCAN_ENGINE": "sre"}})
    summary = json.loads(outs["parse_log"])
    assert summary == json.loads(outs["engine"]) == json.loads(outs["parse_log_sre"])
    assert summary["decode_lines"] == int(outs["grep"]), (summary["decode_lines"], outs["grep"])
    grep_s = med["grep"]

    result = {
        "lines": args.lines,
        "bytes": log.stat().st_size,
        "runs": args.runs,
        "grep_s": round(grep_s, 4),
        "cockpit_parse_log_s": round(med["parse_log"], 4),
        "ratio_cockpit_to_grep": round(med["parse_log"] / grep_s, 2),
        "scan_engine": engine,
        "cockpit_parse_log_sre_only_s": round(med["parse_log_sre"], 4),
        "ratio_sre_only_to_grep": round(med["parse_log_sre"] / grep_s, 2),
        "summary_engine_s": round(med["engine"], 4),
        "ratio_engine_to_grep": round(med["engine"] / grep_s, 2),
        "python_start_and_cli_import_s": round(med["cli_import"], 4),
        "naive_per_line_regex_s": round(med["naive"], 4),
        "ratio_naive_to_grep": round(med["naive"] / grep_s, 2),
        "decode_lines": summary["decode_lines"],
    }
    (OUT / "parse_log.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"{args.lines:,} lines, {result['bytes'] / 1e6:.1f} MB, median of {args.runs} interleaved rounds; "
          f"scan engine: {engine}")
    print(f"{'command':<46} {'seconds':>8} {'x grep':>7}")
    for name, key in (("grep -c 'Decode batch'", "grep"),
                      ("cockpit parse-log --json", "parse_log"),
                      ("  the same with the sre passes only", "parse_log_sre"),
                      ("  summary engine alone (python + summary)", "engine"),
                      ("  python start + CLI import (build_parser)", "cli_import"),
                      ("naive per-line regex loop", "naive")):
        print(f"{name:<46} {med[key]:>8.3f} {med[key] / grep_s:>7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
