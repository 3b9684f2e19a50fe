"""Bounds on what a session file may hold, checked before the TOML parser sees it.

tomllib recurses once per nesting level (a few hundred `[` end in RecursionError), Python
refuses to convert integers over 4,300 digits (ValueError), and a file of tens of MB takes
tens of seconds to parse and validate. None of these is a session anyone writes, so each is
refused up front as a `Problem` at its line and column.
"""

from __future__ import annotations

import os
import re

from cockpit.model.text_limits import LONG_TEXT_KEYS as LONG_TEXT_KEYS  # re-exported: one definition
from cockpit.model.text_limits import MAX_LONG_TEXT as MAX_LONG_TEXT
from cockpit.model.text_limits import MAX_SHORT_TEXT as MAX_SHORT_TEXT
from cockpit.model.text_limits import long_texts
from cockpit.model.text_limits import text_bound as text_bound
from cockpit.store.errors import Problem

MB = 1024 * 1024
DEFAULT_MAX_SESSION_BYTES = 16 * MB
MAX_SESSION_BYTES_ENV = "COCKPIT_MAX_SESSION_BYTES"
# A session nests three levels at most (a table, an array, an inline table); 64 leaves room
# for hand-written files and stays far below tomllib's recursion depth.
MAX_NESTING = 64
# Digits (and underscores) of one number literal: far over any count, id or timestamp, and
# under Python's 4,300-digit conversion limit in every base TOML allows.
MAX_NUMBER_CHARS = 1000

_SIZE = re.compile(r"\s*(\d+)\s*([KMG]?)i?B?\s*", re.IGNORECASE)
_UNITS = {"": 1, "K": 1024, "M": MB, "G": 1024 * MB}


class SizeSettingError(ValueError):
    pass


def max_session_bytes() -> int:
    """The size limit: COCKPIT_MAX_SESSION_BYTES (bytes, or a number with K, M or G) or 16 MB."""
    raw = os.environ.get(MAX_SESSION_BYTES_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_SESSION_BYTES
    match = _SIZE.fullmatch(raw)
    if not match:
        raise SizeSettingError(
            f"{MAX_SESSION_BYTES_ENV}={raw!r} is not a size (bytes, or a number with K, M or G, e.g. 64M)"
        )
    return int(match.group(1)) * _UNITS[match.group(2).upper()]


# Problems listed for one file: the first ones and a count of the rest. Ten thousand
# lines of "unknown key" help nobody and take a terminal a while to print.
MAX_PROBLEMS_LISTED = 50


def capped(problems: list[Problem], most: int = MAX_PROBLEMS_LISTED) -> list[Problem]:
    """The first MOST problems, then one saying how many more there are."""
    if len(problems) <= most:
        return problems
    rest = len(problems) - most
    last = problems[most]
    return [*problems[:most], Problem(last.line, last.col, f"... and {rest:,} more problems (fix these and check again)")]


def _mb(size: int) -> str:
    text = f"{size / MB:.1f}"
    return text.removesuffix(".0")


def size_problem(size: int, limit: int) -> Problem | None:
    if size <= limit:
        return None
    if limit < MB:
        sizes = f"{size:,} bytes, over the {limit:,}-byte limit"
    else:
        sizes = f"{_mb(size)} MB, over the {_mb(limit)} MB limit"
    return Problem(1, 1, f"file is {sizes} (set {MAX_SESSION_BYTES_ENV})")


# One match per bracket or long number, with every string and comment before it consumed
# inside the same match, so the Python loop runs once per bracket, not once per character.
_SKIP = r"""
    (?: \"\"\"[^"\\]*(?:(?:\\[\s\S]|"{1,2}(?!"))[^"\\]*)*(?:"{3,5}|\Z)  # multi-line basic string
      | \'\'\'[^']*(?:'{1,2}(?!')[^']*)*(?:'{3,5}|\Z)                     # multi-line literal string
      | "[^"\\\n]*(?:\\.[^"\\\n]*)*"?                                      # basic string
      | '[^'\n]*'?                                                         # literal string
      | \#[^\n]*                                                           # comment
      | [A-Za-z_][A-Za-z0-9_\-]*                                           # bare word (key, true, inf)
      | [0-9+\-][0-9A-Za-z_.:+\-]{0,%d}(?![0-9A-Za-z_])                    # number or date of fair length
      | [^"'\#\[\]{}0-9A-Za-z_+\-]+                                        # anything else
    )*
""" % (MAX_NUMBER_CHARS - 1)
_TOKEN = re.compile(_SKIP + r"(?: (?P<open>[\[{]) | (?P<close>[\]}]) | (?P<long>[0-9+\-][0-9A-Za-z_.:+\-]*) )?", re.VERBOSE)


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def structure_problem(text: str, max_nesting: int = MAX_NESTING) -> Problem | None:
    """The first place nesting goes past MAX_NESTING or a number past MAX_NUMBER_CHARS."""
    depth = 0
    pos, end = 0, len(text)
    while pos < end:
        match = _TOKEN.match(text, pos)
        assert match is not None  # every part of _TOKEN is optional: it matches anywhere
        if match.group("open"):
            depth += 1
            if depth > max_nesting:
                line, col = _position(text, match.start("open"))
                return Problem(line, col, f"nested deeper than {max_nesting} arrays or inline tables")
        elif match.group("close"):
            depth = max(0, depth - 1)
        elif match.group("long"):
            line, col = _position(text, match.start("long"))
            return Problem(line, col, f"number longer than {MAX_NUMBER_CHARS} digits")
        elif match.end() == pos:
            pos += 1  # a character no branch takes (cannot happen in text the parser accepts)
            continue
        pos = match.end()
    return None


# ----- what a writer may set: one definition (model/text_limits.py), checked by `check` as by a write ----


def text_limit_problems(data: object, text: str) -> list[Problem]:
    """Every string in DATA (a session's plain data, read from TEXT) over the bound a write
    applies, at its line: what `cockpit check` says, so a file it passes is one a write keeps."""
    from cockpit.store.locate import locate

    return [Problem(*locate(text, path), f"{path}: {len(value):,} characters, over the {bound:,}-character limit "
                                         f"for it")
            for path, value, bound in sorted(long_texts(data))]


def new_text_problems(after: object, before: object) -> list[str]:
    """What a write would set over its bound: strings in AFTER (a session's plain data) that
    are too long and were not already in BEFORE (a file read with a long note stays savable)."""
    over = long_texts(after)
    if not over:
        return []
    kept = {text for _, text, _ in long_texts(before)}
    return [f"{path}: {len(text):,} characters, over the {bound:,}-character limit for it"
            for path, text, bound in sorted(over) if text not in kept]
