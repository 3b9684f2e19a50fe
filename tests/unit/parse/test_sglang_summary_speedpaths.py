"""Every fast path of the byte-level `parse-log` summary, and its exact fallback, equals the
event-by-event path (LogParser + LogSummary): glued markers, fields outside batch lines,
the "greater than" value scan, the pivot/`l` needle scans, chunk splits (two processes),
CRLF, no trailing newline, colour codes, legacy lines."""

from __future__ import annotations

import io
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scan_engines import ENGINES, each_engine, folded_summary, scan_engine  # noqa: F401 (fixture)

from cockpit.parse import greater_than
from cockpit.parse.log import summary_fast as log_summary_fast
from cockpit.parse.log import summary_scan as log_summary_scan
from cockpit.parse.log.error_labels import _SUBSTRING_TRIGGERS, TRIGGER_EXAMPLES, line_error_labels
from cockpit.parse.log.sglang_patterns import BENCH_HEADER
from cockpit.parse.log.summary import Summary
from cockpit.parse.log.summary_scan import summarize_bytes, summarize_stream

DEC = "[2025-01-01 10:00:00 TP0] Decode batch. #running-req: {r}, #token: 84, token usage: 0.01, " \
      "cuda graph: True, gen throughput (token/s): {g}, #queue-req: {q}, "
PRE = "[2025-01-01 10:00:00 TP0] Prefill batch. #new-seq: 1, #new-token: 8, #cached-token: 0, " \
      "token usage: 0.00, #running-req: {r}, #queue-req: {q}"
ACCESS = 'INFO:     127.0.0.1:45678 - "POST /generate HTTP/1.1" 200 OK'
BENCH = ["============ Serving Benchmark Result ============",
         "Backend:                                 sglang",
         "Successful requests:                     100",
         "Mean TTFT (ms):                          12.5",
         "---------------Time to First Token----------------",
         "Median TTFT (ms):                        11",
         "=================================================="]
TRACE = ["Traceback (most recent call last):", '  File "a.py", line 3, in f', "    g()",
         "RuntimeError: CUDA error: an illegal memory access was encountered"]


# Every test here runs on both engines of the byte scan (tests/scan_engines.py).
pytestmark = pytest.mark.usefixtures("each_engine")
events = folded_summary


def check(text: str | bytes) -> Summary:
    data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    expected = events(data)
    assert summarize_bytes(data) == expected
    assert summarize_stream(io.BytesIO(data)) == expected  # the chunked stream path too
    return expected


def check_all_splits(data: bytes) -> None:
    """Scanning two halves and merging gives the same summary at every line boundary."""
    expected = events(data)
    cuts = [i + 1 for i, b in enumerate(data) if b == 10 and i + 1 < len(data)]
    scan_pass = log_summary_scan.engine_pass(data, 0, len(data))
    for mid in cuts:
        first = log_summary_fast.scan(data, 0, mid, scan_pass)
        first.merge(log_summary_fast.Partial.from_tuple(log_summary_fast.scan(data, mid, len(data), scan_pass).to_tuple()))
        bench = log_summary_scan._LastBench()
        bench.feed(data, first.header_at, len(data))
        assert log_summary_scan._result(first, bench) == expected, mid


def test_two_decode_markers_on_one_line_count_once() -> None:
    glued = DEC.format(r=3, g="10.5", q=1) + DEC.format(r=90, g="99.5", q=7)
    out = check(glued + "\n" + DEC.format(r=1, g="1.0", q=0) + "\n")
    assert out["decode_lines"] == 2 and out["max_running_req"] == 90 and out["last_gen_throughput"] == 1.0


def test_invalid_marker_before_a_valid_one_and_mixed_kinds() -> None:
    check("Decode batch size 4 then Decode batch. #running-req: 5\n")
    check("Decode batch [3], #running-req: 6, gen throughput (token/s): 2.5\n")
    check("Decode batch [x], #running-req: 6\nDecode batch [\u0663], #running-req: 7\n")
    out = check(PRE.format(r=4, q=2) + " " + DEC.format(r=8, g="3.25", q=9) + "\n")
    assert out["prefill_lines"] == 1 and out["decode_lines"] == 1 and out["max_queue_req"] == 9


