"""Benchmark `cockpit parse-log FILE --json` against `grep -c 'Decode batch' FILE` on three mixes.

* today: a 1M-line log in a real serving mix from the corpus lines (decode and prefill
  batch lines, access lines, and every other corpus line as the rest);
* decode: decode-dominated, 85 % decode lines of every current shape (docs/sglang-log-format
  §3: DP/EP/PP tags, speculative accept len/rate, hybrid-pool usage fields, PD decode
  queues, graph labels, forward iterations, dictConfig prefixes, millisecond stamps);
* steady: the same shapes where the gen throughput barely changes between lines and
  #running-req sits at its cap (most lines would be "greater than" candidates by their
  integer part).

Each command runs as a subprocess, median of N runs, interleaved (one run of each command
per round, so machine load hits them alike): grep, `cockpit parse-log --json`, the same
with the sre passes only, and for today's mix also the summary engine alone (python start
+ `cockpit.parse.log.summary_scan` import + summary, no CLI), python start + CLI import, and a
naive per-line regex loop. Ratios are to grep's median of the same run.
Writes benchmarks/out/parse_log.json (every mix; parse_log_MIX.json with --mix MIX).
* heldout: written after the engine was tuned, and not tuned on: decode-dominated, the
  newest shapes weighted up, millisecond stamps, gen throughput ramping up with noise, and
  decoy lines holding the needles' common bytes.

Usage: python benchmarks/bench_parse_log.py [--lines N] [--runs N] [--mix today|decode|steady|heldout|all] [--pin 0,1]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "corpus" / "sglang-logs"
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


def _corpus_pools() -> tuple[list[bytes], list[bytes], list[bytes], list[bytes], list[bytes]]:
    """(decode, prefill, access, other, crash) lines of the corpus."""
    lines = []
    for log in sorted(CORPUS.glob("*.log")):
        lines += log.read_bytes().splitlines()
    decode = [ln for ln in lines if b"Decode batch" in ln]
    prefill = [ln for ln in lines if b"Prefill batch" in ln]
    access = [ln for ln in lines if b'HTTP/1.1"' in ln]
    # The rest: startup, warnings, NCCL info... but not error or bench lines, which a
    # real serving log has a handful of, not 10%: one real crash is appended instead.
    crash = (CORPUS / "013.log").read_bytes().splitlines()
    noisy = set((CORPUS / "017.log").read_bytes().splitlines()) | set(
        ln for log in ("002", "003", "013", "015", "020", "062", "014", "026", "028", "040", "047", "063")
        for ln in (CORPUS / f"{log}.log").read_bytes().splitlines())
    other = [ln for ln in lines if ln not in decode and ln not in prefill and ln not in access
             and ln not in noisy]
    return decode, prefill, access, other, crash


def build_log(path: Path, n_lines: int, seed: int = 7) -> None:
    decode, prefill, access, other, crash = _corpus_pools()
    rng = random.Random(seed)
    pools = (decode, prefill, access, other)
    weights = (0.45, 0.20, 0.25, 0.10)
    chosen = rng.choices(pools, weights, k=n_lines - len(crash))
    body = [rng.choice(pool) for pool in chosen] + crash
    path.write_bytes(b"\n".join(body) + b"\n")


# --- the two added mixes: every current decode-line shape (docs/sglang-log-format.md §3) ----

# (weight, template): {ts} timestamp, {tags} rank tags, {r} running, {q} queue, {g} gen
# throughput, {t}/{t2} token counts, {u}/{u2} usage ratios, {a} accept len, {ar} accept rate,
# {it} forward iteration, {x} TFLOPS / bandwidth figures.
DECODE_SHAPES = (
    (1, "[{ts}{tags}] Decode batch. #running-req: {r}, #token: {t}, token usage: {u}, "
        "gen throughput (token/s): {g}, #queue-req: {q}"),  # 0.2.x - 0.4.3
    (2, "[{ts}{tags}] Decode batch. #running-req: {r}, #token: {t}, token usage: {u}, accept len: {a}, "
        "cuda graph: True, gen throughput (token/s): {g}, #queue-req: {q}"),  # 0.4.4 - 0.4.6
    (3, "[{ts}{tags}] Decode batch. #running-req: {r}, #token: {t}, token usage: {u}, accept len: {a}, "
        "accept rate: {ar}, cuda graph: True, gen throughput (token/s): {g}, #queue-req: {q}, "),  # 0.5.3-0.5.4
    (2, "[{ts}{tags}] Decode batch. #running-req: {r}, #token: {t}, token usage: {u}, pre-allocated usage: {u2}, "
        "#retracted-req: 0, cuda graph: True, gen throughput (token/s): {g}, #queue-req: {q}, "),  # PD decode 0.5.1
    (3, "[{ts}{tags}] Decode batch, #running-req: {r}, #full token: {t}, full token usage: {u}, "
        "#swa token: {t2}, swa token usage: {u2}, cuda graph: True, gen throughput (token/s): {g}, "
        "#queue-req: {q}"),  # hybrid sliding window, 0.5.5+
    (3, "[{ts}{tags}] Decode batch, #running-req: {r}, #full token: {t}, full token usage: {u}, "
        "mamba num: {n}, mamba usage: {u2}, accept len: {a}, accept rate: {ar}, cuda graph: True, "
        "gen throughput (token/s): {g}, #queue-req: {q}, est. decode TFLOPS/s (per GPU): {x}, "
        "est. read BW (GB/s per GPU): {x}, est. write BW (GB/s per GPU): {x}"),  # hybrid SSM, 0.5.23
    (2, "[{ts}{tags}] Decode batch, #running-req: {r}, #token: {t}, token usage: {u}, accept len: {a}, "
        "accept rate: {ar}, cap len: {a}, block accept len: {a}, PD decode: pre-allocated usage: {u2}, "
        "#prealloc-req: 0, #transfer-req: 1, #retracted-req: 0, cuda graph: True, "
        "gen throughput (token/s): {g}, #queue-req: {q}"),  # PD decode, speculative, 0.5.23
    (1, "[{ts}{tags}] Decode batch [{it}], #running-req: {r}, #token: {t}, token usage: {u}, "
        "cuda graph: True, gen throughput (token/s): {g}, #queue-req: {q}"),  # SGLANG_LOG_FORWARD_ITERS
    (1, "[{ts}{tags}] Decode batch, #running-req: {r}, #full token: {t}, full token usage: {u}, "
        "#gpu token: {t2}, gpu token usage: {u2}, #cpu token: {t}, cpu token usage: {u}, "
        "npu graph: False, gen throughput (token/s): {g}, #queue-req: {q}"),  # HiSparse, Ascend
    (1, "{date} INFO 31223 [{tags_bare} scheduler_metrics_mixin.py:222] Decode batch. #running-req: {r}, "
        "#token: {t}, token usage: {u}, cuda graph: True, gen throughput (token/s): {g}, "
        "#queue-req: {q}, "),  # SGLANG_LOGGING_CONFIG_PATH
    (1, "[{ts}{tags}] Decode batch. #micro_batch_id: 1, #running-req: {r}, #token: {t}, token usage: {u}, "
        "gen throughput (token/s): {g}, largest-len: 0, #queue-req: {q}, #cache_miss: 1"),  # forks, JAX
)
PREFILL_SHAPES = (
    "[{ts}{tags}] Prefill batch. #new-seq: 1, #new-token: {t}, #cached-token: {t2}, token usage: {u}, "
    "#running-req: {r}, #queue-req: {q}, ",
    "[{ts}{tags}] Prefill batch, #new-seq: 2, #new-token: {t}, #cached-token: {t2}, full token usage: {u}, "
    "swa token usage: {u2}, #running-req: {r}, #queue-req: {q}, #pending-token: {t}, cuda graph: False, "
    "input throughput (token/s): {g}",
)
ACCESS_LINE = '[{ts}] INFO:     10.0.{n}.7:{port} - "POST /v1/chat/completions HTTP/1.1" 200 OK'
RANK_TAGS = ("", " TP0", " DP{d} TP{d}", " DP{d} TP{d} EP{d}", " PP0 TP0", " DP{d} TP{k} EP{k}")


def _fields(rng: random.Random, gen: str) -> dict:
    d = rng.randrange(8)
    tags = rng.choice(RANK_TAGS).format(d=d, k=d * 2)
    sec = rng.randrange(86400)
    ts = f"2025-10-20 {sec // 3600:02d}:{sec // 60 % 60:02d}:{sec % 60:02d}"
    if rng.random() < 0.2:
        ts += f".{rng.randrange(1000):03d}"  # SGLANG_LOG_MS
    return {"ts": ts, "date": ts[:19], "tags": tags, "tags_bare": f"DP{d} TP{d} EP{d}",
            "r": rng.randrange(257), "q": rng.randrange(40), "g": gen, "t": rng.randrange(1, 400000),
            "t2": rng.randrange(400000), "u": f"{rng.random():.2f}", "u2": f"{rng.random():.2f}",
            "a": f"{rng.uniform(1, 4):.2f}", "ar": f"{rng.random():.2f}", "it": rng.randrange(10 ** 6),
            "x": f"{rng.uniform(0, 900):.1f}", "n": rng.randrange(256), "port": rng.randrange(30000, 60000)}


def build_decode_log(path: Path, n_lines: int, seed: int = 11, steady: bool = False) -> None:
    """85 % decode lines of every shape, with DP/EP tags; the rest prefill, access, other
    and one real crash. `steady`: the gen throughput barely moves (1234.56, 1234.61, ...)
    and #running-req sits at its cap, as in a long run at a fixed load."""
    rng = random.Random(seed)
    weights = [w for w, _ in DECODE_SHAPES]
    shapes = [s for _, s in DECODE_SHAPES]
    *_, other, crash = _corpus_pools()
    other = [ln for ln in other if b"batch" not in ln]  # the batch lines here are the generated ones
    level = 123456  # steady: hundredths of a token/s
    body = []
    for _ in range(n_lines - len(crash)):
        roll = rng.random()
        if steady:
            level = min(123470, max(123440, level + rng.randint(-5, 5)))
            gen = f"{level // 100}.{level % 100:02d}"
        else:
            gen = f"{rng.uniform(0, 5000):.2f}" if rng.random() < 0.97 else f"{rng.random():.2f}"
        f = _fields(rng, gen)
        if steady:
            f["r"], f["q"] = (256 if rng.random() < 0.98 else 255), rng.randrange(3)
        if roll < 0.85:
            line = rng.choices(shapes, weights)[0].format(**f)
        elif roll < 0.91:
            line = rng.choice(PREFILL_SHAPES).format(**f)
        elif roll < 0.97:
            line = ACCESS_LINE.format(**f)
        else:
            body.append(rng.choice(other))
            continue
        body.append(line.encode())
    path.write_bytes(b"\n".join(body + crash) + b"\n")


