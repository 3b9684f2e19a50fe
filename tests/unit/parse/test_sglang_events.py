"""Event typing, rank tags, versions, traceback blocks, partial lines, runs and series."""

from __future__ import annotations

from cockpit.live.log.metrics import LogMetrics, MetricSeries, TimestampClock
from cockpit.parse.log.events import (
    BenchResult,
    CudaGraphCapture,
    DecodeBatch,
    ErrorBlock,
    ErrorLine,
    HttpRequest,
    KvCacheSize,
    LoadingWeights,
    PlainLine,
    PrefillBatch,
    Ranks,
    Ready,
    ServerArgs,
)
from cockpit.parse.log.sglang_log import LogParser, parse_line, parse_text, split_prefix


def test_rank_tags_any_order_multi_digit() -> None:
    for line in ("[2025-01-01 10:00:00 DP3 TP12 EP12] x", "[2025-01-01 10:00:00 EP12 TP12 DP3] x"):
        ts, ranks, _ = split_prefix(line)
        assert ts == "2025-01-01 10:00:00"
        assert ranks == Ranks(dp=3, tp=12, ep=12)
    assert split_prefix("[2026-01-29 13:12:36 PP1 TP0] y")[1] == Ranks(pp=1, tp=0)
    assert split_prefix("[04:40:55 TP7] y")[:2] == ("04:40:55", Ranks(tp=7))
    assert split_prefix("[2025-10-20 03:02:22.123] y")[0] == "2025-10-20 03:02:22.123"
    ev = parse_line("2025-10-20 03:02:22 INFO 31223 [DP3 TP3 EP3 scheduler_metrics_mixin.py:222] "
                    "Decode batch. #running-req: 4, gen throughput (token/s): 9.5, #queue-req: 0")
    assert isinstance(ev, DecodeBatch) and ev.ranks == Ranks(dp=3, tp=3, ep=3) and ev.running_req == 4


def test_decode_versions() -> None:
    old = parse_line("Decode batch. #running-req: 1010, #token: 55006, token usage: 0.93, "
                     "gen throughput (token/s): 1397.13, #queue-req: 12279")
    assert isinstance(old, DecodeBatch)
    assert (old.running_req, old.queue_req, old.token, old.token_usage, old.gen_throughput, old.graph) == (
        1010, 12279, 55006, 0.93, 1397.13, None)
    spec = parse_line("[2025-10-22 10:27:57 TP0] Decode batch. #running-req: 1, #token: 108, token usage: 0.00, "
                      "accept len: 2.17, accept rate: 0.54, cuda graph: True, gen throughput (token/s): 0.39, #queue-req: 0, ")
    assert (spec.accept_len, spec.accept_rate, spec.graph, spec.graph_backend) == (2.17, 0.54, True, "cuda")
    swa = parse_line("[2026-01-01 00:00:00] Decode batch, #running-req: 3, #full token: 10, full token usage: 0.25, "
                     "#swa token: 5, swa token usage: 0.10, npu graph: False, gen throughput (token/s): 5.00, #queue-req: 2,")
    assert (swa.token, swa.usage, swa.swa_token_usage, swa.graph_backend, swa.queue_req) == (10, 0.25, 0.10, "npu", 2)
    cut = parse_line("[2026-05-28 02:59:59 TP0] Decode batch, #running-req: 45, #token: 44672, token usaccept rate: 0.32, "
                     "npu graph: False, gen throughput (token/s): 863.65, #queue-req")
    assert cut.queue_req is None and cut.accept_rate is None and cut.gen_throughput == 863.65
    it = parse_line("[2026-01-01 00:00:00] Decode batch [77], #running-req: 2, #queue-req: 0")
    assert isinstance(it, DecodeBatch) and it.iteration == 77


def test_prefill_versions() -> None:
    legacy = parse_line("new fill batch. #seq: 1. #cached_token: 330. #new_token: 2172. "
                        "#remaining_req: 57. #running_req: 9. tree_cache_hit_rate: 69.16%")
    assert isinstance(legacy, PrefillBatch) and legacy.legacy
    assert (legacy.new_seq, legacy.cached_token, legacy.queue_req, legacy.running_req, legacy.cache_hit_rate) == (
        1, 330, 57, 9, 69.16)
    new = parse_line("[2026-05-28 08:41:19] Prefill batch, #new-seq: 1, #new-token: 11, #cached-token: 12, "
                     "token usage: 0.00, #running-req: 0, #queue-req: 0, #pending-token: 0, cuda graph: False, "
                     "input throughput (token/s): 11.79")
    assert (new.new_token, new.pending_token, new.graph, new.input_throughput) == (11, 0, False, 11.79)
    assert isinstance(parse_line("Decode out of memory happened. #retracted_reqs: 1"), ErrorLine)


