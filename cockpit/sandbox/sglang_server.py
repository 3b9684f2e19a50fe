"""SIMULATOR / STAND-IN for `python -m sglang.launch_server`: not SGLang, no model, no GPU (the
server of cockpit's tests and of `cockpit sandbox`).

It behaves as sglang.launch_server does in everything cockpit observes, so the experiment loop
(launch -> ready -> sweep -> stop) can be tested on a machine without GPUs:

* the log on stdout, in SGLang 0.5.x's real formats (the corpus, tests/data/corpus/):
  `server_args=ServerArgs(...)`, `Load weight begin/end`, the KV-cache and scheduler summary
  lines, `Capture cuda graph begin/end`, uvicorn's start lines, the warm-up, `The server is
  fired up and ready to roll!`, then `Prefill batch, ...` / `Decode batch, ...` lines whose
  `#running-req` / `#queue-req` follow the load it gets, and uvicorn access lines;
* a child process, as the real scheduler is one, so a stop that only kills the leader leaves it;
* HTTP once "ready" (as uvicorn starts only after graph capture): `/health`, `/health_generate`,
  `/v1/models`, `/model_info`, `/get_model_info`, `/server_info`, `/get_server_info`,
  `/generate` and `/v1/completions` (+ `/v1/chat/completions`), streamed as server-sent events
  the way SGLang streams them, one token per 1/tok_s seconds per request, and `/metrics` with
  the `sglang:` gauge and counter families and the TTFT / ITL / e2e histograms, filled from
  the requests it serves (a 404 there with --standin-no-metrics, as SGLang started without
  --enable-metrics answers);
* a crash on request: a real-looking traceback ending in `torch.OutOfMemoryError: CUDA out of
  memory`, SGLang's `Received sigquit from a child process` line, exit code 1.

Real flags read: --model-path, --served-model-name, --host, --port, --tp/--tp-size,
--max-running-requests, --decode-log-interval; any other flag is accepted and ignored.
Stand-in controls (flag, or env var STANDIN_<NAME>):
  --standin-load-s S      seconds "loading weights" (default 0.3)
  --standin-capture-s S   seconds "capturing CUDA graphs" (default 0.3)
  --standin-tok-s N       tokens per second per request (default 200)
  --standin-crash PHASE   crash during `load`, `capture` (default when given bare) or `serve`
                          (the first request after ready)
  SIGUSR1 (to the leader) once ready: the `serve` crash at once (a server that dies under
                          a person's eyes, e.g. after a sweep: `kill -USR1 PID`)
  --standin-ignore-term   ignore SIGTERM (leader and child), to test the SIGKILL escalation
  --standin-no-metrics    no `/metrics` (404), as a server started without --enable-metrics
  --standin-cold-first-token-s S
                          the first generation request after ready gets its first token only
                          after S more seconds (a cold first request: the bench client's
                          warm-up); every later request at the set pace
  --standin-surface       speed, first-token latency, GPU power and crashes follow the real flags
                          --cuda-graph-max-bs, --chunked-prefill-size, --moe-runner-backend,
                          --mem-fraction-static, --enable-torch-compile (cockpit/sandbox/surface.py);
                          /metrics then also carries dcgm-exporter's power series (gpu_source dcgm)
  --standin-noise SIGMA   with the surface: each launch runs SIGMA (0.02 = 2 %) faster or slower,
                          drawn once per launch (seeded by --standin-seed N plus the pid)
Plain standard library only: it must run on any host cockpit reaches, with any python3.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_OUT_LOCK = threading.Lock()


def _ts() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S")


def emit(text: str, ranks: str | None = "TP0") -> None:
    """One record: `[<ts> <ranks>] text`; ranks=None for the main/HTTP process's lines."""
    prefix = f"[{_ts()} {ranks}]" if ranks else f"[{_ts()}]"
    raw(f"{prefix} {text}\n")


def raw(text: str) -> None:
    with _OUT_LOCK:
        sys.stdout.write(text)
        sys.stdout.flush()