def build_heldout_log(path: Path, n_lines: int, seed: int = 29) -> None:
    """A decode-dominated mix the engine was not tuned on: another seed, 90 % decode lines
    weighted to the newest shapes (PD decode with speculation, hybrid SSM, HiSparse), every
    stamp in milliseconds, gen throughput ramping up over the run with noise (a warm-up),
    1 % WARNING / INFO lines that hold the needles' common bytes ("l", "memory", "File")
    without being errors."""
    rng = random.Random(seed)
    weights = [1, 1, 2, 1, 2, 4, 5, 1, 3, 1, 2]
    shapes = [s for _, s in DECODE_SHAPES]
    *_, other, crash = _corpus_pools()
    other = [ln for ln in other if b"batch" not in ln]
    decoys = ["[{ts}] WARNING: memory pool is almost full, consider lowering --mem-fraction-static",
              "[{ts}] INFO: Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=71.25 GB",
              '[{ts}] INFO: File "config.json" loaded from the local cache']
    body = []
    n = n_lines - len(crash)
    for i in range(n):
        gen = f"{max(0.0, 3000 * i / n + rng.gauss(0, 150)):.2f}"
        f = _fields(rng, gen)
        sec = rng.randrange(86400)
        f["ts"] = f"2025-11-02 {sec // 3600:02d}:{sec // 60 % 60:02d}:{sec % 60:02d}.{rng.randrange(1000):03d}"
        roll = rng.random()
        if roll < 0.90:
            line = rng.choices(shapes, weights)[0].format(**f)
        elif roll < 0.95:
            line = rng.choice(PREFILL_SHAPES).format(**f)
        elif roll < 0.98:
            line = ACCESS_LINE.format(**f)
        elif roll < 0.99:
            line = rng.choice(decoys).format(**f)
        else:
            body.append(rng.choice(other))
            continue
        body.append(line.encode())
    path.write_bytes(b"\n".join(body + crash) + b"\n")


