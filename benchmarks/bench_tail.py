"""How fast `cockpit tail` catches up on a big remote log, next to `ssh host cat FILE`.

Starts its own loopback sshd (the tests' recipe: tests/sshd_fixture.py; needs root and
openssh-server), writes a file of SGLang-like log lines, then times, median of N runs each:
  * ssh cat        `ssh -F cfg host cat FILE > /dev/null` (OpenSSH client: the ceiling)
  * cockpit tail   `cockpit tail host:FILE --from-start > /dev/null`, until every byte is out
  * ResumableTail  the same tail in-process, no process start and no output (the source alone)
Goal: cockpit tail at least half of ssh's bytes/s. Writes benchmarks/out/tail.json.

    .venv/bin/python benchmarks/bench_tail.py [--mb 200] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from sshd_fixture import ALIAS, LoopbackSshd  # noqa: E402


def write_corpus(path: Path, size: int) -> int:
    """SGLang-like lines (decode/prefill batches, requests), about `size` bytes, whole lines."""
    rng = random.Random(1)
    lines = []
    for i in range(4000):
        ts = f"2026-11-29 10:{i // 60 % 60:02d}:{i % 60:02d}"
        kind = rng.random()
        if kind < 0.7:
            lines.append(
                f"[{ts} DP{rng.randrange(8)} TP{rng.randrange(8)}] Decode batch, #running-req: {rng.randrange(300)}, "
                f"#token: {rng.randrange(400000)}, token usage: {rng.random():.2f}, cuda graph: True, "
                f"gen throughput (token/s): {rng.uniform(100, 9000):.2f}, #queue-req: {rng.randrange(50)}, \n")
        elif kind < 0.9:
            lines.append(
                f"[{ts} TP{rng.randrange(8)}] Prefill batch, #new-seq: {rng.randrange(64)}, #new-token: "
                f"{rng.randrange(65536)}, #cached-token: {rng.randrange(65536)}, token usage: {rng.random():.2f}, "
                f"#running-req: {rng.randrange(300)}, #queue-req: {rng.randrange(50)}, \n")
        else:
            lines.append(f'[{ts}] INFO:     127.0.0.1:{rng.randrange(30000, 60000)} - "POST /generate HTTP/1.1" 200 OK\n')
    block = "".join(lines).encode()
    reps = max(1, size // len(block))
    with open(path, "wb") as f:
        for _ in range(reps):
            f.write(block)
    os.chmod(path, 0o644)
    return reps * len(block)


def timed(argv: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


async def in_process(sshd: LoopbackSshd, path: Path, size: int) -> float:
    from cockpit.sources.log.tail import ResumableTail
    from cockpit.sources.log.tail_events import LogBytes
    from cockpit.sources.transport.ssh_pool import SshPool, SshTarget

    t0 = time.perf_counter()
    got = 0
    async with SshPool(agent_path=None) as pool:
        target = SshTarget(ALIAS, config=(sshd.ssh_config,))
        async with ResumableTail.ssh_file(pool, target, str(path), from_start=True) as tail:
            async for ev in tail:
                if isinstance(ev, LogBytes):
                    got += len(ev.data)
                    if got >= size:
                        break
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    sshd = LoopbackSshd()
    sshd.start()
    try:
        path = sshd.make_dir("bench") / "server.log"
        size = write_corpus(path, args.mb << 20)
        ssh = ["ssh", "-F", sshd.ssh_config, ALIAS]
        subprocess.run([*ssh, "true"], check=True)  # a first login (user's first session)
        cases = {
            "ssh cat": [*ssh, "cat", str(path)],
            "cockpit tail": [sys.executable, "-m", "cockpit", "tail", f"{ALIAS}:{path}", "--from-start",
                             "--ssh-config", sshd.ssh_config, "--stop-after-bytes", str(size)],
        }
        results: dict[str, list[float]] = {name: [] for name in [*cases, "ResumableTail (in-process)"]}
        for _ in range(args.runs):  # interleaved, so a busy moment of the machine hits both
            for name, argv in cases.items():
                results[name].append(timed(argv))
            results["ResumableTail (in-process)"].append(asyncio.run(in_process(sshd, path, size)))
    finally:
        sshd.close()
    rows = []
    for name, times in results.items():
        med = statistics.median(times)
        rows.append({"case": name, "seconds": [round(t, 3) for t in times], "median_s": round(med, 3),
                     "mb_per_s": round(size / med / 1e6, 1)})
    base = rows[0]["mb_per_s"]
    for r in rows:
        r["vs_ssh"] = round(r["mb_per_s"] / base, 2)
    print(f"file: {size / 1e6:.0f} MB of SGLang-like lines over loopback sshd; median of {args.runs} runs")
    print(f"{'case':28} {'median s':>9} {'MB/s':>8} {'vs ssh':>7}")
    for r in rows:
        print(f"{r['case']:28} {r['median_s']:9.2f} {r['mb_per_s']:8.1f} {r['vs_ssh']:7.2f}")
    goal = next(r for r in rows if r["case"] == "cockpit tail")["vs_ssh"] >= 0.5
    print(f"goal (cockpit tail >= 0.5 x ssh): {'met' if goal else 'NOT met'}")
    out = ROOT / "benchmarks" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "tail.json").write_text(json.dumps({"bytes": size, "runs": args.runs, "results": rows,
                                               "goal_met": goal, "cpus": os.cpu_count()}, indent=2) + "\n")
    return 0 if goal else 1


if __name__ == "__main__":
    sys.exit(main())
