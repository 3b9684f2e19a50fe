"""The SGLang log patterns that more than one reader needs, defined once.

The event parser (sglang_log, batch_lines), the summary's definition (log_summary) and
the byte scanners (log_summary_fast, log_summary_hs) must agree on what a batch line, a
field value, readiness and a bench block look like; they all take them from here. Byte
patterns scan whole buffers; `text_form` gives the same pattern over str.
"""

from __future__ import annotations

import re

READY_TEXT = "The server is fired up and ready to roll"
BENCH_HEADER = "Serving Benchmark Result"  # the first line of a bench_serving result block

# A batch line: `Decode batch.`, `Prefill batch,`, `Prefill batch [12],`, v0.1.x `new fill batch.`
BATCH_MARKER = re.compile(r"(Decode|Prefill) batch(?:[.,]| \[(\d+)\],)|new fill batch\.")
# The same markers one kind at a time, as bytes: one literal-prefix pass per kind (sre
# skips fast to a literal; an alternation makes it try every byte, ~3x slower measured).
DECODE_MARKER = re.compile(rb"Decode batch(?:[.,]| \[\d+\],)")
PREFILL_MARKER = re.compile(rb"Prefill batch(?:[.,]| \[\d+\],)")
LEGACY_MARKER = re.compile(rb"new fill batch\.")

# The rest of a line after its first marker of a kind: findall over "\n"-joined lines yields
# one rest per line holding that kind (a line with two markers of a kind counts once).
DECODE_REST = re.compile(DECODE_MARKER.pattern + rb"([^\n]*)")
PREFILL_REST = re.compile(PREFILL_MARKER.pattern + rb"([^\n]*)")
LEGACY_REST = re.compile(LEGACY_MARKER.pattern + rb"([^\n]*)")

# Summary fields, read by substring in the rest of a batch line (what grep sees):
# label, then the value as group 1.
RUNNING_LABEL = b"#running-req: "
QUEUE_LABEL = b"#queue-req: "
GEN_LABEL = b"gen throughput (token/s): "
RUNNING = re.compile(rb"#running-req: (\d+)")
QUEUE = re.compile(rb"#queue-req: (\d+)")
GEN = re.compile(rb"gen throughput \(token/s\): (\d+(?:\.\d+)?)")
# v0.1.x `new fill batch.` lines name them differently
LEGACY_RUNNING = re.compile(rb"#running[_-]req: (\d+)")
LEGACY_QUEUE = re.compile(rb"#(?:remaining_req|queue-req): (\d+)")

# One cheap gate before the per-label error checks: every error trigger contains one of
# these words (error_labels holds the triggers; its tests fail if one does not).
ERROR_GATE = re.compile(r"memory|Memory|rror|Retract|Traceback|File|xception|atchdog|sigquit|"
                        r"Child process|Killed|NCCL communicator")


def text_form(rx: re.Pattern[bytes]) -> re.Pattern[str]:
    """The str pattern that matches what the byte pattern `rx` matches (ASCII classes)."""
    return re.compile(rx.pattern.decode(), re.ASCII)


DECODE_REST_TEXT = text_form(DECODE_REST)
PREFILL_REST_TEXT = text_form(PREFILL_REST)
LEGACY_REST_TEXT = text_form(LEGACY_REST)
RUNNING_TEXT = text_form(RUNNING)
QUEUE_TEXT = text_form(QUEUE)
GEN_TEXT = text_form(GEN)
LEGACY_RUNNING_TEXT = text_form(LEGACY_RUNNING)
LEGACY_QUEUE_TEXT = text_form(LEGACY_QUEUE)