ENGINE = ("import sys, json; from cockpit.parse.log.summary_scan import summarize_stream; "
          "print(json.dumps(summarize_stream(open(sys.argv[1], 'rb'))))")


def timed_rounds(cmds: dict[str, list[str]], runs: int,
                 env: dict[str, dict[str, str]] | None = None, cwd: dict[str, Path] | None = None,
                 ) -> tuple[dict[str, float], dict[str, float], dict[str, str]]:
    """Median wall time and median CPU time (user + system, forked children included) of
    each command over `runs` rounds; each round runs every command once. `env` adds
    variables to some commands' environment. CPU time shows the work when other load on
    the machine stretches the wall times."""
    times: dict[str, list[float]] = {name: [] for name in cmds}
    cpus: dict[str, list[float]] = {name: [] for name in cmds}
    outs: dict[str, str] = {}
    base = dict(os.environ)
    for _ in range(runs):
        for name, cmd in cmds.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, check=True, cwd=(cwd or {}).get(name, ROOT),
                                  env={**base, **(env or {}).get(name, {})})
            times[name].append(time.perf_counter() - t0)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus[name].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            outs[name] = proc.stdout.decode()
    return ({name: statistics.median(ts) for name, ts in times.items()},
            {name: statistics.median(ts) for name, ts in cpus.items()}, outs)