def test_fields_outside_batch_rests_do_not_count() -> None:
    lines = [DEC.format(r=2, g="5.5", q=1),
             "#running-req: 999, #queue-req: 999, gen throughput (token/s): 999.0 (plain line)",
             "gen throughput (token/s): 888.0 Decode batch. #running-req: 3",  # before the marker
             PRE.format(r=4, q=2) + ", gen throughput (token/s): 777.0",  # gen on a prefill line
             DEC.format(r=1, g="4.5", q=0)]
    out = check("\n".join(lines) + "\n")
    assert (out["max_running_req"], out["max_queue_req"], out["max_gen_throughput"]) == (4, 2, 5.5)
    assert out["last_gen_throughput"] == 4.5
    out = check("\n".join(lines[:-1]) + "\n")  # the last gen in the file is not a valid one
    assert out["last_gen_throughput"] == 5.5


@pytest.mark.parametrize("values", [
    ["1", "2", "3", "10", "9", "100", "099", "0100", "101"],  # ramp, leading zeros
    ["0.00", "0.00", "0.5", "0.50", "0.05", "00.7", "0.7"],  # floats with the same int part
    ["35.10", "35.2", "35.19", "35.1999", "36", "35.99", "36.0", "36.01"],
    ["9", "99", "999", "9999", "10000", "99999"], ["12.", "12", "12.0", "11.999"],
])
def test_greater_than_scan_finds_the_max(values: list[str]) -> None:
    for order in (values, values[::-1], sorted(values, key=lambda v: random.Random(len(v)).random())):
        lines = [f"Decode batch. #running-req: {v.split('.')[0] or 0}, gen throughput (token/s): {v}, "
                 f"#queue-req: {v.split('.')[0] or 0}" for v in order]
        check("\n".join(lines * 3) + "\n")


def _number_pairs(seed: int, n: int = 3000):
    """(is_float, best, other) number texts: leading zeros, 9s, powers of ten, fractions."""
    rnd = random.Random(seed)
    for _ in range(n):
        is_float = rnd.random() < 0.5
        def num(is_float: bool = is_float) -> str:
            text = "0" * rnd.randint(0, 2) + str(rnd.choice([0, 1, 9, 10, 99, 100, rnd.randint(0, 3000)]))
            if is_float and rnd.random() < 0.7:
                text += "." + "".join(rnd.choice("0123456789") for _ in range(rnd.randint(1, 3)))
            return text
        yield is_float, num(), num()


@pytest.mark.parametrize("pattern", ["sre", "hyperscan superset"])
def test_greater_patterns_match_every_greater_number(pattern: str) -> None:
    import re

    make = greater_than.greater_lookahead if pattern == "sre" else greater_than.greater_prefixes
    for is_float, best, other in _number_pairs(5):
        rx = re.compile(b"L: " + make(best.encode(), is_float))
        if (float if is_float else int)(other) > (float if is_float else int)(best):
            assert rx.match(f"L: {other},".encode()), (best, other)
    assert greater_than.greater_prefixes(None, False) == rb"\d"


def test_one_needle_standing_for_several_labels() -> None:
    """`out of memory` ends five triggers of four labels: knowing one must not hide the rest."""
    lines = ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
             "[TP0] Decode out of memory. Try to lower your batch size.", "NPU out of memory",
             "[TP0] Decode out of memory happened. #retracted_reqs: 1",
             "alloc_req_slots runs out of memory", DEC.format(r=1, g="1.0", q=0)]
    rnd = random.Random(4)
    for _ in range(4):
        order = sorted(lines, key=lambda _line: rnd.random())
        out = check("\n".join(order * 2) + "\n")
        assert {"cuda_oom", "npu_oom", "kv_pool_oom", "retract"} <= set(out["errors"])


@pytest.mark.parametrize("text", [
    "Killed\n", "x\nKilled\n", "x\nKilled", "x\r\nKilled\r\n", "Killed \n", " Killed\n", "Killed\r\r\n",
    "Process Killed\n", "x\nKilled by signal\n",
])
def test_killed_line(text: str) -> None:
    check(text)


def test_every_trigger_has_a_needle() -> None:
    triggers = [s for _, subs in _SUBSTRING_TRIGGERS for s in subs] + list(TRIGGER_EXAMPLES) + [
        "The server is fired up and ready to roll", BENCH_HEADER, "new fill batch."]
    for trigger in triggers:
        assert any(n in trigger for n in log_summary_fast.NEEDLE_TEXTS), trigger


