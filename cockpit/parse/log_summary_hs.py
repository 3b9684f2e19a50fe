"""The rare-line and maxima half of the byte summary in one Hyperscan pass (optional).

`log_summary_fast.scan` asks `rest` for the error labels, readiness, bench header, legacy
lines and the greatest valid gen throughput / running / queue values of a slice. The sre
path does these in three passes that stop at every `#`, `l` and label (~200 ms per 67 MB
slice); Hyperscan finds every needle and every candidate value in one (~70 ms).

Exactness, by the same rules as the sre path (tests run both on corpus, fuzz and edge
inputs): a value counts only if it beats the best of many sampled valid values, and the
pattern reports a superset of those (Hyperscan has no lookaround, so "greater than" is
written as prefixes: more digits, or a greater digit at some place, or the same integer
part for floats); each candidate is read and checked on its own line, greatest first. A
needle hit is checked with the one line definition, as in the sre path.

Hyperscan ships wheels for x86-64 Linux; elsewhere `available()` is False and the sre
path does the work.
"""

from __future__ import annotations

import re

from cockpit.parse import log_summary_fast as fast

try:  # the package's __init__ imports typing (~4 ms): worth it only for big slices
    import hyperscan
except ImportError:  # pragma: no cover - exercised where no wheel exists
    hyperscan = None

SAMPLES = 256  # seeds: with iid values about 1/(SAMPLES+1) of the labels are candidates
_NEEDLE_PATTERNS = tuple(re.escape(n).encode() for n, _ in fast.NEEDLES)
# needles whose hits may be skipped once their label is known (the sre path drops the
# same ones from its `l` pass; the others can stand for more than one label)
_DROPPABLE = tuple(n in {needle for needle, _ in fast._L_NEEDLES} and label != "header"
                   for n, label in fast.NEEDLES)
_DATABASES: dict[tuple, object] = {}


def available() -> bool:
    return hyperscan is not None


def superset(text: bytes | None, is_float: bool) -> bytes:
    """A pattern for the number after a label, matching every number greater than
    `text` (and some that are not: each hit is checked exactly)."""
    if text is None:
        return rb"\d"
    whole, _, _ = text.decode().partition(".")
    whole = whole.lstrip("0") or "0"
    n = len(whole)
    if whole == "0":
        alts = ["[1-9]"]
    else:
        alts = [r"[1-9]\d{%d}" % n]  # more digits
        for i, d in enumerate(whole):  # as many digits, the first difference greater
            if d != "9":
                rest = n - i - 1
                alts.append(whole[:i] + f"[{int(d) + 1}-9]" + (r"\d{%d}" % rest if rest else ""))
    if is_float:
        alts.append(whole + r"\.")  # the same integer part: the fraction decides
    return ("0*(?:" + "|".join(alts) + ")").encode()


def _database(key: tuple):
    db = _DATABASES.get(key)
    if db is None:
        patterns = list(_NEEDLE_PATTERNS) + [re.escape(label) + superset(text, is_float)
                                             for label, text, is_float in key]
        db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        db.compile(expressions=patterns, ids=list(range(len(patterns))), elements=len(patterns), flags=0)
        _DATABASES[key] = db
    return db


def _on_match(pattern_id: int, _start: int, end: int, _flags: int, hits: list) -> None:
    hits.append((pattern_id, end))


def rest(data, start: int, end: int, out: fast.Partial, fields: tuple) -> list:
    """Fill `out`'s labels, readiness, header and legacy lines for data[start:end];
    return the greatest valid value of each field (None where there is none)."""
    seeds = [fast._seed(data, start, end, f, SAMPLES) for f in fields]
    db = _database(tuple((f[0], text, f[3]) for f, (_, text) in zip(fields, seeds)))
    hits: list[tuple[int, int]] = []
    with memoryview(data) as view, view[start:end] as part:
        db.scan(part, match_event_handler=_on_match, context=hits)

    needles = len(_NEEDLE_PATTERNS)
    legacy_id = next(i for i, (_, label) in enumerate(fast.NEEDLES) if label == "legacy")
    if sum(1 for i, _ in hits if i == legacy_id) > fast.LEGACY_LINES:
        out.legacy = True  # many legacy lines: scan() reads them all in one regex pass
    seen: set[int] = set()
    candidates: list[list[int]] = [[] for _ in fields]
    for i, stop in hits:
        if i >= needles:
            candidates[i - needles].append(start + stop)
            continue
        label = fast.NEEDLES[i][1]
        if _DROPPABLE[i] and (label in out.errors or (label == "ready" and out.ready)
                              or (label == "legacy" and out.legacy)):
            continue
        fast._check_line(data, start, end, start + stop - 1, out, seen)
    return [_greatest(data, start, end, field, seed, stops)
            for field, (seed, _), stops in zip(fields, seeds, candidates)]


def _greatest(data, start: int, end: int, field: tuple, best, stops: list[int]):
    """The greatest valid value among the candidates that end at `stops`, or `best`."""
    label, vrx, kinds, is_float = field
    values = []
    for stop in stops:
        line_start = data.rfind(b"\n", start, stop) + 1 or start
        at = data.rfind(label, line_start, stop)  # the label this candidate starts with
        m = vrx.match(data, at, end)
        if m is not None:
            values.append((float(m.group(1)) if is_float else int(m.group(1)), at))
    values.sort(reverse=True)
    for value, at in values:
        if best is not None and value <= best:
            break
        if fast._valid(data, start, at, kinds):
            return value
    return best
