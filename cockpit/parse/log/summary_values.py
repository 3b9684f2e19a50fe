"""The values half of the byte-level `parse-log` summary (log_summary_fast): the greatest
and the last valid value of a field in a slice, with no per-line Python work.

A value counts only in the rest of a batch line (after its marker). Rather than collect
every value, one regex finds only values *greater* than the best valid value so far (it
encodes "greater than" on the decimal text: parse/greater_than.py), so the C engine skips
the rest; each hit is checked exactly on its own line and the regex is rebuilt when it is
valid; a few values sampled over the slice seed the threshold. The last value is found
backwards with rfind. Split from log_summary_fast to keep each module small.
"""

from __future__ import annotations

import mmap
import re
from typing import NamedTuple, TypeAlias

from cockpit.parse.greater_than import labels_greater
from cockpit.parse.numbers import read_float, read_int

Buffer: TypeAlias = "bytes | mmap.mmap"  # a whole log: bytes, or a mapped file (no copy)
Value: TypeAlias = "int | float"
SAMPLES = 16  # values sampled to seed a slice's threshold (the Hyperscan pass samples more)


class Field(NamedTuple):
    """A summary figure read as the greatest value after a label in the rest of a batch line."""

    label: bytes
    value: re.Pattern[bytes]  # matched at the label: the number as group 1
    kinds: tuple[re.Pattern[bytes], ...]  # the markers whose rest it counts in
    is_float: bool



def counts(texts: list[bytes]) -> list[int]:
    """The counts among `texts` (one too long to be a figure is left out: parse/numbers.py)."""
    return [n for t in texts if (n := read_int(t)) is not None]


def number(text: bytes, is_float: bool) -> Value | None:
    """A field's value from its digits; None for one too long to be a figure."""
    return read_float(text) if is_float else read_int(text)


def as_int(value: Value | None) -> int | None:
    """A count field's value (read with int(): the float in its type is the other fields')."""
    return None if value is None else int(value)



def in_batch_rest(data: Buffer, start: int, pos: int, kinds: tuple[re.Pattern[bytes], ...]) -> bool:
    """Is the label at `pos` in the rest of a batch marker of one of `kinds` on its line?"""
    line_start = data.rfind(b"\n", start, pos) + 1 or start
    return any(rx.search(data, line_start, pos) is not None for rx in kinds)


def _value_at(data: Buffer, pos: int, end: int, field: Field) -> Value | None:
    m = field.value.match(data, pos, end)
    if m is None:
        return None
    return number(m.group(1), field.is_float)


def last_value(data: Buffer, start: int, end: int, field: Field) -> float | None:
    label, _, kinds, _ = field
    pos = end
    while True:
        pos = data.rfind(label, start, pos)
        if pos < 0:
            return None
        if in_batch_rest(data, start, pos, kinds):
            value = _value_at(data, pos, end, field)
            if value is not None:
                return value


def seed(data: Buffer, start: int, end: int, field: Field, samples: int = SAMPLES) -> tuple[Value | None, bytes | None]:
    """(value, its text) of the best of a few valid values spread over the slice."""
    label, vrx, kinds, is_float = field
    best: Value | None = None
    best_text: bytes | None = None
    step = max(1, (end - start) // samples)
    for at in range(start, end, step):
        pos = data.find(label, at, end)
        if pos < 0:
            break
        if in_batch_rest(data, start, pos, kinds):
            m = vrx.match(data, pos, end)
            if m is not None:
                value = number(m.group(1), is_float)
                if value is not None and (best is None or value > best):
                    best, best_text = value, m.group(1)
    return best, best_text


def max_value(data: Buffer, start: int, end: int, field: Field) -> Value | None:
    return max_values(data, start, end, (field,))[0]


def max_values(data: Buffer, start: int, end: int, fields: tuple[Field, ...]) -> list[Value | None]:
    """The greatest valid value of each field, in one pass: the fields' labels share their
    first byte (`#running-req: `, `#queue-req: `), so one regex holds every field's
    "greater than its best so far" branch after it."""
    seeds = [seed(data, start, end, f) for f in fields]
    best = [b for b, _ in seeds]
    texts = [t for _, t in seeds]
    rx = _greater_any(fields, texts)
    pos = start
    while True:
        m = rx.search(data, pos, end)
        if m is None:
            return best
        pos = m.end()
        at = m.start()
        for i, (label, vrx, kinds, is_float) in enumerate(fields):
            if len(fields) > 1 and data[at:at + len(label)] != label:  # (mmap has no startswith)
                continue
            if in_batch_rest(data, start, at, kinds):
                vm = vrx.match(data, at, end)
                assert vm is not None  # the regex matched a label and a number here
                value = number(vm.group(1), is_float)
                old = best[i]
                if value is not None and (old is None or value > old):
                    best[i], texts[i] = value, vm.group(1)
                    rx = _greater_any(fields, texts)
            break


def _greater_any(fields: tuple[Field, ...], texts: list[bytes | None]) -> re.Pattern[bytes]:
    """One regex: any field's label followed by a number greater than its text."""
    return labels_greater(tuple((f.label, t, f.is_float) for f, t in zip(fields, texts)))

