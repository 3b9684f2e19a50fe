"""The bench_serving JSONL record (keys from sglang's own source, tests/data/bench/) and the
printed block as the fallback -> Benchmark fields."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from cockpit.model.session import Benchmark
from cockpit.parse.bench.result_jsonl import (
    RECORD_FIELDS,
    from_record,
    from_stdout,
    last_record,
    read_records,
    record_fields,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "bench"
RECORD_TEXT = (DATA / "bench_serving_0.5.23.jsonl").read_text()
STDOUT_TEXT = (DATA / "bench_serving_stdout.txt").read_text()


def test_record_of_sglang_source_gives_the_benchmark_fields() -> None:
    fields = record_fields(last_record(RECORD_TEXT))
    assert fields == {
        "total_tok_s": 2123.2, "output_tok_s": 1061.6, "request_throughput": 1.037, "ttft_ms": 412.7,
        "itl_ms": 14.67, "tpot_ms": 14.67, "e2e_latency_ms": 15420.5, "ttft_p99_ms": 640.9, "itl_p99_ms": 31.4,
        "duration_s": 61.733, "concurrency": 16, "dataset": "random", "input_len": 1024, "output_len": 1024,
        # medians, p99 E2E and the achieved concurrency, and one stream's speed from the mean
        # number in flight (1061.6 / 15.87)
        "ttft_median_ms": 388.0, "itl_median_ms": 14.2, "e2e_p99_ms": 15602.9, "max_concurrent_requests": 16,
        "output_tok_s_per_stream": 66.894,
        # every percentile the record holds, each from its own key (p90_ttft_ms, median_tpot_ms, ...)
        "ttft_p90_ms": 520.4, "ttft_p95_ms": 560.0, "itl_p90_ms": 15.1, "itl_p95_ms": 15.9,
        "tpot_median_ms": 14.66, "tpot_p90_ms": 14.8, "tpot_p95_ms": 14.85, "tpot_p99_ms": 14.95,
        "e2e_median_ms": 15401.2, "e2e_p90_ms": 15530.0, "e2e_p95_ms": 15561.3,
    }
    Benchmark(id="b1", label="x", **fields)  # every value is one the model takes


def test_parser_reads_only_keys_sglang_writes() -> None:
    keys = set(json.loads(RECORD_TEXT))
    assert set(RECORD_FIELDS) <= keys and "max_concurrent_requests" in keys
    assert {"max_concurrency", "dataset_name", "completed", "total_input_tokens", "total_output_tokens"} <= keys
    assert "request_goodput" not in keys  # sglang's client reports no goodput: none is made up


def test_goodput_where_the_client_reports_it() -> None:
    # vLLM's benchmark_serving with --goodput writes `request_goodput` (req/s within its SLOs)
    record = {**json.loads(RECORD_TEXT), "request_goodput": 0.82}
    assert record_fields(record)["request_goodput"] == 0.82


def test_counts_for_tokens_per_joule() -> None:
    outcome = from_record(last_record(RECORD_TEXT))
    assert (outcome.completed, outcome.total_tokens, outcome.source) == (64, 131072, "jsonl")


def test_last_of_several_runs_and_a_torn_line_is_skipped() -> None:
    first = json.loads(RECORD_TEXT)
    second = dict(first, max_concurrency=32, total_throughput=4000.0)
    text = json.dumps(first) + "\n" + json.dumps(second) + "\n" + '{"max_concurrency": 64, "total_thr'
    assert len(read_records(text)) == 2
    assert record_fields(last_record(text))["concurrency"] == 32


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1.0, True, "12", None])
def test_a_value_that_is_no_measurement_is_left_out(bad: object) -> None:
    record = dict(json.loads(RECORD_TEXT), total_throughput=bad)
    assert "total_tok_s" not in record_fields(record)


def test_no_completed_request_falls_back_to_the_asked_lengths() -> None:
    record = dict(json.loads(RECORD_TEXT), completed=0)
    fields = record_fields(record)
    assert (fields["input_len"], fields["output_len"]) == (1024, 1024)


def test_printed_block_is_the_fallback_with_the_same_figures() -> None:
    jsonl = from_record(last_record(RECORD_TEXT))
    printed = from_stdout(STDOUT_TEXT.splitlines())
    assert printed is not None and printed.source == "stdout"
    for name, value in jsonl.fields.items():
        if name == "dataset":  # not printed
            continue
        assert math.isclose(printed.fields[name], value, abs_tol=0.01), name
    assert (printed.completed, printed.total_tokens) == (64, 131072)


def test_no_block_and_an_unfinished_block_give_nothing() -> None:
    assert from_stdout(["Initial test run failed - Please make sure benchmark arguments are correctly specified."]) is None
    assert from_stdout(STDOUT_TEXT.splitlines()[:20]) is None


def test_the_means_and_the_medians_are_told_apart() -> None:
    # ttft_ms / itl_ms are the client's means; the medians have their own fields (0.5.23 writes both)
    record = dict(json.loads(RECORD_TEXT), mean_ttft_ms=900.0, median_ttft_ms=120.0, mean_itl_ms=30.0,
                  median_itl_ms=11.0)
    fields = record_fields(record)
    assert (fields["ttft_ms"], fields["ttft_median_ms"], fields["itl_ms"], fields["itl_median_ms"]) == (
        900.0, 120.0, 30.0, 11.0)


def test_per_stream_speed_is_from_the_achieved_concurrency_not_the_asked_one() -> None:
    # asked for 64 at once, only 8 ever ran together (8 prompts): a stream's speed is output / 8
    record = dict(json.loads(RECORD_TEXT), max_concurrency=64, max_concurrent_requests=8, output_throughput=800.0,
                  concurrency=8.0)
    fields = record_fields(record)
    assert (fields["concurrency"], fields["max_concurrent_requests"], fields["output_tok_s_per_stream"]) == (
        64, 8, 100.0)


def test_short_requests_do_not_overstate_the_achieved_concurrency() -> None:
    # What the real 0.5.23 client wrote at --max-concurrency 2 with requests shorter than 1 s
    # (benchmarks/real_bench_client.py): its peak counts a 1 s window, so it said 8. The
    # semaphore never lets more than 2 run; a stream's speed is output over the 1.74 in flight.
    record = dict(json.loads(RECORD_TEXT), max_concurrency=2, max_concurrent_requests=8, output_throughput=174.0,
                  concurrency=1.74)
    fields = record_fields(record)
    assert (fields["max_concurrent_requests"], fields["output_tok_s_per_stream"]) == (2, 100.0)
    without_mean = {k: v for k, v in record.items() if k != "concurrency"}
    assert record_fields(without_mean)["output_tok_s_per_stream"] == 87.0  # 174 / the capped peak 2


def test_output_details_are_kept_for_the_steady_energy_window() -> None:
    """`--output-details` appends sglang's per-request lists (its `result_details` keys) to the
    record: the outcome keeps them as they are; without them there are none."""
    record = json.loads(RECORD_TEXT.splitlines()[-1])
    assert from_record(record).details is None
    details = {"input_lens": [1024, 1024], "output_lens": [3, 2], "ttfts": [0.41, 0.39], "itls": [[0.01, 0.02], [0.01]],
               "generated_texts": ["a b c", "d e"], "errors": ["", ""]}
    outcome = from_record(record | details)
    assert outcome.details == {key: details[key] for key in ("ttfts", "itls", "input_lens", "output_lens", "errors")}
    assert from_record(record | {"ttfts": [0.4]}).details is None  # inter-token gaps missing: no timings
