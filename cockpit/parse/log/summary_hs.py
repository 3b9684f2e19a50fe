"""The Hyperscan engine of the byte summary: the rare-line, maxima and sparse-line-count half
in one Hyperscan pass (optional).

`log_summary_fast.scan` asks its engine's pass (this `Pass`, or the sre `SrePass`) for the
error labels, readiness, bench header, legacy lines; this pass also gives the greatest
valid gen throughput / running / queue values of a slice, and the line counts of the
kinds of batch line that are sparse in the buffer (a PD prefill server's decode lines, a
decode-heavy log's prefill lines). The sre path does these in passes that
stop at every `#`, `l`, label and marker; Hyperscan finds every needle, every candidate
value and every sparse marker in one. A `Pass` is compiled once per buffer (in the parent,
before the slices are forked), with seeds and kinds sampled over the whole buffer.

Exactness, by the same rules as the sre path (tests run both on corpus, fuzz and edge
inputs): a value counts only if it beats the best of many sampled valid values (a valid
value of the buffer, so a slice may report it: the merged maximum is still exact), and the
pattern reports every greater number (Hyperscan has no lookaround, so "greater than" is
written as prefixes: more digits, a greater digit at some place, or the same integer part
and a greater fraction; plus every number with a leading zero); each candidate is read and
checked on its own line, greatest first. A needle hit is checked with the one line
definition, as in the sre path. A marker counts once per line (consecutive hits with no
newline between them are one line), as the sre line-end passes count.

Hyperscan ships wheels for x86-64 Linux; elsewhere WHEEL is False and
log_summary_scan.summarize_bytes uses the sre engine. Imported only for big buffers: the
package's __init__ imports typing (~4 ms).
"""

from __future__ import annotations

import re
from typing import Any, TypeAlias, cast

try:
    import hyperscan
except ImportError:  # pragma: no cover - where no wheel exists
    WHEEL = False
else:
    WHEEL = True

from cockpit.parse.greater_than import greater_prefixes
from cockpit.parse.log import summary_fast as fast
from cockpit.parse.log import summary_values as vals
from cockpit.parse.log.summary_fast import FIELDS, KINDS, Kind, Partial
from cockpit.parse.log.summary_values import Buffer, Field, Value

SAMPLES = 256  # seeds: with iid values about 1/(SAMPLES+1) of the labels are candidates
# A kind of batch line is counted here (one Python call per marker) when its markers are
# sparser than this per byte in WINDOWS sampled windows; else by its own sre pass (~1 ns/byte)
COUNT_DENSITY = 1 / 1500
WINDOWS = 16
WINDOW_BYTES = 16 << 10
_NEEDLE_PATTERNS = tuple(re.escape(n).encode() for n, _ in fast.NEEDLES)
# needles whose hits may be skipped once their label is known (the sre path drops the
# same ones from its `l` pass; the others can stand for more than one label)
_DROPPABLE = tuple(n in {needle for needle, _ in fast.L_NEEDLES} and label != "header"
                   for n, label in fast.NEEDLES)
_Seeds: TypeAlias = "tuple[tuple[bytes, bytes | None, bool], ...]"  # (label, seed text, float?) per field
_DATABASES: dict[tuple[_Seeds, tuple[tuple[str, bytes], ...]], hyperscan.Database] = {}
_LEGACY_ID = next(i for i, (_, label) in enumerate(fast.NEEDLES) if label == "legacy")
# ESC (a colour code) as the last pattern: found in this pass for ~3 ms a slice instead of
# a 9 ms bytes.find of its own; a slice holding one is scanned again once stripped
_ESC = rb"\x1b"


def _database(key: _Seeds, kinds: tuple[tuple[str, bytes], ...]) -> hyperscan.Database:
    db = _DATABASES.get((key, kinds))
    if db is None:
        patterns = list(_NEEDLE_PATTERNS) + [re.escape(label) + greater_prefixes(text, is_float)
                                             for label, text, is_float in key] + [rx for _, rx in kinds] + [_ESC]
        db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        flags = [0] * (len(patterns) - 1) + [hyperscan.HS_FLAG_SINGLEMATCH]  # one ESC tells: a colour log
        db.compile(expressions=patterns, ids=list(range(len(patterns))), elements=len(patterns), flags=flags)
        if len(_DATABASES) >= 32:  # a long pipe read chunk by chunk: seeds differ per chunk
            _DATABASES.clear()
        _DATABASES[key, kinds] = db
    return db


def _on_match(pattern_id: int, _start: int, end: int, _flags: int, hits: Any) -> None:  # hits: list[tuple[int, int]]
    hits.append((pattern_id, end))