@pytest.mark.parametrize("trigger", [s for _, subs in _SUBSTRING_TRIGGERS for s in subs] + list(TRIGGER_EXAMPLES))
def test_each_trigger_alone_at_start_middle_end(trigger: str) -> None:
    assert line_error_labels(trigger)
    for text in (trigger, trigger + "\n", "a\n" + trigger + "\nb\n", DEC.format(r=1, g="2.0", q=0) + trigger + "\n",
                 "x" * 50 + trigger + "\r\n"):
        check(text)


def test_crlf_and_no_trailing_newline() -> None:
    lines = [DEC.format(r=5, g="12.5", q=2), PRE.format(r=6, q=3), *TRACE, "Killed", *BENCH,
             "The server is fired up and ready to roll!"]
    check("\r\n".join(lines) + "\r\n")
    check("\r\n".join(lines))
    check("\n".join(lines))
    check("\n".join(lines[:-1]) + "\n" + DEC.format(r=9, g="1.5", q=0))  # last line: a batch line


def test_colour_codes_and_legacy_lines() -> None:
    check("\x1b[32m" + DEC.format(r=5, g="12.5", q=2) + "\x1b[0m\n\x1b[31mKil\x1b[0mled\n")
    legacy = ("[04:40:55 TP0] new fill batch. #seq: 1. #cached_token: 0. #new_token: 8. "
              "#remaining_req: {q}. #running_req: {r}. tree_cache_hit_rate: 0.00%.")
    out = check("\n".join([legacy.format(q=4, r=3), legacy.format(q=1, r=11), DEC.format(r=2, g="1.0", q=0),
                           "new fill batch. #running-req: 7, #queue-req: 12 new fill batch."]) + "\n")
    assert out["prefill_lines"] == 3 and out["max_queue_req"] == 12 and out["max_running_req"] == 11


def test_bench_blocks() -> None:
    check("\n".join(BENCH) + "\n")
    check("\n".join(BENCH[:4]) + "\n")  # cut short
    check("\n".join(BENCH[:3] + BENCH) + "\n")  # a header inside an open block
    check("\n".join(BENCH + [DEC.format(r=1, g="1.0", q=0)] + BENCH[:1] + ["Mean TTFT (ms): 99"]) + "\n")


def test_chunk_splits_inside_bench_and_traceback() -> None:
    lines = [DEC.format(r=5, g="12.5", q=2), *BENCH[:4], PRE.format(r=6, q=3), *BENCH[4:], *TRACE,
             DEC.format(r=50, g="7.5", q=1), "Killed", *TRACE[:2], "The server is fired up and ready to roll",
             DEC.format(r=1, g="3.5", q=0), *BENCH[:3]]
    check_all_splits(("\n".join(lines) + "\n").encode())
    check_all_splits("\r\n".join(lines).encode())


