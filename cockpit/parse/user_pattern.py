"""A pattern a person (or a received session) gives, compiled so that matching it cannot
freeze the app.

Python's `re` backtracks and has no time limit: `(A+)+B` over a line of 34 `A`s takes
2^34 steps, and a filter saved in `ui.log` runs over every line on every open. So:

* a pattern whose shape can backtrack without bound (a repeat around something that can
  itself match in more than one way: `(A+)+`, `(a|ab)*`, `(\\w\\s?)*`; or three or more
  unbounded repeats, whose cost grows as a power of the line's length) is matched by
  Hyperscan, an automaton whose time is linear in the text, the same answer for whether a
  line matches; where there is no Hyperscan wheel (it is built for x86-64 Linux) or it
  cannot take the pattern, it is matched as the literal text instead, and `note` says so;
* any other pattern is Python's `re`, exactly as before (the common case: `NCCL`,
  `queue-req: 3`, `error.*rank`).

The shape test reads `re`'s own parse tree, so it judges what `re` would run. Both kinds
of object answer `search(text)` (None or not) and `finditer(text)` (spans to highlight).
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import select
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

try:
    import hyperscan
except ImportError:  # pragma: no cover - where no wheel exists
    HYPERSCAN = False
else:
    HYPERSCAN = True

_parser: Any = importlib.import_module("re._parser")  # re's parser (private, stable in 3.11+)
_C: Any = importlib.import_module("re._constants")

_REPEATS = {_C.MAX_REPEAT, _C.MIN_REPEAT, _C.POSSESSIVE_REPEAT}
_UNBOUNDED_REPEATS = 3  # `a.*b.*c` (two) is common and cheap; three is a cube of the line


class MatchSpan(Protocol):
    def start(self) -> int: ...

    def end(self) -> int: ...


class Matcher(Protocol):
    """What `compile_user_pattern` gives: a `re.Pattern` or a `LinearPattern`."""

    def search(self, text: str, /) -> MatchSpan | None: ...

    def finditer(self, text: str, /) -> Iterator[MatchSpan]: ...


@dataclass(frozen=True, slots=True)
class Span:
    """One match to highlight (what `re.Match` gives: start, end)."""

    begin: int
    finish: int

    def start(self) -> int:
        return self.begin

    def end(self) -> int:
        return self.finish


def backtracking_risk(pattern: str, flags: int = 0) -> str | None:
    """Why matching `pattern` with `re` could take exponential (or high-power) time, or
    None when its shape cannot (the pattern must be a valid `re` pattern)."""
    tree = _parser.parse(pattern, flags)
    nested = _nested_repeat(tree)
    if nested:
        return nested
    if _count_unbounded(tree) >= _UNBOUNDED_REPEATS:
        return f"{_UNBOUNDED_REPEATS} or more unbounded repeats (time grows as a power of the line's length)"
    return None


def _children(op: Any, av: Any) -> list[Any]:
    """The sub-trees of one parsed item."""
    if op in _REPEATS:
        return [av[2]]
    if op is _C.SUBPATTERN:
        return [av[3]]
    if op is _C.BRANCH:
        return list(av[1])
    if op in (_C.ASSERT, _C.ASSERT_NOT):
        return [av[1]]
    if op is _C.ATOMIC_GROUP:
        return [av]
    if op is _C.GROUPREF_EXISTS:
        return [av[1]] + ([av[2]] if av[2] is not None else [])
    return []


def _has_choice(tree: Any) -> bool:
    """Whether `tree` holds a point where `re` may try more than one way (a repeat of
    varying count, an alternation)."""
    for op, av in tree:
        if op in _REPEATS and av[0] != av[1]:
            return True
        if op is _C.BRANCH:
            return True
        if any(_has_choice(child) for child in _children(op, av)):
            return True
    return False


def _nested_repeat(tree: Any) -> str | None:
    for op, av in tree:
        if op in _REPEATS and av[1] != 1 and op is not _C.POSSESSIVE_REPEAT and _has_choice(av[2]):
            return "a repeated group that can match the same text in more than one way, e.g. (A+)+"
        for child in _children(op, av):
            found = _nested_repeat(child)
            if found:
                return found
    return None


def _count_unbounded(tree: Any) -> int:
    n = 0
    for op, av in tree:
        if op in _REPEATS and av[1] is _C.MAXREPEAT and op is not _C.POSSESSIVE_REPEAT:
            n += 1
        n += sum(_count_unbounded(child) for child in _children(op, av))
    return n


# Hyperscan's compile time is not bounded either: `((((a+)+)+)+...)` 90 deep runs for
# minutes, `(\w+\s?){50}x` for 18 s. It runs in a forked child, killed past this.
COMPILE_TIMEOUT_S = 1.0


def _compile_bounded(expression: bytes, choices: tuple[int, ...], timeout_s: float) -> tuple[int, bytes]:
    """(the flags that compiled, the serialized database), compiled in a child process that
    is killed after `timeout_s`; ValueError with the reason when none compiles in time."""
    if not hasattr(os, "fork"):
        raise ValueError("no way to bound the compile here")
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: compile, send `flags` and the database (or b"!" and the error), exit
        try:
            os.close(read_fd)
            out = b"!no flags"
            for flags in choices:
                db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
                try:
                    db.compile(expressions=[expression], ids=[0], elements=1, flags=[flags])
                except hyperscan.error as exc:
                    out = b"!" + str(exc).encode()
                    continue
                out = flags.to_bytes(8, "big") + hyperscan.dumpb(db)
                break
            view = memoryview(out)
            while view:
                view = view[os.write(write_fd, view):]
        finally:
            os._exit(0)
    os.close(write_fd)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read_fd], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                raise ValueError(f"it took over {timeout_s:g} s to compile")
            data = os.read(read_fd, 1 << 20)
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(read_fd)
        os.waitpid(pid, 0)
    out = b"".join(chunks)
    if not out or out[:1] == b"!":
        raise ValueError(out[1:].decode("utf-8", "replace") or "the compile failed")
    return int.from_bytes(out[:8], "big"), out[8:]


class LinearPattern:
    """A pattern matched by Hyperscan (time linear in the text): `search` and `finditer`
    like `re.Pattern`'s, for the log pane's filter, search and highlights."""

    def __init__(self, pattern: str, caseless: bool, compile_timeout_s: float = COMPILE_TIMEOUT_S) -> None:
        self.pattern = pattern
        base = hyperscan.HS_FLAG_UTF8 | (hyperscan.HS_FLAG_CASELESS if caseless else 0)
        som, ucp = hyperscan.HS_FLAG_SOM_LEFTMOST, hyperscan.HS_FLAG_UCP  # UCP: \w, \d as `re` has them
        # Start of match gives the spans to highlight; a few shapes (one that can match
        # nothing, e.g. `(\w\s?)*$`) only compile without it: they filter, unhighlighted.
        choices = (base | som | ucp, base | som, base | ucp | hyperscan.HS_FLAG_ALLOWEMPTY,
                   base | hyperscan.HS_FLAG_ALLOWEMPTY)
        flags, serialized = _compile_bounded(pattern.encode(), choices, compile_timeout_s)
        db = hyperscan.loadb(serialized, hyperscan.HS_MODE_BLOCK)
        db.scratch = hyperscan.Scratch(db)  # a loaded database has none
        self._db, self.highlights = db, bool(flags & som)

    def _spans(self, text: str, first_only: bool) -> list[tuple[int, int]]:
        data = text.encode("utf-8", "replace")  # valid UTF-8, as HS_FLAG_UTF8 requires
        found: list[tuple[int, int]] = []

        def on_match(_id: int, start: int, end: int, _flags: int, _ctx: Any) -> bool | None:
            found.append((start, end))
            return True if first_only else None  # True stops the scan

        try:
            self._db.scan(data, match_event_handler=on_match)
        except hyperscan.error:
            if not (first_only and found):  # else: stopped by the handler at the first match
                raise
        if len(data) != len(text) and found:  # byte offsets -> characters
            found = [(len(data[:a].decode("utf-8", "ignore")), len(data[:b].decode("utf-8", "ignore")))
                     for a, b in found]
        return found

    def search(self, text: str, /) -> Span | None:
        found = self._spans(text, first_only=True)
        return Span(*found[0]) if found else None

    def finditer(self, text: str, /) -> Iterator[Span]:
        """Leftmost, longest, non-overlapping (as a greedy `re` pattern highlights)."""
        if not self.highlights:
            return
        longest: dict[int, int] = {}
        for start, end in self._spans(text, first_only=False):
            if end > longest.get(start, -1):
                longest[start] = end
        pos = 0
        for start in sorted(longest):
            if start >= pos and longest[start] > start:
                pos = longest[start]
                yield Span(start, pos)


@dataclass(frozen=True, slots=True)
class UserPattern:
    """What `compile_user_pattern` made: the matcher and, when it is not the pattern as
    given to `re`, one sentence saying why."""

    matcher: Matcher
    note: str | None = None


@functools.lru_cache(maxsize=64)  # the pane compiles on every view change; Hyperscan's compile is ~1 ms
def compile_user_pattern(pattern: str) -> UserPattern:
    """A person's pattern: a regex, or the literal text when it is not a valid one.
    Smart case: case-insensitive unless the pattern has an upper-case letter."""
    caseless = not any(c.isupper() for c in pattern)
    flags = re.IGNORECASE if caseless else 0
    try:
        compiled = re.compile(pattern, flags)
    except (re.error, OverflowError, RecursionError):
        return UserPattern(re.compile(re.escape(pattern), flags))
    try:
        risk = backtracking_risk(pattern, flags)
    except (re.error, OverflowError, RecursionError):
        risk = "a pattern too deep to judge"
    if risk is None:
        return UserPattern(compiled)
    if HYPERSCAN:
        try:
            return UserPattern(LinearPattern(pattern, caseless))
        except ValueError as exc:
            why = f"{risk}; the linear-time engine cannot take it ({exc})"
    else:
        why = f"{risk}; no linear-time engine on this machine"
    return UserPattern(re.compile(re.escape(pattern), flags), f"matched as literal text: {why}")
