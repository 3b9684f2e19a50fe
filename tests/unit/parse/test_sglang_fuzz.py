"""Hypothesis: the parser never raises, sanitize leaves no raw control character,
and the fast summary and the event path agree on arbitrary input."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scan_engines import ENGINES, scan_engine

from cockpit.ground.sanitize import sanitize
from cockpit.parse.log.error_labels import ANCHORS_TEXT, NEEDLES, TRIGGER_EXAMPLES, line_error_labels
from cockpit.parse.log.events import DecodeBatch, PrefillBatch
from cockpit.parse.log.sglang_log import LogParser, parse_text
from cockpit.parse.log.summary import LogSummary
from cockpit.parse.log.summary_scan import summarize_bytes

_RAW_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

FRAGMENTS = [
    "[2025-01-01 10:00:00 DP3 TP12 EP12] ", "[04:40:55 TP0] ", "Decode batch. ", "Prefill batch, ",
    "new fill batch. ", "#running-req: 7, ", "#queue-req: 3, ", "gen throughput (token/s): 12.50, ",
    "cuda graph: True, ", "Traceback (most recent call last):", '  File "a.py", line 3, in f',
    "RuntimeError: CUDA error: out of memory", "Killed", "\r", "\x1b[31m", "\x00", "\n", "\r\n",
    "============ Serving Benchmark Result ============", "Mean TTFT (ms):   12.5", "=" * 50,
    "The server is fired up and ready to roll!", "é", "\udcff", "█" * 5, "100%|", " ", ",", ":",
]
log_text = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=20), max_size=60).map("".join)
FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.binary(max_size=4000), st.integers(min_value=1, max_value=64))
def test_never_raises_on_bytes(data: bytes, step: int) -> None:
    parser = LogParser()
    for i in range(0, len(data), step):
        parser.feed(data[i:i + step])
    parser.end()
    summarize_bytes(data)


@FUZZ
@given(log_text)
def test_summary_and_events_agree(text: str) -> None:
    data = text.encode("utf-8", "surrogateescape")
    summary = LogSummary()
    for event in parse_text(data):
        summary.apply(event)
    for engine in ENGINES:
        with scan_engine(engine):
            assert summary.to_dict() == summarize_bytes(data), engine


@FUZZ
@given(st.text())
def test_sanitize_leaves_no_control(text: str) -> None:
    out = sanitize(text)
    assert _RAW_CONTROL.search(out) is None
    assert "\x1b" not in out


def test_sanitize_visible_placeholders() -> None:
    assert sanitize("a\x1b[2Jb") == "a␛[2Jb"
    assert sanitize("x\x00y\x7fz\tw") == "x␀y␡z\tw"
    assert sanitize("\u202eevil") == "<U+202E>evil"
    assert sanitize("plain text") == "plain text"


def test_big_lines_and_glued_bars() -> None:
    big = b"x" * (1 << 20)
    events = parse_text(big + b"\n" + big)
    assert len(events) == 2
    bar = ("Capturing batches (bs=1 avail_mem=38.07 GB):  50%|\u2588\u2588   | 1/2\r"
           "Capturing batches (bs=1 avail_mem=38.07 GB): 100%|\u2588\u2588\u2588\u2588\u2588| 2/2"
           "[2025-01-01 10:00:00 TP0] Prefill batch. #new-seq: 1, #running-req: 2, #queue-req: 4\n").encode()
    events = parse_text(bar * 3)
    assert [type(e) for e in events] == [PrefillBatch] * 3
    assert summarize_bytes(bar * 3)["prefill_lines"] == 3
    assert summarize_bytes(b"\x00\xff\xfe" * 1000 + b"\nDecode batch. #running-req: 1\n")["decode_lines"] == 1
    ev = parse_text(b"\x1b[32m[2025-01-01 10:00:00] Decode batch. #running-req: 5\x1b[0m\n")[0]
    assert isinstance(ev, DecodeBatch) and ev.running_req == 5 and "\x1b" not in ev.line


def test_every_trigger_has_an_anchor() -> None:
    for trigger in TRIGGER_EXAMPLES:
        assert ANCHORS_TEXT.search(trigger) or any(n in trigger for n in NEEDLES), trigger
        assert line_error_labels(trigger), trigger