def test_other_line_kinds() -> None:
    args = parse_line("[2025-01-01 00:00:00] server_args=ServerArgs(model_path='/m/Qwen', tp_size=8, dp_size=2, port=30000, trust_remote_code=True)")  # noqa: E501 - the real line, whole
    assert isinstance(args, ServerArgs) and args.model_path == "/m/Qwen" and args.args["tp_size"] == 8
    kv = parse_line("[2025-10-16 09:06:22 TP5] KV Cache is allocated. #tokens: 2795207, K size: 53.31 GB, V size: 53.31 GB")
    assert isinstance(kv, KvCacheSize) and kv.tokens == 2795207 and kv.size_gb == 106.62
    summ = parse_line("[2025-01-01 00:00:00 TP0] max_total_num_tokens=123, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=4097, context_len=32768")  # noqa: E501 - the real line, whole
    assert isinstance(summ, KvCacheSize) and summ.source == "summary" and summ.max_running_requests == 4097
    cap = parse_line("[2025-11-30 12:50:15] Capture cuda graph end. Time elapsed: 5.37 s. mem usage=1.44 GB. avail mem=38.05 GB.")
    assert isinstance(cap, CudaGraphCapture) and (cap.phase, cap.elapsed_s, cap.mem_usage_gb) == ("end", 5.37, 1.44)
    assert parse_line("Capturing batches (bs=1 avail_mem=38.07 GB): 100%|███|").phase == "progress"
    lw = parse_line("[2025-03-04 00:36:47 TP0] Load weight begin. avail mem=77.18 GB")
    assert isinstance(lw, LoadingWeights) and lw.avail_mem_gb == 77.18
    assert isinstance(parse_line("[x] The server is fired up and ready to roll!"), Ready)
    http = parse_line('[2025-05-14 09:31:43] INFO:     127.0.0.1:20504 - "POST /v1/completions HTTP/1.1" 200 OK')
    assert isinstance(http, HttpRequest) and (http.method, http.path, http.status) == ("POST", "/v1/completions", 200)
    assert parse_line('[t] INFO:     127.0.0.1:37664 - "POST /v1/completions HTTP/1.1"').status is None
    assert isinstance(parse_line("hello"), PlainLine)


def test_glued_progress_bar_keeps_record() -> None:
    line = ("Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:05<00:00]\r"
            "[2025-01-01 10:00:00 TP0] Decode batch. #running-req: 3, gen throughput (token/s): 12.5, #queue-req: 1")
    ev = parse_line(line)
    assert isinstance(ev, DecodeBatch) and ev.ts == "2025-01-01 10:00:00" and ev.gen_throughput == 12.5


def test_traceback_kept_whole() -> None:
    text = ("[2024-11-20 16:40:55 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
            '  File "/x/scheduler.py", line 1196, in run\n'
            "    scheduler.event_loop()\n"
            "           ^^^^^^^^^^^\n"
            "RuntimeError: CUDA error: an illegal memory access was encountered\n"
            "[2024-11-20 16:40:56] Received sigquit from a child process. It usually means the child failed.\n")
    events = parse_text(text)
    blocks = [e for e in events if isinstance(e, ErrorBlock)]
    assert len(blocks) == 1
    block = blocks[0]
    assert len(block.lines) == 5 and block.exception.startswith("RuntimeError")
    assert block.ranks == Ranks(tp=0) and block.ts == "2024-11-20 16:40:55"
    assert set(block.labels) >= {"traceback", "scheduler_exception", "cuda_error"}
    assert sum(1 for e in events if not isinstance(e, ErrorBlock)) == 6  # one event per line
    # continuation lines inherit the record's prefix
    assert events[1].ts == "2024-11-20 16:40:55"


def test_partial_lines_and_utf8_split() -> None:
    parser = LogParser()
    line = "[2025-01-01 10:00:00 TP0] Decode batch. #running-req: 3, gen throughput (token/s): 12.5 é\n".encode()
    out = []
    for i in range(len(line)):
        out += parser.feed(line[i:i + 1])
        if i < len(line) - 1:
            assert out == []
    assert len(out) == 1 and isinstance(out[0], DecodeBatch) and out[0].line.endswith("é")
    assert parser.feed(b"[2025-01-01 10:00:01] no newline yet") == []
    tail = parser.end()
    assert len(tail) == 1 and tail[0].line == "[2025-01-01 10:00:01] no newline yet"
    assert parser.feed("crlf\r\n")[0].line == "crlf"


