"""A pattern a person (or a received session) gives, compiled so that matching it cannot
freeze the app.

Python's `re` backtracks and has no time limit: `(A|B)*C` over a 100,000-character line
ran for minutes (and `q` and SIGTERM with it: the match holds the thread), `A.*A.*B` over
4,000 characters 9 s. So every pattern is matched by RE2 (cockpit/ground/linear_regex.py),
whose time is linear in the line and bounded by its compiled size:

* a pattern RE2 takes is matched by RE2 (RE2's syntax is Perl's less backreferences and
  lookaround; `\\w`, `\\d`, `\\b` are ASCII, `\\pL` is any letter);
* a valid `re` pattern RE2 refuses (`(?!x)`, `\\1`, a program past the size bound) is
  *refused*: `refused` is set and `note` says why; the pane does not take it from the
  prompt, and one from a file is matched as literal text, said;
* text that is no regex at all (`[INFO`) is matched as the literal text, as before;
* where there is no RE2 wheel, a pattern with regex syntax is matched as literal text, and
  `note` says so: no pattern ever reaches `re`'s backtracking.

Both kinds of object answer `search(text)` (None or not) and `finditer(text)` (spans to
highlight).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from cockpit.ground import linear_regex
from cockpit.ground.linear_regex import LinearRegexError, compile_linear


class MatchSpan(Protocol):
    def start(self) -> int: ...

    def end(self) -> int: ...


class Matcher(Protocol):
    """What `compile_user_pattern` gives: RE2's compiled pattern, or a literal `re.Pattern`."""

    def search(self, text: str, /) -> MatchSpan | None: ...

    def finditer(self, text: str, /) -> Iterator[MatchSpan]: ...


@dataclass(frozen=True, slots=True)
class UserPattern:
    """What `compile_user_pattern` made: the matcher and, when it is not the pattern as
    typed, one sentence saying why; `refused`: a regex the linear-time engine cannot take."""

    matcher: Matcher
    note: str | None = None
    refused: bool = False


def _literal(pattern: str, caseless: bool) -> Matcher:
    """The text itself: `re` on an escaped literal has no choice point to backtrack into."""
    return re.compile(re.escape(pattern), re.IGNORECASE if caseless else 0)


def _is_re(pattern: str, caseless: bool) -> bool:
    try:
        re.compile(pattern, re.IGNORECASE if caseless else 0)
    except (re.error, OverflowError, RecursionError):
        return False
    return True


@functools.lru_cache(maxsize=64)  # the pane compiles on every view change
def compile_user_pattern(pattern: str) -> UserPattern:
    """A person's pattern: a regex, or the literal text when it is not a valid one.
    Smart case: case-insensitive unless the pattern has an upper-case letter."""
    caseless = not any(c.isupper() for c in pattern)
    if not linear_regex.RE2:
        if re.escape(pattern) == pattern or not _is_re(pattern, caseless):
            return UserPattern(_literal(pattern, caseless))
        return UserPattern(_literal(pattern, caseless), "matched as literal text: no linear-time regex engine "
                                                         "(google-re2) on this machine")
    try:
        matcher: Any = compile_linear(pattern, caseless=caseless)
    except LinearRegexError as exc:
        if not _is_re(pattern, caseless):
            return UserPattern(_literal(pattern, caseless))  # no regex: the text as typed
        return UserPattern(_literal(pattern, caseless), f"not matched as a regex: {exc} (filters run in linear time: "
                                                         "no backreferences or lookaround); matched as literal text",
                           refused=True)
    return UserPattern(matcher)