def _env_default(name: str, default: str) -> str:
    return os.environ.get(f"STANDIN_{name.upper()}", default)


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="sglang.launch_server (stand-in)", allow_abbrev=False)
    p.add_argument("--model-path", "--model", default="stand-in/model")
    p.add_argument("--served-model-name", default=None)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=30000)
    p.add_argument("--tp", "--tp-size", dest="tp", type=int, default=1)
    p.add_argument("--max-running-requests", type=int, default=256)
    p.add_argument("--decode-log-interval", type=int, default=40)
    p.add_argument("--standin-load-s", type=float, default=float(_env_default("load_s", "0.3")))
    p.add_argument("--standin-capture-s", type=float, default=float(_env_default("capture_s", "0.3")))
    p.add_argument("--standin-tok-s", type=float, default=float(_env_default("tok_s", "200")))
    p.add_argument("--standin-crash", nargs="?", const="capture", default=_env_default("crash", "") or None,
                   choices=("load", "capture", "serve"))
    p.add_argument("--standin-ignore-term", action="store_true",
                   default=_env_default("ignore_term", "") not in ("", "0"))
    p.add_argument("--standin-no-metrics", action="store_true",
                   default=_env_default("no_metrics", "") not in ("", "0"))
    p.add_argument("--standin-cold-first-token-s", type=float,
                   default=float(_env_default("cold_first_token_s", "0")))
    # the real flags the response surface reads (cockpit/sandbox/surface.py)
    p.add_argument("--cuda-graph-max-bs", type=int, default=None)
    p.add_argument("--chunked-prefill-size", type=int, default=None)
    p.add_argument("--moe-runner-backend", default=None)
    p.add_argument("--mem-fraction-static", type=float, default=None)
    p.add_argument("--enable-torch-compile", action="store_true")
    p.add_argument("--standin-surface", action="store_true", default=_env_default("surface", "") not in ("", "0"))
    p.add_argument("--standin-noise", type=float, default=float(_env_default("noise", "0")))
    p.add_argument("--standin-seed", type=int, default=int(_env_default("seed", "0")))
    args, _unknown = p.parse_known_args(argv)  # every other real flag: accepted, ignored
    args.served_model_name = args.served_model_name or args.model_path
    return args


# --- the "scheduler": load, capture, and the batch accounting ------------------------------

