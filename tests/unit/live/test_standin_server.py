"""The STAND-IN sglang server (cockpit/sandbox/sglang_server.py) read by cockpit's own parsers:
if these fail, the experiment-loop tests would be testing against a server unlike SGLang."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from standin.procs import STANDIN, free_port, http_get

from cockpit.live.experiment.server_runs import ServerRunTracker
from cockpit.parse.log.events import DecodeBatch, LogEvent, PrefillBatch
from cockpit.parse.log.sglang_log import parse_text
from cockpit.parse.metrics.prom_text import parse_exposition
from cockpit.parse.metrics.sglang_metrics import sglang_scrape


def _start(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen, int, Path]:
    port = free_port()
    log = tmp_path / "server.log"
    proc = subprocess.Popen([sys.executable, str(STANDIN), "--port", str(port), "--model-path", "org/m", *extra],
                            stdout=log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 30
    while "fired up" not in log.read_text():
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.05)
    return proc, port, log


def _states(text: str) -> tuple[list[str | None], ServerRunTracker, list[LogEvent]]:
    tracker, seen = ServerRunTracker(), list[str | None]()
    events = parse_text(text)
    for ev in events:
        tracker.apply(ev)
        if not seen or seen[-1] != tracker.state:
            seen.append(tracker.state)
    return seen, tracker, events


def _stream(port: int, path: str, body: dict) -> list[dict]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    chunks = []
    with urllib.request.urlopen(req, timeout=30) as r:
        for raw in r:
            line = raw.decode().strip()
            if line.startswith("data: ") and line != "data: [DONE]":
                chunks.append(json.loads(line[6:]))
            elif line == "data: [DONE]":
                chunks.append({"done": True})
    return chunks


def test_log_goes_loading_capturing_ready_and_batches_follow_the_load(tmp_path):
    proc, port, log = _start(tmp_path, "--max-running-requests", "2", "--standin-tok-s", "100",
                             "--decode-log-interval", "5")
    try:
        results: list[list[dict]] = []
        body = {"text": "one two three four", "sampling_params": {"max_new_tokens": 40}, "stream": True}
        threads = [threading.Thread(target=lambda: results.append(_stream(port, "/generate", body))) for _ in range(5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        scrape = sglang_scrape(parse_exposition(http_get(port, "/metrics")[1].decode()))
    finally:
        proc.terminate()
        proc.wait(10)
    seen, tracker, events = _states(log.read_text())
    assert seen == ["starting", "loading", "capturing", "ready", "stopped"]
    run = tracker.runs[0]
    assert run.kv_capacity == 400_000 and run.graph_capture_s == 0.3 and run.model == "org/m"
    prefill = [e for e in events if isinstance(e, PrefillBatch)]
    decode = [e for e in events if isinstance(e, DecodeBatch)]
    assert max(e.queue_req for e in prefill) >= 1  # 5 requests, 2 slots: some waited
    assert max(e.running_req for e in decode) == 2 and max(e.queue_req for e in decode) >= 1
    assert all(e.gen_throughput is not None for e in decode)
    # SGLang's native stream: cumulative text, completion_tokens counting up, a finish reason at the end
    for chunks in results:
        assert chunks[-1] == {"done": True} and len(chunks) == 41
        assert [c["meta_info"]["completion_tokens"] for c in chunks[:-1]] == list(range(1, 41))
        assert chunks[-2]["meta_info"]["finish_reason"] == {"type": "length", "length": 40}
        assert chunks[-2]["text"].endswith(" tok39") and chunks[-2]["text"].startswith(" tok0 tok1")
    assert scrape.counters["generation_tokens_total"] == 200 and scrape.counters["num_requests_total"] == 5
    assert scrape.missing == () and scrape.histograms["time_to_first_token_seconds"].count == 5


def test_openai_completions_stream_and_models(tmp_path):
    proc, port, _ = _start(tmp_path, "--served-model-name", "served")
    try:
        chunks = _stream(port, "/v1/completions", {"model": "served", "prompt": "hi", "max_tokens": 3, "stream": True})
        models = json.loads(http_get(port, "/v1/models")[1])
    finally:
        proc.terminate()
        proc.wait(10)
    assert [c["choices"][0]["text"] for c in chunks[:-1]] == [" tok0", " tok1", " tok2"]
    assert chunks[-2]["choices"][0]["finish_reason"] == "length" and chunks[-2]["usage"]["completion_tokens"] == 3
    assert models["data"][0]["id"] == "served" and models["data"][0]["root"] == "org/m"


def test_crash_flag_exits_1_with_a_traceback_the_tracker_calls_a_crash(tmp_path):
    log = tmp_path / "crash.log"
    done = subprocess.run([sys.executable, str(STANDIN), "--port", str(free_port()), "--standin-crash", "load"],
                          stdout=log.open("wb"), stderr=subprocess.STDOUT, timeout=30)
    assert done.returncode == 1
    seen, tracker, _ = _states(log.read_text())
    assert seen == ["starting", "loading", "error"]
    assert {"cuda_oom", "scheduler_exception", "child_failed"} <= tracker.runs[0].error_labels