def sparse_kinds(data: Buffer, start: int, end: int, kinds: tuple[Kind, ...]) -> tuple[tuple[str, bytes], ...]:
    """The kinds ((name, marker pattern) of `kinds`) whose lines the
    pass should count: those whose literal is found at most COUNT_DENSITY times per byte in
    a few sampled windows. Each hit costs a Python call, so a dense kind is cheaper as its
    own sre pass (~1 ns per byte)."""
    size = end - start
    if size <= WINDOWS * WINDOW_BYTES:
        spots = [(start, end)]
    else:
        step = size // WINDOWS
        spots = [(at, at + WINDOW_BYTES) for at in range(start, end - WINDOW_BYTES + 1, step)][:WINDOWS]
    sampled = sum(b - a for a, b in spots)
    return tuple((name, rx) for name, rx, literal in kinds
                 if sum(data[a:b].count(literal) for a, b in spots) <= COUNT_DENSITY * sampled)


class Pass:
    """The pass for one buffer: seeds and sparse kinds sampled over data[start:end] and the
    database compiled from them; `run` scans any slice of that buffer."""

    finds_esc = True

    def __init__(self, data: Buffer, start: int, end: int, fields: tuple[Field, ...] = FIELDS,
                 kinds: tuple[Kind, ...] = KINDS) -> None:
        self.fields = fields
        self.kinds = sparse_kinds(data, start, end, kinds)
        self.seeds = [vals.seed(data, start, end, f, SAMPLES) for f in fields]
        self.db = _database(tuple((f.label, text, f.is_float) for f, (_, text) in zip(fields, self.seeds)),
                            self.kinds)

    def run(self, data: Buffer, start: int, end: int, out: Partial) -> tuple[list[Value | None] | None, dict[str, int]]:
        """Fill `out`'s labels, readiness, header and legacy lines for data[start:end];
        return the greatest valid value of each field (None where there is none; at least
        the seed where there is one) and the line count of each sparse kind."""
        fields, kinds = self.fields, self.kinds
        hits: list[tuple[int, int]] = []
        with memoryview(data) as view, view[start:end] as part:
            # the stub says str | bytes; the extension takes any buffer (no copy of the slice)
            self.db.scan(cast(bytes, part), match_event_handler=_on_match, context=hits)

        needles = len(_NEEDLE_PATTERNS)
        first_kind = needles + len(fields)
        esc_id = first_kind + len(kinds)
        if sum(1 for i, _ in hits if i == _LEGACY_ID) > fast.LEGACY_LINES:
            out.legacy = True  # many legacy lines: scan() reads them all in one regex pass
        seen: set[int] = set()
        candidates: list[list[int]] = [[] for _ in fields]
        markers: list[list[int]] = [[] for _ in kinds]
        for i, stop in hits:
            if i == esc_id:
                out.esc = True
            elif i >= first_kind:
                markers[i - first_kind].append(start + stop)
            elif i >= needles:
                candidates[i - needles].append(start + stop)
            else:
                label = fast.NEEDLES[i][1]
                if _DROPPABLE[i] and (label in out.errors or (label == "ready" and out.ready)
                                      or (label == "legacy" and out.legacy)):
                    continue
                fast.check_line(data, start, end, start + stop - 1, out, seen)
        maxima = [_greatest(data, start, end, field, seed, stops)
                  for field, (seed, _), stops in zip(fields, self.seeds, candidates)]
        return maxima, {name: _lines(data, stops) for (name, _), stops in zip(kinds, markers)}


def _lines(data: Buffer, stops: list[int]) -> int:
    """How many lines the marker ends `stops` fall on (a line holding two counts once)."""
    stops.sort()  # (Hyperscan reports them in order; cheap if so)
    n = 0
    last = -1
    find = data.find
    for stop in stops:
        if last < 0 or find(b"\n", last, stop) >= 0:
            n += 1
        last = stop
    return n


def _greatest(data: Buffer, start: int, end: int, field: Field, best: Value | None,
              stops: list[int]) -> Value | None:
    """The greatest valid value among the candidates that end at `stops`, or `best`."""
    label, vrx, kinds, is_float = field
    values: list[tuple[Value, int]] = []
    for stop in stops:
        line_start = data.rfind(b"\n", start, stop) + 1 or start
        at = data.rfind(label, line_start, stop)  # the label this candidate starts with
        m = vrx.match(data, at, end)
        value = None if m is None else vals.number(m.group(1), is_float)
        if value is not None:
            values.append((value, at))
    values.sort(reverse=True)
    for value, at in values:
        if best is not None and value <= best:
            break
        if vals.in_batch_rest(data, start, at, kinds):
            return value
    return best
