"""Error labels of a log line, exactly as the corpus README defines them.

`line_error_labels` is the one definition, used by the event parser and, on candidate
lines only, by the fast summary scan. `ANCHORS_BYTES` finds those candidate lines: every
trigger contains one of its anchors, and the anchors start with bytes that are rare in
batch and access lines, so one regex pass over a big buffer stays cheap.
"""

from __future__ import annotations

import re

from cockpit.parse.log.sglang_patterns import ERROR_GATE

# (label, literal substrings); a line gets the label if it contains any of them.
_SUBSTRING_TRIGGERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("cuda_oom", ("CUDA out of memory", "CUDA error: out of memory", "OutOfMemoryError")),
    ("npu_oom", ("NPU out of memory",)),
    ("kv_pool_oom", ("Prefill out of memory. Try to lower", "Decode out of memory. Try to lower",
                     "alloc_req_slots runs out of memory")),
    ("retract", ("Decode out of memory happened", "KV cache pool is full. Retract requests")),
    ("nccl", ("NCCL error", "ncclInternalError", "ncclSystemError", "ncclUnhandledCudaError",
              "ncclRemoteError", "Watchdog caught collective operation timeout",
              "NCCL communicator was aborted")),
    ("traceback", ("Traceback (most recent call last)",)),
    ("scheduler_exception", ("Scheduler hit an exception", "Exception in ModelTpServer",
                             "Exception in ControllerSingle")),
    ("watchdog_timeout", ("Watchdog timeout (self.watchdog_timeout=",
                          "watchdog timeout (self.watchdog_timeout=")),
    ("child_failed", ("Received sigquit from a child", "Child process unexpectedly failed")),
    ("fatal_python_error", ("Fatal Python error",)),
    ("cuda_error", ("illegal memory access",)),
    ("memory_leak", ("memory leak detected",)),
)
# A Python frame line; faulthandler's `line N in func` (no comma) is deliberately not one.
_FRAME = re.compile(r'^\s*File ".*", line \d+, in ')
_CUDA_ERROR = re.compile(r"CUDA error: (?!out of memory)")


ALL_LABELS = tuple(sorted({label for label, _ in _SUBSTRING_TRIGGERS} | {"killed", "cuda_error"}))


# Labels after which the server process is gone (or about to be). `retract` and
# `memory_leak` are warnings; a bare traceback may be a request handler's, so only a
# rank-tagged (scheduler) traceback block counts as a crash.
FATAL_LABELS = frozenset({
    "scheduler_exception", "child_failed", "killed", "fatal_python_error", "watchdog_timeout",
    "kv_pool_oom", "cuda_error", "nccl", "cuda_oom", "npu_oom",
})


# The most telling label first: the cause before its consequences (a child failed, a traceback).
CRASH_LABEL_ORDER = ("cuda_oom", "npu_oom", "kv_pool_oom", "nccl", "cuda_error", "watchdog_timeout",
                     "fatal_python_error", "killed", "scheduler_exception", "child_failed", "traceback")


def telling_label(labels: set[str] | frozenset[str] | tuple[str, ...]) -> str | None:
    """The one label that names a crash best (`cuda_oom` over the `child_failed` it causes)."""
    return next((name for name in CRASH_LABEL_ORDER if name in labels), None) or (min(labels) if labels else None)


def line_error_labels(line: str) -> tuple[str, ...]:
    """Sorted labels this one physical line triggers (empty for almost every line)."""
    if ERROR_GATE.search(line) is None:  # the common case: no trigger word
        return ()
    found = {label for label, subs in _SUBSTRING_TRIGGERS if any(s in line for s in subs)}
    if "File" in line and _FRAME.match(line):
        found.add("traceback")
    if "CUDA error: " in line and _CUDA_ERROR.search(line):
        found.add("cuda_error")
    if line.rstrip("\r") == "Killed":
        found.add("killed")
    return tuple(sorted(found))


# Candidate lines for the byte-level scan. Every trigger above contains one anchor (tests
# check this). ANCHORS start with bytes that never occur in batch or access lines
# (C M U R W V B x y), so the regex rarely stops on a common line; triggers with no such
# substring are found with `bytes.find` on a long needle (fast skips) instead.
_ANCHORS = (
    "CUDA ", "CCL ", "CudaError", "Child process", "MemoryError", "U out of memory",
    "Retract", "RemoteError", "Received sigquit", "Watchdog ", "ModelTpServer",
    "ControllerSingle", "Benchmark Result", "xception", "ystemError", "ython error",
    "y. Try to lower", "y happened", "y access", "y leak detected", "y to roll",
)
# needle -> the only label it can add (the other triggers on its line have anchors)
NEEDLES = {
    "Traceback (most recent call last)": "traceback", "(self.watchdog_timeout=": "watchdog_timeout",
    "alloc_req_slots runs out of memory": "kv_pool_oom", "ncclInternalError": "nccl",
    '", line ': "traceback", "Killed": "killed",
}


def _grouped(anchors: tuple[str, ...]) -> bytes:
    groups: dict[str, list[str]] = {}
    for a in anchors:
        groups.setdefault(a[0], []).append(a[1:])
    return b"|".join(
        re.escape(head.encode()) + b"(?:" + b"|".join(re.escape(t.encode()) for t in tails) + b")"
        for head, tails in groups.items()
    )


ANCHORS_BYTES = re.compile(_grouped(_ANCHORS))
ANCHORS_TEXT = re.compile(_grouped(_ANCHORS).decode())
TRIGGER_EXAMPLES = tuple(s for _, subs in _SUBSTRING_TRIGGERS for s in subs) + (
    '  File "x.py", line 1, in f', "CUDA error: unspecified launch failure", "Killed",
)