MIXES = {  # name -> (builder, file stem, what it is)
    "today": (build_log, "bench_v2", "today's mix: 45 % decode, 20 % prefill, 25 % access, 10 % other"),
    "decode": (build_decode_log, "bench_decode_v1", "decode-dominated: 85 % decode lines of every shape, DP/EP tags"),
    "steady": (lambda path, n: build_decode_log(path, n, steady=True), "bench_steady_v1",
               "steady state: gen throughput 1234.40-1234.70, #running-req at its cap"),
    "heldout": (build_heldout_log, "bench_heldout_v1",
                "held out (not tuned on): 90 % decode, newest shapes, ms stamps, a throughput ramp, decoy lines"),
}


def run_mix(name: str, lines: int, runs: int, extras: bool, before: Path | None = None) -> dict:
    """Time grep and parse-log (both engines) on one mix; `extras` adds the engine alone,
    python start + CLI import and the naive loop."""
    builder, stem, what = MIXES[name]
    log = OUT / f"{stem}_{lines}.log"
    if not log.exists():
        builder(log, lines)
    py = sys.executable
    cmds = {
        "grep": ["grep", "-c", "Decode batch", str(log)],
        "parse_log": [py, "-m", "cockpit", "parse-log", str(log), "--json"],
        "parse_log_sre": [py, "-m", "cockpit", "parse-log", str(log), "--json"],
    }
    if extras:
        naive_py = OUT / "naive_parse.py"
        naive_py.write_text(NAIVE)
        cmds |= {"engine": [py, "-c", ENGINE, str(log)],
                 "cli_import": [py, "-c", "import cockpit.cli as c; c.build_parser()"],
                 "naive": [py, str(naive_py), str(log)]}
    if before is not None:  # another checkout's parse-log (its own venv), in the same rounds
        cmds["parse_log_before"] = [str(before / ".venv" / "bin" / "python"), "-m", "cockpit", "parse-log",
                                    str(log), "--json"]
    med, cpu, outs = timed_rounds(cmds, runs, env={"parse_log_sre": {"COCKPIT_SCAN_ENGINE": "sre"}},
                                  cwd={"parse_log_before": before} if before is not None else None)
    summary = json.loads(outs["parse_log"])
    assert summary == json.loads(outs["parse_log_sre"])
    if before is not None:
        assert summary == json.loads(outs["parse_log_before"])
    if extras:
        assert summary == json.loads(outs["engine"])
    assert summary["decode_lines"] == int(outs["grep"]), (summary["decode_lines"], outs["grep"])
    grep_s = med["grep"]
    result = {
        "mix": what,
        "lines": lines,
        "bytes": log.stat().st_size,
        "decode_lines": summary["decode_lines"],
        "max_gen_throughput": summary["max_gen_throughput"],
        "runs": runs,
        "grep_s": round(grep_s, 4),
        "cockpit_parse_log_s": round(med["parse_log"], 4),
        "ratio_cockpit_to_grep": round(med["parse_log"] / grep_s, 2),
        "cockpit_parse_log_sre_only_s": round(med["parse_log_sre"], 4),
        "ratio_sre_only_to_grep": round(med["parse_log_sre"] / grep_s, 2),
        "cpu_s": {name: round(v, 4) for name, v in cpu.items()},
    }
    if before is not None:
        result |= {"before_checkout": str(before), "before_parse_log_s": round(med["parse_log_before"], 4),
                   "ratio_before_to_grep": round(med["parse_log_before"] / grep_s, 2)}
    if extras:
        result |= {
            "summary_engine_s": round(med["engine"], 4),
            "ratio_engine_to_grep": round(med["engine"] / grep_s, 2),
            "python_start_and_cli_import_s": round(med["cli_import"], 4),
            "naive_per_line_regex_s": round(med["naive"], 4),
            "ratio_naive_to_grep": round(med["naive"] / grep_s, 2),
        }
    print(f"\n{name}: {what}")
    print(f"{lines:,} lines, {result['bytes'] / 1e6:.1f} MB, {summary['decode_lines']:,} decode lines, "
          f"median of {runs} interleaved rounds")
    print(f"{'command':<46} {'seconds':>8} {'x grep':>7} {'cpu s':>7}")
    rows = [("grep -c 'Decode batch'", "grep"), ("cockpit parse-log --json", "parse_log"),
            ("  the same with the sre passes only", "parse_log_sre")]
    if before is not None:
        rows.append(("  the --before checkout's parse-log", "parse_log_before"))
    if extras:
        rows += [("  summary engine alone (python + summary)", "engine"),
                 ("  python start + CLI import (build_parser)", "cli_import"),
                 ("naive per-line regex loop", "naive")]
    for label, key in rows:
        print(f"{label:<46} {med[key]:>8.3f} {med[key] / grep_s:>7.1f} {cpu[key]:>7.3f}")
    return result


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--mix", choices=[*MIXES, "all"], default="all")
    ap.add_argument("--before", type=Path, default=None,
                    help="another checkout (with its .venv) whose parse-log runs in the same rounds")
    ap.add_argument("--pin", default=None, help="CPUs for every command, e.g. 0,1 (as taskset -c 0,1)")
    args = ap.parse_args()
    if args.pin:  # inherited by every command it starts (grep and parse-log alike)
        os.sched_setaffinity(0, {int(c) for c in args.pin.split(",")})
    OUT.mkdir(parents=True, exist_ok=True)
    # An installed package has its bytecode compiled (pip does it); a sandbox with
    # PYTHONDONTWRITEBYTECODE would otherwise compile every module on every run.
    compileall.compile_dir(ROOT / "cockpit", quiet=1)
    from cockpit.parse.log.summary_scan import hyperscan_available

    engine = "hyperscan" if hyperscan_available() else "sre (no hyperscan wheel here)"
    print(f"scan engine: {engine}")
    names = list(MIXES) if args.mix == "all" else [args.mix]
    load_before = os.getloadavg()[0]
    results = {name: run_mix(name, args.lines, args.runs, extras=name == "today", before=args.before)
               for name in names}
    load_after = os.getloadavg()[0]
    out = OUT / ("parse_log.json" if args.mix == "all" else f"parse_log_{args.mix}.json")
    out.write_text(json.dumps({"scan_engine": engine, "goal": "ratio_cockpit_to_grep <= 5 on every mix",
                               "cpus": len(os.sched_getaffinity(0)),
                               "load_average_1m": [round(load_before, 2), round(load_after, 2)],
                               "mixes": results}, indent=2) + "\n")
    print(f"\n{len(os.sched_getaffinity(0))} CPUs, 1-minute load average {load_before:.2f} before, "
          f"{load_after:.2f} after (other work stretches the wall times: see cpu s)")
    print(f"{'mix':<8} {'grep s':>8} {'parse-log s':>12} {'x grep':>7} {'sre only x':>11} {'cpu x grep':>11}"
          + (f" {'before x':>9}" if args.before else ""))
    for name, r in results.items():
        cpu_x = r["cpu_s"]["parse_log"] / r["cpu_s"]["grep"]
        print(f"{name:<8} {r['grep_s']:>8.3f} {r['cockpit_parse_log_s']:>12.3f} "
              f"{r['ratio_cockpit_to_grep']:>7.2f} {r['ratio_sre_only_to_grep']:>11.2f} {cpu_x:>11.2f}"
              + (f" {r['ratio_before_to_grep']:>9.2f}" if args.before else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
