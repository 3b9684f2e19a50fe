"""`result_before`: the bench_serving block a person is looking at in a log view."""

from __future__ import annotations

from paths import CORPUS

from cockpit.parse.bench.bench_serving import record_fields, result_before


def block(concurrency: int, total: float, closed: bool = True) -> list[str]:
    lines = ["============ Serving Benchmark Result ============",
             "Backend:                                 sglang",
             f"Max request concurrency:                 {concurrency}",
             "Successful requests:                     10",
             "Total input tokens:                      10240",
             "Total generated tokens:                  5120",
             f"Total token throughput (tok/s):          {total}",
             "P99 TTFT (ms):                           95.5"]
    return lines + (["=" * 50] if closed else [])


def test_the_block_at_or_above_the_line_is_taken_not_the_newest():
    lines = ["server line"] + block(8, 100.5) + ["decode line"] * 3 + block(64, 900.25) + ["decode"]
    second = 1 + len(block(8, 100.5)) + 3  # the second header's line
    first = result_before(lines, second - 1)
    assert first is not None and first.values["Total token throughput (tok/s)"] == 100.5
    assert record_fields(first.values) == {"concurrency": 8, "total_tok_s": 100.5, "input_len": 1024,
                                           "output_len": 512, "ttft_p99_ms": 95.5}
    newest = result_before(lines, len(lines) - 1)
    assert newest is not None and record_fields(newest.values)["concurrency"] == 64
    assert result_before(lines, 0) is None, "no header at or above the first line"


def test_an_unclosed_block_is_read_to_the_end_and_a_header_alone_is_nothing():
    lines = block(4, 50.0, closed=False)
    result = result_before(lines, 2)  # the view's bottom inside the block: its header is above
    assert result is not None and not result.complete and result.values["Total token throughput (tok/s)"] == 50.0
    assert result_before(["============ Serving Benchmark Result ============"], 0) is None


def test_every_corpus_block_with_figures_is_found_from_its_last_line():
    found = 0
    for path in sorted((CORPUS / "sglang-logs").glob("*.log")):
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        if not any("Serving Benchmark Result" in line for line in lines):
            continue
        result = result_before(lines, len(lines) - 1)
        if result is not None:
            found += 1
            assert record_fields(result.values), path.name
    assert found >= 5
