"""SIMULATOR / STAND-IN for `python -m sglang.bench_serving` (NOT the real client), for cockpit's
tests and `cockpit sandbox`.

The real client does not import here: `sglang.benchmark.serving` needs torch and triton
(through sglang.srt.utils), which this machine does not have. This script takes the flags
cockpit passes, and behaves as the real client does in everything cockpit observes:

* sends `--num-prompts` requests to `/generate` (SGLang's native API, streamed) of the
  server at --base-url or --host/--port, at most `--max-concurrency` at a time; when no
  server answers they fail as the real client's do (its warm-up first: exit 1; with
  `--warmup-requests 0` a record with `completed` 0), or with `--standin-simulate` they
  are simulated at `--standin-token-ms` per token (said on stderr);
* `--standin-idle-s N` idles first, as the real client's imports do (~12 s);
  `--standin-main-pause-s N` pauses after the main-run line, as newer clients do (1 s);
* after its warm-up request answered, prints "Initial test run completed. Starting main
  benchmark run..." on stdout (as the real client, with print: buffered unless `-u`);
* writes a tqdm-like progress line to stderr (`\\r 45%|####  | 9/20 [00:01<00:01, 8.1it/s]`);
* prints the "Serving Benchmark Result" block with the real rows and formats;
* appends one JSON line to --output-file with the real key set (tests/data/bench/).

Only the standard library, so any python3 on a test host runs it.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a path (runpy), beside its datasets
import bench_datasets  # type: ignore[import-not-found]  # noqa: E402  (the stand-in's datasets, beside it)

LABEL = "STAND-IN sglang.bench_serving (cockpit/sandbox/bench_serving.py), not the real client"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=LABEL)
    p.add_argument("--backend", default="sglang")
    p.add_argument("--base-url", default=None)
    p.add_argument("--host", default="0.0.0.0")
    p.add_argument("--port", type=int, default=None)
    p.add_argument("--dataset-name", default="sharegpt")
    p.add_argument("--dataset-path", default="")
    p.add_argument("--model", default=None)
    p.add_argument("--tokenizer", default=None)
    p.add_argument("--num-prompts", type=int, default=1000)
    p.add_argument("--sharegpt-output-len", type=int, default=None)
    p.add_argument("--random-input-len", type=int, default=1024)
    p.add_argument("--random-output-len", type=int, default=1024)
    p.add_argument("--random-range-ratio", type=float, default=0.0)
    p.add_argument("--request-rate", type=float, default=float("inf"))
    p.add_argument("--max-concurrency", type=int, default=None)
    p.add_argument("--output-file", default=None)
    p.add_argument("--output-details", action="store_true")
    p.add_argument("--disable-tqdm", action="store_true")
    p.add_argument("--disable-stream", action="store_true")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--tag", default=None)
    p.add_argument("--warmup-requests", type=int, default=1)
    p.add_argument("--extra-request-body", default=None)
    bench_datasets.add_flags(p)  # --sharegpt-context-len, --gsp-*, --mooncake-*, --use-trace-timestamps
    p.add_argument("--standin-token-ms", type=float, default=1.0,
                   help="stand-in only: pace of a simulated token when no server answers")
    p.add_argument("--standin-exit", type=int, default=None,
                   help="stand-in only: exit with this status before the run (a crashed client)")
    p.add_argument("--standin-no-record", action="store_true",
                   help="stand-in only: write no JSONL record (the reader falls back to the printed block)")
    p.add_argument("--standin-no-main-run-line", action="store_true",
                   help="stand-in only: do not say when the main run starts (as a client other than bench_serving)")
    p.add_argument("--standin-idle-s", type=float, default=0.0,
                   help="stand-in only: idle this long first (the real client's imports and dataset load)")
    p.add_argument("--standin-main-pause-s", type=float, default=0.0,
                   help="stand-in only: pause this long after the main-run line (newer clients sleep 1 s there)")
    p.add_argument("--standin-simulate", action="store_true",
                   help="stand-in only: when no server answers, simulate the requests instead of failing them")
    return p.parse_args(argv)


@dataclass
class Output:
    prompt_len: int
    output_len: int = 0
    success: bool = False
    ttft: float = 0.0
    latency: float = 0.0
    itl: list[float] = field(default_factory=list)
    error: str = ""
    first_token_unix: float = 0.0
    """STAND-IN only: when the first token came, by the wall clock (the real client keeps none)."""


def _base(args: argparse.Namespace) -> tuple[str, int]:
    if args.base_url:
        parts = urlsplit(args.base_url)
        return parts.hostname or "127.0.0.1", parts.port or 80
    return args.host, args.port or 30000


def _get(host: str, port: int, path: str, timeout: float = 2.0) -> tuple[int, bytes] | None:
    try:
        conn = http.client.HTTPConnection(host, port, timeout=timeout)
        conn.request("GET", path)
        resp = conn.getresponse()
        body = resp.read()
        conn.close()
        return resp.status, body
    except OSError:
        return None


def _generate(host: str, port: int, prompt_len: int, output_len: int) -> Output:
    """One streamed `/generate` request, timed as the real client times it."""
    out = Output(prompt_len=prompt_len)
    body = json.dumps({"text": " ".join(["hi"] * prompt_len),
                       "sampling_params": {"max_new_tokens": output_len, "temperature": 0.0, "ignore_eos": True},
                       "stream": True})
    start = time.perf_counter()
    last = start
    try:
        conn = http.client.HTTPConnection(host, port, timeout=600)
        conn.request("POST", "/generate", body=body, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        if resp.status != 200:
            out.error = f"HTTP {resp.status}: {resp.read()[:200]!r}"
            return out
        for raw in resp:
            line = raw.decode("utf-8", "replace").strip()
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                break
            now = time.perf_counter()
            if out.ttft == 0.0:
                out.ttft = now - start
                out.first_token_unix = time.time()
            else:
                out.itl.append(now - last)
            last = now
            try:
                meta = json.loads(data).get("meta_info", {})
                out.output_len = int(meta.get("completion_tokens", out.output_len + 1))
            except (ValueError, AttributeError):
                out.output_len += 1
        conn.close()
    except OSError as exc:
        out.error = str(exc)
        return out
    out.latency = time.perf_counter() - start
    out.success = out.output_len > 0
    return out


def _simulate(prompt_len: int, output_len: int, token_s: float) -> Output:
    out = Output(prompt_len=prompt_len, output_len=output_len, success=True)
    start = time.perf_counter()
    time.sleep(token_s * 2)  # prefill
    out.ttft = time.perf_counter() - start
    out.first_token_unix = time.time()
    last = time.perf_counter()
    for _ in range(output_len - 1):
        time.sleep(token_s)
        now = time.perf_counter()
        out.itl.append(now - last)
        last = now
    out.latency = time.perf_counter() - start
    return out


class Progress:
    """A tqdm-like line on stderr, redrawn with `\\r` (what the real client's tqdm writes)."""

    def __init__(self, total: int, disabled: bool) -> None:
        self.total, self.done, self.disabled = total, 0, disabled
        self.start = time.perf_counter()
        self.lock = threading.Lock()
        self.draw()

    def draw(self) -> None:
        if self.disabled:
            return
        elapsed = time.perf_counter() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate else 0.0
        filled = int(10 * self.done / max(self.total, 1))
        bar = "█" * filled + " " * (10 - filled)
        pct = int(100 * self.done / max(self.total, 1))
        sys.stderr.write(f"\r{pct:3d}%|{bar}| {self.done}/{self.total} "
                         f"[{_clock(elapsed)}<{_clock(left)}, {rate:5.2f}it/s]")
        sys.stderr.flush()

    def update(self) -> None:
        with self.lock:
            self.done += 1
            self.draw()

    def close(self) -> None:
        if not self.disabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = (len(ordered) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def _stats(values_s: list[float], name: str) -> dict[str, float]:
    ms = [v * 1000 for v in values_s] or [0.0]
    return {f"mean_{name}_ms": statistics.fmean(ms), f"median_{name}_ms": statistics.median(ms),
            f"std_{name}_ms": statistics.pstdev(ms), f"p90_{name}_ms": _pct(ms, 90),
            f"p95_{name}_ms": _pct(ms, 95), f"p99_{name}_ms": _pct(ms, 99)}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    time.sleep(args.standin_idle_s)  # as the real client's ~12 s of imports, the GPUs idle meanwhile
    print(LABEL, file=sys.stderr)
    print(f"benchmark_args={args}")
    if args.standin_exit is not None:
        print("Traceback (most recent call last):\nRuntimeError: stand-in asked to fail", file=sys.stderr)
        return args.standin_exit
    rng = random.Random(args.seed)
    asked = bench_datasets.requests(args, rng)
    lens = [(r.input_len, r.output_len) for r in asked]
    print(f"#Input tokens: {sum(i for i, _ in lens)}")
    print(f"#Output tokens: {sum(o for _, o in lens)}")
    host, port = _base(args)
    live = _get(host, port, "/health") is not None
    if live or not args.standin_simulate:
        # no server: the requests fail as the real client's do (the warm-up first, when there is one)
        def one(pair: tuple[int, int]) -> Output:
            return _generate(host, port, *pair)
        if args.warmup_requests > 0:
            print("Starting initial single prompt test run...")
            test = one((lens[0][0], min(lens[0][1], 4)))
            if not test.success:
                print(f"Initial test run failed - Please make sure benchmark arguments are correctly specified. "
                      f"Error: {test.error}")
                return 1
            if not args.standin_no_main_run_line:
                print("Initial test run completed. Starting main benchmark run...")
                sys.stdout.flush()
            time.sleep(args.standin_main_pause_s)
    else:
        print(f"STAND-IN: no server answers at {host}:{port}: simulating requests at "
              f"{args.standin_token_ms:g} ms a token", file=sys.stderr)

        def one(pair: tuple[int, int]) -> Output:
            return _simulate(pair[0], pair[1], args.standin_token_ms / 1000)
    concurrency = args.max_concurrency or args.num_prompts
    print(f"Traffic request rate: {args.request_rate}")
    print(f"Max request concurrency: {args.max_concurrency}")
    progress = Progress(len(lens), args.disable_tqdm)
    main_start_unix = time.time()
    start = time.perf_counter()
    active = 0
    peak = 0
    gate = threading.Lock()

    def run(pair: tuple[int, int], send_at_s: float = 0.0) -> Output:
        nonlocal active, peak
        wait = start + send_at_s - time.perf_counter()
        if wait > 0:  # a trace's arrival time (mooncake --use-trace-timestamps)
            time.sleep(wait)
        with gate:
            active += 1
            peak = max(peak, active)
        try:
            return one(pair)
        finally:
            with gate:
                active -= 1
            progress.update()

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        outputs = list(pool.map(run, lens, [r.send_at_s for r in asked]))
    duration = time.perf_counter() - start
    main_end_unix = time.time()
    progress.close()
    return report(args, outputs, duration, peak, _get(host, port, "/server_info") if live else None,
                  (main_start_unix, main_end_unix))


def report(args: argparse.Namespace, outputs: list[Output], duration: float, peak: int,
           server_info_answer: tuple[int, bytes] | None, main_run: tuple[float, float] = (0.0, 0.0)) -> int:
    done = [o for o in outputs if o.success]
    total_in = sum(o.prompt_len for o in done)
    total_out = sum(o.output_len for o in done)
    ttfts = [o.ttft for o in done]
    itls = [x for o in done for x in o.itl]
    tpots = [(o.latency - o.ttft) / (o.output_len - 1) for o in done if o.output_len > 1]
    e2e = [o.latency for o in done]
    m = {"completed": len(done), "request_throughput": len(done) / duration,
         "input_throughput": total_in / duration, "output_throughput": total_out / duration,
         "total_throughput": (total_in + total_out) / duration,
         "concurrency": sum(e2e) / duration}
    m.update(_stats(e2e, "e2e_latency"))
    m.update(_stats(ttfts, "ttft"))
    m.update(_stats(tpots, "tpot"))
    m.update(_stats(itls, "itl"))
    max_itl = max(itls, default=0.0) * 1000
    row = "{:<40} {:<10}".format
    frow = "{:<40} {:<10.2f}".format
    print("\n{s:{c}^{n}}".format(s=" Serving Benchmark Result ", n=50, c="="))
    print(row("Backend:", args.backend))
    print(row("Traffic request rate:", args.request_rate))
    print(row("Max request concurrency:", args.max_concurrency if args.max_concurrency else "not set"))
    print(row("Successful requests:", len(done)))
    print(frow("Benchmark duration (s):", duration))
    print(row("Total input tokens:", total_in))
    print(row("Total input text tokens:", total_in))
    print(row("Total generated tokens:", total_out))
    print(row("Total generated tokens (retokenized):", total_out))
    print(frow("Request throughput (req/s):", m["request_throughput"]))
    print(frow("Input token throughput (tok/s):", m["input_throughput"]))
    print(frow("Output token throughput (tok/s):", m["output_throughput"]))
    print(frow("Peak output token throughput (tok/s):", m["output_throughput"]))
    print(row("Peak concurrent requests:", peak))
    print(frow("Total token throughput (tok/s):", m["total_throughput"]))
    print(frow("Concurrency:", m["concurrency"]))
    for title, name, rows in (("End-to-End Latency", "e2e_latency", "E2E Latency"), ("Time to First Token", "ttft", "TTFT"),
                              ("Time per Output Token (excl. 1st token)", "tpot", "TPOT"),
                              ("Inter-Token Latency", "itl", "ITL")):
        print("{s:{c}^{n}}".format(s=title, n=50, c="-"))
        for stat, word in (("mean", "Mean"), ("median", "Median"), ("p90", "P90"), ("p95", "P95"), ("p99", "P99")):
            print(frow(f"{word} {rows} (ms):", m[f"{stat}_{name}_ms"]))
    print(frow("Max ITL (ms):", max_itl))
    print("=" * 50)
    sys.stdout.flush()
    server_info = None
    if server_info_answer and server_info_answer[0] == 200:
        try:
            server_info = json.loads(server_info_answer[1])
        except ValueError:
            server_info = None
    result = {
        "tag": args.tag, "backend": args.backend, "dataset_name": args.dataset_name,
        "request_rate": args.request_rate, "max_concurrency": args.max_concurrency,
        "sharegpt_output_len": args.sharegpt_output_len, "random_input_len": args.random_input_len,
        "random_output_len": args.random_output_len, "random_range_ratio": args.random_range_ratio,
        "server_info": server_info, "duration": duration, "completed": len(done),
        "total_input_tokens": total_in, "total_input_text_tokens": total_in, "total_input_vision_tokens": 0,
        "total_output_tokens": total_out, "total_output_tokens_retokenized": total_out,
    }
    for key in ("request_throughput", "input_throughput", "output_throughput", "total_throughput"):
        result[key] = m[key]
    for name in ("e2e_latency", "ttft", "tpot", "itl"):
        for stat in ("mean", "median", "std", "p90", "p95", "p99"):
            result[f"{stat}_{name}_ms"] = m[f"{stat}_{name}_ms"]
    result.update({"concurrency": m["concurrency"], "accept_length": None,
                   "max_output_tokens_per_s": m["output_throughput"], "max_concurrent_requests": peak})
    # STAND-IN keys (not the real client's): when the main run's requests went out and the last
    # came back, by the wall clock, so a test can check the recorded power against its source
    result.update({"standin_main_start_unix": main_run[0], "standin_main_end_unix": main_run[1]})
    if args.output_details:  # sglang's `result_details`, its keys and order, every request in request order
        result.update({"input_lens": [o.prompt_len for o in outputs], "output_lens": [o.output_len for o in outputs],
                       "ttfts": [o.ttft for o in outputs], "itls": [o.itl for o in outputs],
                       "generated_texts": ["" for _ in outputs], "errors": [o.error for o in outputs],
                       # STAND-IN key: each request's first token by the wall clock, the steady window's truth
                       "standin_first_token_unix": [o.first_token_unix for o in outputs]})
    if args.output_file and not args.standin_no_record:
        with open(args.output_file, "a") as fh:
            fh.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
