"""A sweep's recorded power on a real GPU, checked against nvidia-smi (issue 21, Build 1).

    python3 benchmarks/h200_sweep_power.py [--idle-s 8] [--concurrencies 1,8,32] [--sources nvml,nvidia-smi]

Runs on a machine with an NVIDIA GPU, NVML and PyTorch (the H200 of the device tool). Per GPU
source named: the STAND-IN SGLang server (cockpit/sandbox/sglang_server.py) on this machine, a
session whose host is local with that `gpu_source`, and `cockpit sweep SESSION s1 --yes` with
the STAND-IN bench client (cockpit/sandbox/bench_serving.py as `python -m sglang.bench_serving`),
which idles `--idle-s` before its main run, as the real client does on its imports. A torch
bf16 matmul loop makes the GPU's real power: it runs while the server's log shows requests
running (as a GPU serving them would) and idles otherwise. Alongside, `nvidia-smi
--query-gpu=timestamp,power.draw -lms 100` is written to a file.

Per point it compares the benchmark's recorded power_mean_w (and tok/J) with the nvidia-smi
mean over the client's main run [standin_main_start_unix, standin_main_end_unix], and with
the mean over the whole client process (what the old window, opened when the client started,
took). Prints a table, writes benchmarks/out/h200_sweep_power.json.

On the device tool's H200 (no network; its python3 has torch, nvidia-ml-py and
prometheus-client): carry wheels of pydantic, pydantic-core, annotated-types,
typing-inspection, tomli-w and typing-extensions (cockpit sweep's other imports), install them
with `pip install --no-index --no-deps --target /tmp/site` and set PYTHONPATH=/tmp/site.
Measured 2026-12-02 (idle 8 s, c=1,8,32): recorded / nvidia-smi over the main run 0.989-1.011;
the whole-client-process mean was 0.59-0.62 of the recorded figure (tok/J 1.6-1.7x inflated).

Note: for a host without `ssh`, cockpit reads `gpu_source = "nvidia-smi"` through NVML
(sources/host_feeds_plan.is_local_gpu), so the second source here is that setting, not a
second reader.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from sweep_support import SERVER, free_port, make_bench_python  # noqa: E402

from cockpit.model.session import Host, LaunchProfile, Session, Sweep  # noqa: E402
from cockpit.parse.bench.result_jsonl import read_records  # noqa: E402
from cockpit.parse.log.events import DecodeBatch, PrefillBatch  # noqa: E402
from cockpit.parse.log.sglang_log import parse_line  # noqa: E402
from cockpit.store.toml_store import load_session, save_session  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
TOK_S, OUTPUT_LEN, PROMPTS_PER_C = 100.0, 256, 3  # 2.6 s a request, 3 rounds: a ~8 s main run
BUSY_HOLD_S = 0.3  # the load stays busy this long after the last log line with running requests


def load_loop(flag: str, stop: str) -> None:
    """The GPU load: bf16 matmuls while `flag` exists, idle otherwise, until `stop` exists."""
    try:
        import torch
    except ImportError:  # a machine without torch (a dry run of the script): no load
        print("load: ready (no torch here: no load)", flush=True)
        while not os.path.exists(stop):
            time.sleep(0.05)
        return
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    torch.cuda.synchronize()
    print("load: ready", flush=True)
    while not os.path.exists(stop):
        if os.path.exists(flag):
            for _ in range(10):
                a @ b
            torch.cuda.synchronize()
        else:
            time.sleep(0.01)


class ServerFollower:
    """Reads the stand-in server's log: writes it to `log` (the host's log_path) and keeps the
    load's flag file present while requests run."""

    def __init__(self, proc: subprocess.Popen, log: Path, flag: Path) -> None:
        self.proc, self.log, self.flag = proc, log, flag
        self.busy_until = 0.0
        self.done = False
        self.busy_spans: list[list[float]] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._flag, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        with open(self.log, "a") as out:
            for line in self.proc.stdout:
                out.write(line)
                out.flush()
                event = parse_line(line.rstrip("\n"))
                if isinstance(event, (PrefillBatch, DecodeBatch)) and (event.running_req or 0) > 0:
                    self.busy_until = time.monotonic() + BUSY_HOLD_S

    def _flag(self) -> None:
        busy = False
        while not self.done:
            now = time.monotonic() < self.busy_until
            if now and not busy:
                self.flag.touch()
                self.busy_spans.append([time.time(), time.time()])
            elif busy and not now:
                self.flag.unlink(missing_ok=True)
                self.busy_spans[-1][1] = time.time()
            busy = now
            time.sleep(0.01)
        self.flag.unlink(missing_ok=True)


def wait_health(port: int, timeout: float = 30.0) -> None:
    import http.client

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise TimeoutError("stand-in server not ready")


