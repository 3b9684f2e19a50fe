"""The affinity cells at the end of a `topo -m` row (CPU Affinity, NUMA Affinity, GPU NUMA ID).

Split from nvsmi_topo.py: a row whose affinity cells are all filled is read in order, but
blank cells must be placed by column (tabs expanded, compared with the header labels and
with where today's drivers put them), which is the fiddly part of the parser.
"""

from __future__ import annotations

import itertools
import re

TAB = 8  # nvidia-smi separates cells with tabs; pastes expand them to 8-column stops
AFFINITY_COLUMNS = (("cpu", "CPU Affinity"), ("numa", "NUMA Affinity"), ("gnid", "GPU NUMA ID"))
_GLUED_NUMA = re.compile(r"^(\d+(?:-\d+)?)(N/A)$")


def affinity_markers(header: str) -> list[tuple[str, int]]:
    """(column key, start column with tabs expanded) for each affinity column, in order."""
    wide = header.expandtabs(TAB)
    found = [(key, wide.find(label)) for key, label in AFFINITY_COLUMNS]
    return sorted(((k, p) for k, p in found if p >= 0), key=lambda kp: kp[1])



def split_tail(
    line: str, cells_at: int, tail_at: int, markers: list[tuple[str, int]], header_gpu0: int
) -> tuple[list[str | None], int]:
    """The affinity cells after the matrix, one per header column (None when blank), and
    how many cells were left over.

    A row with every cell filled is read in order. A row with blanks is placed by column:
    tabs expanded, each cell's start is compared with where it would stand if the driver
    had aligned it under the header label, and where today's drivers put it (`cpu<TAB>
    numa<TAB><TAB>gpu-numa-id`, which drifts left of the header when the cpulist is
    short); the placement that fits best wins, blanks stay blank.
    """
    n = len(markers)
    wide = line.expandtabs(TAB)
    start = len(line[:tail_at].expandtabs(TAB))
    tokens = [(m.start(), m.group()) for m in re.finditer(r"\S+", wide[start:])]
    tokens = [(p + start, t) for p, t in tokens]
    if len(tokens) >= n:
        return [t for _, t in tokens[:n]], len(tokens) - n
    glued = _unglue([t for _, t in tokens], n)
    if len(glued) == n:
        return list(glued), 0
    if not tokens:
        return [None] * n, 0
    shift = _row_shift(wide, len(line[:cells_at].expandtabs(TAB)), start) - header_gpu0
    anchors = [p + shift for _, p in markers]
    keys = [k for k, _ in markers]
    tail_start = _next_stop(len(wide[:start].rstrip()))  # the tab after the last matrix cell
    best: tuple[int, int, tuple[int, ...]] | None = None
    for cols in itertools.combinations(range(n), len(tokens)):
        values = dict(zip(cols, (t for _, t in tokens), strict=True))
        for rank, model in enumerate((_aligned_starts, _driver_starts)):
            expected = model(values, n, keys, anchors, tail_start)
            cost = sum(abs(p - expected[c]) for (p, _), c in zip(tokens, cols, strict=True))
            if best is None or (cost, rank) < best[:2]:
                best = (cost, rank, cols)
    assert best is not None
    placed: list[str | None] = [None] * n
    for (_, tok), c in zip(tokens, best[2], strict=True):
        placed[c] = tok
    return placed, 0


def _next_stop(col: int) -> int:
    """Where a tab typed at `col` moves the cursor."""
    return (col // TAB + 1) * TAB


def _aligned_starts(
    values: dict[int, str], n: int, keys: list[str], anchors: list[int], tail_start: int
) -> list[int]:
    """Cell starts if each cell is padded out to its header label (older drivers)."""
    out, cursor = [], tail_start
    for k in range(n):
        out.append(max(anchors[k], cursor))
        if k in values:
            cursor = _next_stop(out[k] + len(values[k]))
    return out


def _driver_starts(
    values: dict[int, str], n: int, keys: list[str], anchors: list[int], tail_start: int
) -> list[int]:
    """Cell starts as R5xx drivers print them: one tab after each cell, two after NUMA."""
    out, cursor = [], tail_start
    for k in range(n):
        out.append(cursor)
        cursor = _next_stop(cursor + len(values.get(k, "")))
        if keys[k] == "numa" and k + 1 < n:
            cursor += TAB
    return out


def _row_shift(wide: str, cells_at: int, tail_start: int) -> int:
    """The column the row's first matrix cell sits in (the tab stop before its text)."""
    m = re.compile(r"\S").search(wide, cells_at, tail_start)
    return (m.start() // TAB) * TAB if m else cells_at


def _unglue(values: list[str | None], n: int) -> list[str | None]:
    """Split a NUMA cell glued to the GPU NUMA ID (`0N/A`) when a column is missing."""
    if len(values) >= n:
        return values
    out: list[str | None] = []
    for v in values:
        m = _GLUED_NUMA.match(v) if v else None
        if m and len(out) > 0 and len(values) + 1 == n:
            out.extend([m.group(1), m.group(2)])
        else:
            out.append(v)
    return out
