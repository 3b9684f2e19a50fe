"""RE2, the one linear-time regex engine: a person's log filter and a Prometheus `match`
(PromQL's regexes are RE2's syntax) are compiled and judged here.

google-re2 is a binary wheel (Linux x86-64/aarch64, macOS, Windows). Where it is missing,
`RE2` is False and callers fall back to something safe (cockpit/parse/user_pattern.py:
literal text; cockpit/model/prom_match.py: a syntax check by RE2's rules).
"""

from __future__ import annotations

import functools
from typing import Any

try:
    import re2 as _re2
except ImportError:  # pragma: no cover - a platform with no google-re2 wheel
    _re2 = None

RE2 = _re2 is not None

# RE2's time is linear in the text times the compiled program's size (its NFA, when the DFA's
# memory runs out on an adversarial line): a bound on the program bounds the time per line.
# 1,000 steps is far above a typed filter (`error.*rank` is 14, `(A|B)*C` 6); the worst
# measured, `a.{120}z` on 100,000 random mixed-script characters (DFA states blow up), scans
# in ~0.2 s on a loaded 2-core machine; the three freezes take 1-5 ms.
MAX_PROGRAM = 1_000
_MAX_MEM = 8 << 20  # RE2's budget for its program and DFA caches (its default; lazily used)


class LinearRegexError(ValueError):
    """RE2 will not take the pattern (the message says why, in RE2's words)."""


@functools.lru_cache(maxsize=32)
def compile_linear(pattern: str, *, caseless: bool = False, literal: bool = False, bounded: bool = True) -> Any:
    """The pattern compiled by RE2 (an object with `search`, `fullmatch` and `finditer` whose
    matches have `start()` and `end()`), without capture groups: only whole-match spans are
    asked for, and captures would take RE2 off its fast path. LinearRegexError when RE2
    refuses it or (`bounded`) its program is larger than MAX_PROGRAM."""
    if _re2 is None:
        raise LinearRegexError("no linear-time regex engine (google-re2) on this machine")
    options = _re2.Options()
    options.log_errors = False  # RE2 would print its error on the terminal the TUI draws on
    options.never_capture = True
    options.case_sensitive = not caseless
    options.literal = literal
    options.max_mem = _MAX_MEM
    options.dot_nl = not bounded  # PromQL's `.` matches a newline too (Prometheus 3)
    try:
        compiled = _re2.compile(pattern, options)
    except _re2.error as exc:
        raise LinearRegexError(_reason(exc)) from None
    size = compiled._regexp.ProgramSize()
    if bounded and size > MAX_PROGRAM:
        raise LinearRegexError(f"too large to match in bounded time ({size:,} steps compiled; at most {MAX_PROGRAM:,})")
    return compiled


def _reason(exc: Exception) -> str:
    text = exc.args[0] if exc.args else str(exc)
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return str(text)