def logging_wrapper(folder: Path) -> tuple[str, Path]:
    """make_bench_python's wrapper, also logging each client process's start and end (unix)."""
    wrapper = Path(make_bench_python(folder))
    log = folder / "client-times.log"
    body = wrapper.read_text().splitlines()
    exec_line = body[-1].replace("exec ", "", 1)  # run it as a child, to stamp its end
    wrapper.write_text("#!/bin/sh\nunset PYTHONUNBUFFERED\n"
                       f'echo "start $(date +%s.%N) $*" >> {log}\n'
                       f"{exec_line}\nrc=$?\n"
                       f'echo "end $(date +%s.%N) $*" >> {log}\nexit $rc\n')
    return str(wrapper), log


def client_lifetimes(log: Path) -> dict[int, tuple[float, float]]:
    """Per --max-concurrency: (start, end) of the client process that ran it."""
    starts: dict[int, float] = {}
    out: dict[int, tuple[float, float]] = {}
    for line in log.read_text().splitlines():
        kind, _, rest = line.partition(" ")
        stamp, _, args = rest.partition(" ")
        argv = args.split()
        if kind not in ("start", "end") or "--max-concurrency" not in argv:
            continue  # the module probe
        c = int(argv[argv.index("--max-concurrency") + 1])
        if kind == "start":
            starts[c] = float(stamp)
        elif c in starts:
            out[c] = (starts[c], float(stamp))
    return out


def read_smi(path: Path) -> list[tuple[float, float]]:
    """(unix time, summed watts) per nvidia-smi sample (one line per GPU, same timestamp)."""
    per_time: dict[float, float] = {}
    for line in path.read_text().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 2:
            continue
        try:
            when = datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()  # local time, as smi writes
            watts = float(parts[1])
        except ValueError:
            continue
        per_time[when] = per_time.get(when, 0.0) + watts
    return sorted(per_time.items())


def mean_over(samples: list[tuple[float, float]], start: float, end: float) -> tuple[float | None, int]:
    inside = [w for t, w in samples if start <= t <= end]
    return (statistics.fmean(inside) if inside else None), len(inside)