@pytest.mark.parametrize("cpus", [2, 5])
def test_slices_in_forked_processes(monkeypatch: pytest.MonkeyPatch, tmp_path, cpus: int) -> None:
    monkeypatch.setattr(log_summary_scan, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(log_summary_scan, "_cpus", lambda: cpus)  # 5 slices on any machine
    rnd = random.Random(3)
    pool = [DEC.format(r=rnd.randint(0, 300), g=f"{rnd.uniform(0, 2000):.2f}", q=rnd.randint(0, 50))
            for _ in range(50)] + [PRE.format(r=rnd.randint(0, 300), q=rnd.randint(0, 500)) for _ in range(20)]
    pool += [ACCESS] * 20
    body = [rnd.choice(pool) for _ in range(3000)]
    body[1490:1490] = BENCH  # the block straddles the middle
    body[1510:1510] = TRACE
    body.append("Killed")
    data = ("\n".join(body) + "\n").encode()
    path = tmp_path / "big.log"
    path.write_bytes(data)
    expected = events(data)
    assert summarize_bytes(data) == expected
    with open(path, "rb") as f:
        assert summarize_stream(f) == expected  # mmap + fork
    assert expected["bench"] and expected["errors"]


@pytest.mark.parametrize("where", ["first slice (this process)", "a later slice (a child)", "nowhere"])
def test_colour_codes_in_one_slice_of_many(monkeypatch: pytest.MonkeyPatch, tmp_path, where: str) -> None:
    """Slices look for ESC themselves, in parallel; one found in any slice: the whole buffer
    is stripped and scanned again, and the summary is the parser's."""
    monkeypatch.setattr(log_summary_scan, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(log_summary_scan, "_cpus", lambda: 4)
    rnd = random.Random(5)
    body = [DEC.format(r=rnd.randint(0, 300), g=f"{rnd.uniform(0, 2000):.2f}", q=rnd.randint(0, 50))
            for _ in range(2000)]
    at = {"first slice (this process)": 10, "a later slice (a child)": 1900, "nowhere": None}[where]
    if at is not None:  # the greatest gen throughput of all, a colour code inside its label
        line = DEC.format(r=999, g="99999.50", q=77).replace("gen throughput", "gen \x1b[1mthroughput")
        assert "\x1b" in line
        body[at] = "\x1b[32m" + line + "\x1b[0m"
    data = ("\n".join(body) + "\n").encode()
    path = tmp_path / "coloured.log"
    path.write_bytes(data)
    expected = events(data)
    assert (expected["max_gen_throughput"] == 99999.5) is (at is not None)
    assert summarize_bytes(data) == expected
    with open(path, "rb") as f:
        assert summarize_stream(f) == expected  # mmap + fork


FRAGMENTS = [
    DEC.format(r=5, g="12.5", q=2), PRE.format(r=6, q=3), "Decode batch. ", "Prefill batch, ", "new fill batch. ",
    "#running-req: 7, ", "#running-req: 70", "#queue-req: 3, ", "#remaining_req: 9. ", "#running_req: 8. ",
    "gen throughput (token/s): 12.50, ", "gen throughput (token/s): 0.5", "Killed", "\n", "\r\n", "\r",
    *TRACE, *BENCH, "The server is fired up and ready to roll!", ACCESS, "out of memory", "NCCL error",
    "Fatal Python error", "(self.watchdog_timeout=", "l", "y", "é", "\udcff", " ", ",", ":", "0", "9", ".",
]
lines_text = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=8), max_size=40).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines_text)
def test_fuzz_fast_path_and_splits(text: str) -> None:
    data = text.encode("utf-8", "surrogateescape")
    assert summarize_bytes(data) == events(data)
    if data.count(b"\n") < 25:
        check_all_splits(data)


@pytest.mark.parametrize("chunk_bytes", [1, 50, 333, 4096])
def test_a_pipe_read_in_chunks(chunk_bytes: int) -> None:
    """A pipe is read in chunks cut at line ends, each scanned and the partials merged: a
    bench block, a traceback, colour codes and CRLF across chunk ends change nothing, and
    the last bench block counts even when it is cut short."""
    rnd = random.Random(11)
    lines = [DEC.format(r=rnd.randint(0, 300), g=f"{rnd.uniform(0, 900):.2f}", q=rnd.randint(0, 9)) for _ in range(30)]
    lines[5:5] = BENCH
    lines[12:12] = TRACE
    lines[20] = "\x1b[32m" + DEC.format(r="\x1b[1m999\x1b[0m", g="1.0", q=0) + "\x1b[0m\r"
    lines += ["The server is fired up and ready to roll", PRE.format(r=400, q=3), "Killed", *BENCH[:4]]
    data = "\n".join(lines).encode()  # no newline at the end
    expected = events(data)
    assert expected["bench"] == {"Successful requests": 100, "Mean TTFT (ms)": 12.5}  # the block cut short
    assert expected["max_running_req"] == 999  # read once the colour codes are gone
    assert summarize_stream(io.BytesIO(data), chunk_bytes=chunk_bytes) == expected


def test_many_legacy_lines_switch_to_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    legacy = "new fill batch. #seq: 1. #remaining_req: {q}. #running_req: {r}. x"
    text = "\n".join([legacy.format(q=i % 7, r=i % 11) for i in range(30)] + [DEC.format(r=2, g="1.0", q=0)]) + "\n"
    expected = check(text)
    monkeypatch.setattr(log_summary_fast, "LEGACY_LINES", 3)
    assert summarize_bytes(text.encode()) == expected
    check_all_splits(text.encode())