def test_bench_block_event() -> None:
    text = ("============ Serving Benchmark Result ============\n"
            "Backend:                                 sglang    \n"
            "Traffic request rate:                    inf       \n"
            "Max reqeuest concurrency:                512       \n"
            "Mean TTFT (ms):                          38.23     \n"
            "---------------Time to First Token----------------\n"
            "==================================================\n")
    bench = [e for e in parse_text(text) if isinstance(e, BenchResult)]
    assert len(bench) == 1 and bench[0].complete and bench[0].backend == "sglang"
    assert bench[0].values == {"Max reqeuest concurrency": 512, "Mean TTFT (ms)": 38.23}


def test_server_runs_segmentation() -> None:
    text = "\n".join([
        "[2025-01-01 10:00:00] server_args=ServerArgs(model_path='m1', tp_size=1)",
        "[2025-01-01 10:00:01] Load weight begin. avail mem=70.00 GB",
        "[2025-01-01 10:00:05] Load weight end. type=X, dtype=torch.bfloat16, avail mem=50.00 GB, mem usage=20.00 GB.",
        "[2025-01-01 10:00:06] max_total_num_tokens=1000, max_prefill_tokens=16384, max_running_requests=64, context_len=4096",
        "[2025-01-01 10:00:06] Capture cuda graph begin. This can take up to several minutes. avail mem=40.00 GB",
        "[2025-01-01 10:00:09] Capture cuda graph end. Time elapsed: 3.00 s. mem usage=1.00 GB. avail mem=39.00 GB.",
        "[2025-01-01 10:00:10] The server is fired up and ready to roll!",
        "[2025-01-01 10:00:11] Decode batch. #running-req: 3, #token: 10, token usage: 0.01, gen throughput (token/s): 100.00, #queue-req: 0",  # noqa: E501 - the real line, whole
        "[2025-01-01 10:00:12 TP0] Scheduler hit an exception: Traceback (most recent call last):",
        "RuntimeError: boom",
        "[2025-01-01 11:00:00] server_args=ServerArgs(model_path='m2', tp_size=1)",
        "[2025-01-01 11:00:01] Load weight begin. avail mem=70.00 GB",
    ]) + "\n"
    metrics = LogMetrics()
    states = []
    parser = LogParser()
    for line in text.splitlines(keepends=True):
        metrics.apply_all(parser.feed(line))
        states.append(metrics.runs.state)
    metrics.apply_all(parser.end())
    assert states[:9] == ["starting", "loading", "loading", "loading", "capturing", "capturing", "ready", "ready", "error"]
    first, second = metrics.runs.runs
    assert (first.model, first.state, first.kv_capacity, first.graph_capture_s) == ("m1", "error", 1000, 3.0)
    assert first.summary.decode_lines == 1 and first.peak_gen_throughput == 100.0
    assert "scheduler_exception" in first.error_labels
    assert (second.model, second.state, second.summary.decode_lines) == ("m2", "loading", 0)


def test_metric_series_sum_over_dp_ranks() -> None:
    lines = [f"[2025-05-31 18:31:21 DP{r} TP{r}] Decode batch. #running-req: 8, #token: 100, token usage: 0.{r + 1}0, "
             f"gen throughput (token/s): 100.00, #queue-req: {r}" for r in range(4)]
    metrics = LogMetrics()
    metrics.apply_all(parse_text("\n".join(lines) + "\n"))
    assert metrics.gen_throughput.current == 400.0 and len(metrics.gen_throughput.points) == 1
    assert metrics.running_req.current == 32.0 and metrics.queue_req.current == 6.0
    assert metrics.token_usage.current == 0.4 and metrics.dp_ranks == 4
    # a rank silent for longer than stale_s drops out of the sum
    later = "[2025-05-31 18:35:00 DP0 TP0] Decode batch. #running-req: 1, gen throughput (token/s): 50.00, #queue-req: 0\n"
    metrics.apply_all(parse_text(later))
    assert metrics.gen_throughput.current == 50.0 and metrics.gen_throughput.peak == 400.0


def test_series_window_and_bounds() -> None:
    s = MetricSeries("x", window_s=10, maxlen=5)
    for t in range(20):
        s.add(float(t), float(t))
    assert len(s.points) == 5 and s.points[0][0] == 15.0 and s.current == 19.0 and s.peak == 19.0
    clock = TimestampClock()
    assert clock.seconds("23:59:59") == 86399
    assert clock.seconds("00:00:01") == 86401  # day rollover in a date-less log
    assert clock.seconds(None) == 86401