MAX_TOTAL_TOKENS = 400_000
BUCKETS = (0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
HISTOGRAMS = ("time_to_first_token_seconds", "inter_token_latency_seconds", "e2e_request_latency_seconds")
CONTEXT_LEN = 131_072
_SITE = "/usr/local/lib/python3.11/dist-packages"


class Scheduler:
    """Counts running and queued requests and KV tokens; writes the batch lines."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.cond = threading.Condition()
        self.running = 0
        self.queued = 0
        self.kv_tokens = 0
        self.gen_tokens_since = 0
        self.last_decode_log = time.monotonic()
        self.prompt_tokens_total = 0
        self.gen_tokens_total = 0
        self.requests_total = 0
        # histograms: name -> [bucket counts (cumulative at render), sum, count]
        # name -> [bucket counts, sum, count]
        self.hist: dict[str, list[Any]] = {name: [[0] * len(BUCKETS), 0.0, 0] for name in HISTOGRAMS}
        self.cold_s = args.standin_cold_first_token_s
        """Still to add to the next request's first token (--standin-cold-first-token-s)."""
        self.busy_level, self.busy_until = 0, 0.0
        self.surface = _surface(args)
        """(surface module, flags, this launch's noise factor) with --standin-surface, else None."""

    def pace_s(self) -> float:
        """Seconds per token of one request now (the surface: the flags and the load)."""
        if self.surface is None:
            return 1.0 / max(self.args.standin_tok_s, 0.001)
        model, flags, noise = self.surface
        with self.cond:
            running = max(self.running, 1)
        return 1.0 / max(self.args.standin_tok_s * model.decode_factor(flags, running) * noise, 0.001)

    def first_token_s(self, prompt_tokens: int) -> float:
        if self.surface is None:
            return 0.0
        model, flags, _ = self.surface
        return model.prefill_s(flags, prompt_tokens)

    def power_lines(self) -> list[str]:
        """dcgm-exporter's power series for the surface's GPUs (gpu_source = "dcgm")."""
        if self.surface is None:
            return []
        model, flags, _ = self.surface
        with self.cond:
            recent = self.busy_level if time.monotonic() < self.busy_until else 0
            running = max(self.running, recent)
        lines = ["# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).", "# TYPE DCGM_FI_DEV_POWER_USAGE gauge",
                 "# HELP DCGM_FI_DEV_ENFORCED_POWER_LIMIT Enforced power limit (in W).",
                 "# TYPE DCGM_FI_DEV_ENFORCED_POWER_LIMIT gauge"]
        for gpu in range(max(flags.tp, 1)):
            labels = f'gpu="{gpu}",UUID="GPU-standin-{gpu}",device="nvidia{gpu}",modelName="STAND-IN GPU"'
            lines.append(f"DCGM_FI_DEV_POWER_USAGE{{{labels}}} {model.power_w(flags, running):.3f}")
            lines.append(f"DCGM_FI_DEV_ENFORCED_POWER_LIMIT{{{labels}}} {model.LIMIT_W:.1f}")
        return lines

    def take_cold(self) -> float:
        """The cold first request's extra wait: once, for the first request that asks."""
        with self.cond:
            cold, self.cold_s = self.cold_s, 0.0
        return cold

    def admit(self, prompt_tokens: int) -> None:
        """Wait for a running slot (queued meanwhile), then log the prefill batch."""
        with self.cond:
            self.queued += 1
            while self.running >= self.args.max_running_requests:
                self.cond.wait()
            self.queued -= 1
            running_before = self.running
            self.running += 1
            now = time.monotonic()
            # the power draw follows the load with some lag (as a GPU's does): the busiest level
            # of the last half second, so a short point's samples see its load
            self.busy_level = max(self.busy_level if now < self.busy_until else 0, self.running)
            self.busy_until = now + 0.5
            self.kv_tokens += prompt_tokens
            self.prompt_tokens_total += prompt_tokens
            usage = self.kv_tokens / MAX_TOTAL_TOKENS
            queued = self.queued
        emit(f"Prefill batch, #new-seq: 1, #new-token: {prompt_tokens}, #cached-token: 0, "
             f"token usage: {usage:.2f}, #running-req: {running_before}, #queue-req: {queued}, "
             f"#pending-token: 0, cuda graph: False, input throughput (token/s): {prompt_tokens * 10:.2f}")

    def token(self) -> None:
        with self.cond:
            self.kv_tokens += 1
            self.gen_tokens_since += 1
            self.gen_tokens_total += 1

    def finish(self, held_tokens: int) -> None:
        with self.cond:
            self.running -= 1
            self.kv_tokens -= held_tokens
            self.requests_total += 1
            self.cond.notify()

    def observe(self, name: str, value: float) -> None:
        with self.cond:
            counts, _, _ = h = self.hist[name]
            for i, bound in enumerate(BUCKETS):
                if value <= bound:
                    counts[i] += 1
                    break
            h[1] += value
            h[2] += 1

    def decode_logger(self) -> None:
        """A decode line every `--decode-log-interval` decode steps while requests run
        (one step makes one token per running request, at tok_s steps a second)."""
        period = max(self.args.decode_log_interval / max(self.args.standin_tok_s, 0.001), 0.05)
        while True:
            time.sleep(period)
            with self.cond:
                now = time.monotonic()
                elapsed, self.last_decode_log = now - self.last_decode_log, now
                tokens, self.gen_tokens_since = self.gen_tokens_since, 0
                running, queued, kv = self.running, self.queued, self.kv_tokens
            if running:
                emit(f"Decode batch, #running-req: {running}, #token: {kv}, token usage: "
                     f"{kv / MAX_TOTAL_TOKENS:.2f}, cuda graph: True, gen throughput (token/s): "
                     f"{tokens / elapsed:.2f}, #queue-req: {queued}")

    def metrics(self) -> str:
        labels = f'model_name="{self.args.served_model_name}",engine_type="unified",tp_rank="0",pp_rank="0"'
        with self.cond:
            gauges = {"num_running_reqs": self.running, "num_queue_reqs": self.queued,
                      "num_used_tokens": self.kv_tokens, "token_usage": self.kv_tokens / MAX_TOTAL_TOKENS,
                      "gen_throughput": float(self.gen_tokens_since), "max_total_num_tokens": MAX_TOTAL_TOKENS}
            counters = {"prompt_tokens_total": self.prompt_tokens_total,
                        "generation_tokens_total": self.gen_tokens_total,
                        "num_requests_total": self.requests_total}
            hist = {name: (list(h[0]), h[1], h[2]) for name, h in self.hist.items()}
        lines = []
        for name, (counts, total, n) in hist.items():
            lines += [f"# HELP sglang:{name} {name}.", f"# TYPE sglang:{name} histogram"]
            running = 0
            for bound, c in zip(BUCKETS, counts):
                running += c
                lines.append(f'sglang:{name}_bucket{{{labels},le="{bound}"}} {float(running)}')
            lines += [f'sglang:{name}_bucket{{{labels},le="+Inf"}} {float(n)}',
                      f"sglang:{name}_sum{{{labels}}} {total}", f"sglang:{name}_count{{{labels}}} {float(n)}"]
        for name, value in gauges.items():
            lines += [f"# HELP sglang:{name} {name}.", f"# TYPE sglang:{name} gauge",
                      f"sglang:{name}{{{labels}}} {float(value)}"]
        for name, value in counters.items():
            lines += [f"# HELP sglang:{name} {name}.", f"# TYPE sglang:{name} counter",
                      f"sglang:{name}{{{labels}}} {float(value)}"]
        return "\n".join(lines + self.power_lines()) + "\n"


def _surface(args: argparse.Namespace) -> tuple | None:
    if not args.standin_surface:
        return None
    import random

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import surface  # type: ignore[import-not-found]  # cockpit/sandbox/surface.py, beside this file (run as a script)

    noise = 1.0
    if args.standin_noise > 0:
        noise = max(0.5, random.Random(args.standin_seed * 100_003 + os.getpid()).gauss(1.0, args.standin_noise))
    return surface, surface.flags_of(args), noise


def crash(where: str, child: subprocess.Popen | None, ranks: str = "TP0") -> None:
    """A real-looking scheduler crash: the traceback, SGLang's sigquit line, exit code 1."""
    frames = {
        "load": [("srt/model_executor/model_runner.py", 612, "load_model",
                  "self.model = get_model("),
                 ("srt/model_loader/loader.py", 447, "load_model",
                  "model = _initialize_model("),
                 ("torch/nn/modules/module.py", 1340, "to", "return self._apply(convert)")],
        "capture": [("srt/model_executor/model_runner.py", 1580, "init_device_graphs",
                     "self.graph_runner = graph_runners[self.device](self)"),
                    ("srt/model_executor/cuda_graph_runner.py", 380, "__init__", "self.capture()"),
                    ("srt/model_executor/cuda_graph_runner.py", 498, "capture",
                     ") = self.capture_one_batch_size(bs, forward)"),
                    ("torch/cuda/graphs.py", 186, "__exit__", "self.cuda_graph.capture_end()")],
        "serve": [("srt/managers/scheduler.py", 1020, "event_loop_overlap",
                   "batch_result = self.run_batch(batch)"),
                  ("srt/managers/tp_worker.py", 240, "forward_batch_generation",
                   "logits_output, can_run_cuda_graph = self.model_runner.forward("),
                  ("torch/nn/modules/module.py", 1773, "_wrapped_call_impl",
                   "return self._call_impl(*args, **kwargs)")],
    }[where]
    lines = [f"[{_ts()} {ranks}] Scheduler hit an exception: Traceback (most recent call last):",
             f'  File "{_SITE}/sglang/srt/managers/scheduler.py", line 2712, in run_scheduler_process',
             "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, moe_ep_rank, pp_rank, dp_rank)"
             if where != "serve" else "    scheduler.event_loop_overlap()"]
    for path, line, func, code in frames:
        root = _SITE if path.startswith("torch/") else f"{_SITE}/sglang"
        lines += [f'  File "{root}/{path}", line {line}, in {func}', f"    {code}"]
    lines.append("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
                 "total capacity of 79.19 GiB of which 1.06 GiB is free. Including non-PyTorch memory, "
                 "this process has 78.12 GiB memory in use. Of the allocated memory 75.31 GiB is "
                 "allocated by PyTorch, and 1.20 GiB is reserved by PyTorch but unallocated.")
    raw("\n".join(lines) + "\n\n")
    emit("Received sigquit from a child process. It usually means the child failed.", None)
    if child is not None:
        child.kill()
        child.wait()
    sys.stdout.flush()
    os._exit(1)


# --- HTTP ----------------------------------------------------------------------------------

def make_handler(args: argparse.Namespace, sched: Scheduler, child: subprocess.Popen | None) -> type:
    model = args.served_model_name

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "uvicorn"
        sys_version = ""

        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            try:
                phrase = self.responses[int(code)][0]
            except (KeyError, ValueError):
                phrase = ""
            emit(f'INFO:     {self.client_address[0]}:{self.client_address[1]} - '
                 f'"{self.command} {self.path} HTTP/1.1" {code} {phrase}', None)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (stdlib name)
            pass

        def _json(self, obj: object, code: int = 200) -> None:
            body = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _text(self, text: str, ctype: str = "text/plain; version=0.0.4; charset=utf-8") -> None:
            body = text.encode()
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path in ("/health", "/health_generate"):
                self._text("", "text/plain")
            elif path == "/v1/models":
                self._json({"object": "list", "data": [{
                    "id": model, "object": "model", "created": int(time.time()), "owned_by": "sglang",
                    "root": args.model_path, "max_model_len": CONTEXT_LEN}]})
            elif path in ("/model_info", "/get_model_info"):
                self._json({"model_path": args.model_path, "tokenizer_path": args.model_path,
                            "is_generation": True, "preferred_sampling_params": None})
            elif path in ("/server_info", "/get_server_info"):
                self._json({"model_path": args.model_path, "served_model_name": model, "tp_size": args.tp,
                            "port": args.port, "host": args.host, "version": "0.0.0-standin",
                            "max_total_num_tokens": MAX_TOTAL_TOKENS,
                            "max_running_requests": args.max_running_requests,
                            "internal_states": [{"last_gen_throughput": 0.0}]})
            elif path == "/metrics" and not args.standin_no_metrics:
                self._text(sched.metrics())
            else:
                self._json({"detail": "Not Found"}, 404)

        def do_POST(self) -> None:
            path = self.path.split("?", 1)[0]
            length = int(self.headers.get("Content-Length") or 0)
            try:
                req = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._json({"error": {"message": "invalid JSON"}}, 400)
                return
            if path == "/generate":
                sp = req.get("sampling_params") or {}
                prompt = req.get("text") if req.get("text") is not None else req.get("input_ids", "")
                self._generate("generate", prompt, int(sp.get("max_new_tokens", 16)), bool(req.get("stream")))
            elif path == "/v1/completions":
                self._generate("completions", req.get("prompt", ""), int(req.get("max_tokens") or 16),
                               bool(req.get("stream")))
            elif path == "/v1/chat/completions":
                prompt = " ".join(str(m.get("content", "")) for m in req.get("messages", []))
                self._generate("chat", prompt, int(req.get("max_tokens") or req.get("max_completion_tokens") or 16),
                               bool(req.get("stream")))
            else:
                self._json({"detail": "Not Found"}, 404)

        def _generate(self, kind: str, prompt: object, max_tokens: int, stream: bool) -> None:
            if isinstance(prompt, list):
                n_prompt = len(prompt) if prompt and not isinstance(prompt[0], str) else sum(
                    len(str(p).split()) for p in prompt)
            else:
                n_prompt = max(1, len(str(prompt).split()))
            rid = uuid.uuid4().hex
            start = time.perf_counter()
            sched.admit(n_prompt)
            if args.standin_crash == "serve":
                crash("serve", child)
            cold = sched.take_cold() + sched.first_token_s(n_prompt)
            held = n_prompt
            text = ""
            try:
                if stream:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-cache")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    self.close_connection = True
                last = start
                for i in range(max_tokens):
                    time.sleep(sched.pace_s() + (cold if i == 0 else 0.0))
                    sched.token()
                    now = time.perf_counter()
                    sched.observe("time_to_first_token_seconds" if i == 0 else "inter_token_latency_seconds",
                                  now - last)
                    last = now
                    held += 1
                    piece = f" tok{i}"
                    text += piece
                    if stream:
                        done = i == max_tokens - 1
                        self.wfile.write(b"data: " + json.dumps(
                            self._chunk(kind, rid, piece, text, n_prompt, i + 1, done, start)).encode() + b"\n\n")
                        self.wfile.flush()
                if stream:
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                else:
                    self._json(self._whole(kind, rid, text, n_prompt, max_tokens, start))
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client left (a cancelled bench): abort the request
            finally:
                sched.observe("e2e_request_latency_seconds", time.perf_counter() - start)
                sched.finish(held)

        def _chunk(self, kind: str, rid: str, piece: str, text: str, n_prompt: int, n_out: int,
                   done: bool, start: float) -> dict:
            if kind == "generate":  # SGLang's native stream: the text so far, cumulative
                return {"text": text, "output_ids": list(range(n_out)), "meta_info": {
                    "id": rid, "finish_reason": {"type": "length", "length": n_out} if done else None,
                    "prompt_tokens": n_prompt, "completion_tokens": n_out, "cached_tokens": 0,
                    "e2e_latency": time.perf_counter() - start}, "index": 0}
            finish = "length" if done else None
            if kind == "chat":
                choice: dict = {"index": 0, "delta": {"role": "assistant", "content": piece},
                                "logprobs": None, "finish_reason": finish}
                obj = "chat.completion.chunk"
            else:
                choice = {"index": 0, "text": piece, "logprobs": None, "finish_reason": finish}
                obj = "text_completion"
            chunk = {"id": rid, "object": obj, "created": int(time.time()), "model": model, "choices": [choice]}
            if done:
                chunk["usage"] = {"prompt_tokens": n_prompt, "completion_tokens": n_out,
                                  "total_tokens": n_prompt + n_out}
            return chunk

        def _whole(self, kind: str, rid: str, text: str, n_prompt: int, n_out: int, start: float) -> dict:
            if kind == "generate":
                return {"text": text, "output_ids": list(range(n_out)), "meta_info": {
                    "id": rid, "finish_reason": {"type": "length", "length": n_out},
                    "prompt_tokens": n_prompt, "completion_tokens": n_out, "cached_tokens": 0,
                    "e2e_latency": time.perf_counter() - start}}
            usage = {"prompt_tokens": n_prompt, "completion_tokens": n_out, "total_tokens": n_prompt + n_out}
            if kind == "chat":
                choice: dict = {"index": 0, "message": {"role": "assistant", "content": text},
                                "logprobs": None, "finish_reason": "length"}
                obj = "chat.completion"
            else:
                choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": "length"}
                obj = "text_completion"
            return {"id": rid, "object": obj, "created": int(time.time()), "model": model,
                    "choices": [choice], "usage": usage}

    return Handler


# --- the launch sequence -------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    ranks = [f"TP{i}" for i in range(max(args.tp, 1))]
    if args.standin_surface:
        probe = _surface(args)
        assert probe is not None
        args.standin_crash = args.standin_crash or probe[0].crash_phase(probe[1])
        if args.enable_torch_compile:
            args.standin_load_s *= 2  # compiling takes its time at start
    if args.standin_ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    emit(f"server_args=ServerArgs(model_path={args.model_path!r}, tokenizer_path={args.model_path!r}, "
         f"tokenizer_mode='auto', load_format='auto', dtype='auto', kv_cache_dtype='auto', "
         f"host={args.host!r}, port={args.port}, mem_fraction_static={args.mem_fraction_static or 0.88}, "
         f"max_running_requests={args.max_running_requests}, tp_size={args.tp}, dp_size=1, "
         f"served_model_name={args.served_model_name!r}, decode_log_interval={args.decode_log_interval}, "
         f"enable_metrics={not args.standin_no_metrics}, standin=True)", None)
    # the "scheduler" process: real SGLang runs one per rank; a stop must reach it too
    child_code = ("import signal, time\n"
                  + ("signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" if args.standin_ignore_term else "")
                  + "while True: time.sleep(3600)\n")
    child = subprocess.Popen([sys.executable, "-c", child_code, "sglang::scheduler_TP0"],
                             stdin=subprocess.DEVNULL)

    def _term(_sig: int, _frame: object) -> None:
        emit("INFO:     Shutting down", None)
        emit("INFO:     Finished server process [%d]" % os.getpid(), None)
        child.kill()
        os._exit(0)

    if not args.standin_ignore_term:
        signal.signal(signal.SIGTERM, _term)

    for r in ranks:
        emit("Init torch distributed begin.", r)
    for r in ranks:
        emit("Init torch distributed ends. mem usage=0.00 GB", r)
    for r in ranks:
        emit("Load weight begin. avail mem=78.50 GB", r)
    steps = 4
    for i in range(1, steps + 1):
        time.sleep(args.standin_load_s / steps)
        raw(f"Loading safetensors checkpoint shards: {i * 100 // steps:3d}% Completed | {i}/{steps} "
            f"[00:0{i}<00:0{steps - i},  1.00it/s]\n")
    if args.standin_crash == "load":
        crash("load", child, ranks[0])
    for r in ranks:
        emit("Load weight end. elapsed=%.2f s, type=LlamaForCausalLM, dtype=torch.bfloat16, "
             "avail mem=63.40 GB, mem usage=15.10 GB." % args.standin_load_s, r)
    for r in ranks:
        emit(f"KV Cache is allocated. dtype: torch.bfloat16, #tokens: {MAX_TOTAL_TOKENS}, "
             "K size: 24.41 GB, V size: 24.41 GB", r)
        emit("Memory pool end. avail mem=14.20 GB", r)
    emit(f"max_total_num_tokens={MAX_TOTAL_TOKENS}, chunked_prefill_size=8192, max_prefill_tokens=16384, "
         f"max_running_requests={args.max_running_requests}, context_len={CONTEXT_LEN}, "
         "available_gpu_mem=14.20 GB", ranks[0])
    for r in ranks:
        emit("Capture cuda graph begin. This can take up to several minutes. avail mem=14.20 GB", r)
    emit("Capture cuda graph bs [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, "
         "128, 136, 144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248, 256]", ranks[0])
    for i, bs in enumerate((256, 128, 64, 8, 1)):
        time.sleep(args.standin_capture_s / 5)
        raw(f"Capturing batches (bs={bs} avail_mem=14.{10 - i:02d} GB): {(i + 1) * 20:3d}%|##| {i + 1}/5 "
            "[00:01<00:00,  3.10it/s]\n")
        if args.standin_crash == "capture" and i == 2:
            crash("capture", child, ranks[0])
    for r in ranks:
        emit("Capture cuda graph end. Time elapsed: %.2f s. mem usage=0.66 GB. avail mem=13.54 GB."
             % args.standin_capture_s, r)

    sched = Scheduler(args)
    # the listen backlog is taken in the constructor: set on the instance afterwards it was a
    # backlog of 5, and a 6th connection at once waited a TCP retransmit (a 1 s first token)
    server_class = type("StandinHTTPServer", (ThreadingHTTPServer,), {"request_queue_size": 2048,
                                                                        "daemon_threads": True})
    server = server_class((args.host, args.port), make_handler(args, sched, child))
    signal.signal(signal.SIGUSR1, lambda _sig, _frame: crash("serve", child))
    emit(f"INFO:     Started server process [{os.getpid()}]", None)
    emit("INFO:     Waiting for application startup.", None)
    emit("INFO:     Application startup complete.", None)
    emit(f"INFO:     Uvicorn running on http://{args.host}:{args.port} (Press CTRL+C to quit)", None)
    threading.Thread(target=sched.decode_logger, daemon=True).start()
    # the warm-up SGLang sends itself before it says it is ready
    emit('INFO:     127.0.0.1:40000 - "GET /model_info HTTP/1.1" 200 OK', None)
    emit("Prefill batch, #new-seq: 1, #new-token: 6, #cached-token: 0, token usage: 0.00, #running-req: 0, "
         "#queue-req: 0, #pending-token: 0, cuda graph: False, input throughput (token/s): 0.00", ranks[0])
    emit('INFO:     127.0.0.1:40002 - "POST /generate HTTP/1.1" 200 OK', None)
    emit("The server is fired up and ready to roll!", None)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        child.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