def run_source(source: str, args: argparse.Namespace, work: Path, flag: Path) -> dict:
    work.mkdir(parents=True)
    port = free_port()
    server_log = work / "server.log"
    server = subprocess.Popen(
        [sys.executable, str(SERVER), "--port", str(port), "--standin-load-s", "0.05", "--standin-capture-s", "0.05",
         "--standin-tok-s", str(TOK_S), "--decode-log-interval", "4"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    follower = ServerFollower(server, server_log, flag)
    smi_path = work / "nvidia-smi.csv"
    smi_out = open(smi_path, "w")
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,power.draw", "--format=csv,noheader,nounits",
                            "-lms", "100"], stdout=smi_out, stderr=subprocess.DEVNULL)
    # beside it, the instantaneous draw (power.draw is a 1 s average on recent drivers), for reference
    instant_path = work / "nvidia-smi-instant.csv"
    instant_out = open(instant_path, "w")
    instant = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,power.draw.instant",
                                "--format=csv,noheader,nounits", "-lms", "100"], stdout=instant_out,
                               stderr=subprocess.DEVNULL)
    try:
        wait_health(port)
        python, times_log = logging_wrapper(work)
        host = Host(name="local", run_dir=str(work / "runs"), gpu_source=source, gpu_interval_s=0.1,
                    log_path=str(server_log))
        session = work / "s.toml"
        save_session(Session(
            hosts=[host],
            launch=[LaunchProfile(id="l1", name="base", host="local", python=python,
                                  command=f"python -m sglang.launch_server --model-path m --port {port}")],
            sweeps=[Sweep(id="s1", name="h200 power", input_len=64, output_len=OUTPUT_LEN,
                          concurrencies=args.concurrencies, prompts_per_concurrency=PROMPTS_PER_C,
                          extra_args=["--standin-idle-s", str(args.idle_s)])]), session)
        began = time.time()
        res = subprocess.run([sys.executable, "-m", "cockpit", "sweep", str(session), "s1", "--yes"],
                             capture_output=True, text=True, cwd=ROOT, stdin=subprocess.DEVNULL, timeout=600)
        print(res.stdout, res.stderr, sep="\n", flush=True)
        time.sleep(0.5)  # the last smi line
    finally:
        for proc, out in ((smi, smi_out), (instant, instant_out)):
            proc.terminate()
            proc.wait()
            out.close()
        follower.done = True
        os.killpg(server.pid, 9)
        server.wait()
    samples = read_smi(smi_path)
    instants = read_smi(instant_path)
    lifetimes = client_lifetimes(times_log)
    records = {}
    for jsonl in (work / "runs").rglob("*.jsonl"):
        for record in read_records(jsonl.read_text()):
            records[record["max_concurrency"]] = record
    rows = []
    for bench in load_session(session).benchmarks:
        c = bench.concurrency
        record = records.get(c, {})
        start, end = record.get("standin_main_start_unix"), record.get("standin_main_end_unix")
        main_mean, main_n = mean_over(samples, start, end) if start else (None, 0)
        life = lifetimes.get(c)
        life_mean, life_n = mean_over(samples, *life) if life else (None, 0)
        rows.append({
            "source": source, "concurrency": c, "recorded_power_mean_w": bench.power_mean_w,
            "recorded_power_peak_w": bench.power_peak_w,
            "recorded_tok_per_joule": bench.tok_per_joule, "recorded_output_tok_per_joule": bench.output_tok_per_joule,
            "total_tok_s": bench.total_tok_s, "output_tok_s": bench.output_tok_s, "notes": bench.notes,
            "main_start_unix": start, "main_end_unix": end, "main_s": (end - start) if start else None,
            "client_s": (life[1] - life[0]) if life else None,
            "smi_main_mean_w": main_mean, "smi_main_samples": main_n,
            "smi_instant_main_mean_w": mean_over(instants, start, end)[0] if start else None,
            "smi_lifetime_mean_w": life_mean, "smi_lifetime_samples": life_n,
            "recorded_over_smi_main": _ratio(bench.power_mean_w, main_mean),
            "recorded_over_smi_lifetime": _ratio(bench.power_mean_w, life_mean),
            "tok_per_joule_smi_main": _ratio(bench.total_tok_s, main_mean),
            "tok_per_joule_old_window": _ratio(bench.total_tok_s, life_mean),
        })
    return {"source": source, "exit": res.returncode, "began_unix": began, "rows": rows,
            "smi_samples": len(samples), "smi_idle_w": min((w for _, w in samples), default=None),
            "smi_peak_w": max((w for _, w in samples), default=None),
            "load_busy_spans": follower.busy_spans}


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--idle-s", type=float, default=8.0)
    p.add_argument("--concurrencies", type=lambda s: [int(x) for x in s.split(",")], default=[1, 8, 32])
    p.add_argument("--sources", default="nvml,nvidia-smi")
    p.add_argument("--load", nargs=2, metavar=("FLAG", "STOP"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.load:
        load_loop(*args.load)
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="h200-sweep-power-"))
    flag, stop = tmp / "busy", tmp / "stop"
    load = subprocess.Popen([sys.executable, __file__, "--load", str(flag), str(stop)], stdout=subprocess.PIPE,
                            text=True)
    assert load.stdout is not None
    print(load.stdout.readline().strip(), flush=True)  # "load: ready" once the matrices are on the GPU
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,power.limit,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    results = []
    try:
        for source in args.sources.split(","):
            results.append(run_source(source, args, tmp / source, flag))
    finally:
        stop.touch()
        load.wait(timeout=30)
    OUT.mkdir(exist_ok=True)
    doc = {"gpu": gpu, "idle_s": args.idle_s, "tok_s_per_request": TOK_S, "output_len": OUTPUT_LEN,
           "prompts_per_concurrency": PROMPTS_PER_C, "runs": results}
    (OUT / "h200_sweep_power.json").write_text(json.dumps(doc, indent=2))
    print(f"GPU: {gpu}")
    head = (f"{'source':<11}{'c':>4}{'main s':>8}{'client s':>9}{'recorded W':>11}{'smi main W':>11}"
            f"{'rec/smi':>8}{'smi life W':>11}{'rec/life':>9}{'tok/J rec':>10}{'tok/J smi':>10}{'tok/J old':>10}")
    print(head)
    for run in results:
        for r in run["rows"]:
            print(f"{r['source']:<11}{r['concurrency']:>4}{_f(r['main_s'], 1):>8}{_f(r['client_s'], 1):>9}"
                  f"{_f(r['recorded_power_mean_w'], 1):>11}{_f(r['smi_main_mean_w'], 1):>11}"
                  f"{_f(r['recorded_over_smi_main'], 3):>8}{_f(r['smi_lifetime_mean_w'], 1):>11}"
                  f"{_f(r['recorded_over_smi_lifetime'], 3):>9}{_f(r['recorded_tok_per_joule'], 3):>10}"
                  f"{_f(r['tok_per_joule_smi_main'], 3):>10}{_f(r['tok_per_joule_old_window'], 3):>10}")
            if r["notes"]:
                print(f"{'':15}notes: {r['notes']}")
    return 0 if all(run["exit"] == 0 for run in results) else 1


def _f(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


if __name__ == "__main__":
    sys.exit(main())
