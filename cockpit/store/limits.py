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
# Keys of one table (or inline table): a Benchmark, the widest record, has ~50. A million
# unknown keys took 42 s and 1.6 GB to parse and list one by one; refused here in well under
# a second, before the parser builds them (fewer are listed 50 and counted: toml_store.py).
MAX_TABLE_KEYS = 20_000

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
      | [^"'\#\[\]{}0-9A-Za-z_+\-%s]+                                      # anything else
    )*+
"""
# `*+` (possessive): the loop never gives back what it took, so the engine keeps no
# backtracking state per step; a 12 MB file with no bracket took 700 MB and seconds without it.
_GROUPS = r"(?: (?P<open>[\[{]) | (?P<close>[\]}]) | (?P<long>[0-9+\-][0-9A-Za-z_.:+\-]*)"
# The usual scan stops at brackets and long numbers and counts a table's `=` in C, strings'
# included (an upper bound); only a file with a table over the bound is scanned again,
# stopping at each `=` outside strings (a key): a Python step per key.
_TOKEN = re.compile(_SKIP % (MAX_NUMBER_CHARS - 1, "") + _GROUPS + " )?", re.VERBOSE)
_TOKEN_KEYS = re.compile(_SKIP % (MAX_NUMBER_CHARS - 1, "=") + _GROUPS + r" | (?P<eq>=) )?", re.VERBOSE)


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def structure_problem(text: str, max_nesting: int = MAX_NESTING, max_keys: int = MAX_TABLE_KEYS) -> Problem | None:
    """The first place nesting goes past MAX_NESTING, a number past MAX_NUMBER_CHARS or a
    table's keys past MAX_TABLE_KEYS."""
    # More `=` than the bound times the tables (each bracket may open one): some table is over
    # it whatever the brackets hold, so the key by key scan starts at once and stops there.
    crowded = text.count("=") > max_keys * (text.count("[") + text.count("{") + 1)
    return _scan(text, max_nesting, max_keys, precise=crowded)


def _scan(text: str, max_nesting: int, max_keys: int, *, precise: bool) -> Problem | None:
    token = _TOKEN_KEYS if precise else _TOKEN
    depth = 0
    keys = [0]  # keys set so far in the table (or inline table) at each depth
    pos, end = 0, len(text)
    while pos < end:
        match = token.match(text, pos)
        assert match is not None  # every part of _TOKEN is optional: it matches anywhere
        if not precise:
            keys[-1] += text.count("=", pos, match.end())
            if keys[-1] > max_keys:
                return _scan(text, max_nesting, max_keys, precise=True)
        elif match.group("eq"):
            keys[-1] += 1
            if keys[-1] > max_keys:
                line, col = _position(text, match.start("eq"))
                return Problem(line, col, f"more than {max_keys:,} keys in one table (a session record has "
                                          "about 50): not a session file")
            pos = match.end()
            continue
        if match.group("open"):
            at = match.start("open")
            if depth == 0 and not text[text.rfind("\n", 0, at) + 1:at].strip():
                keys[0] = 0  # a `[table]` header: a new table's keys
            depth += 1
            keys.append(0)
            if depth > max_nesting:
                line, col = _position(text, match.start("open"))
                return Problem(line, col, f"nested deeper than {max_nesting} arrays or inline tables")
        elif match.group("close"):
            depth = max(0, depth - 1)
            if len(keys) > 1:
                keys.pop()
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
