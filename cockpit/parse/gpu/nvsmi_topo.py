"""`nvidia-smi topo -m` text -> `TopologyMatrix`, as real drivers print it.

Copes with: tab-separated or tab-expanded (space) cells, the ANSI underline around the
header (also as U+FFFD), headers stripped of leading whitespace by vLLM's collect_env,
NIC rows and the NIC legend, old `mlx5_N` columns, CPU Affinity / NUMA Affinity /
GPU NUMA ID present or not, blank affinity cells (placed by column, never shifted left),
cells glued together in wide matrices (`NIC8NIC9`, `NODENODE`, `0N/A`), a header a
paste wrapped over two lines, and a prefix every line of a log carries. NVML builds
the same type (`cockpit.sources.gpu.nvml_sampler`), so the topology pane has one input.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cockpit.parse.gpu.topo_affinity import AFFINITY_COLUMNS, TAB, affinity_markers, split_tail
from cockpit.parse.numbers import read_int

# The distance classes, nearest first, with the meaning nvidia-smi's legend gives.
DISTANCE_CLASSES: tuple[str, ...] = ("X", "NV#", "PIX", "PXB", "PHB", "NODE", "SYS")
LEGEND: dict[str, str] = {
    "X": "Self",
    "NV#": "Connection traversing a bonded set of # NVLinks",
    "PIX": "Connection traversing at most a single PCIe bridge",
    "PXB": "Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)",
    "PHB": "Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)",
    "NODE": "Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node",
    "SYS": "Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)",
}

_ANSI = re.compile(r"(?:\x1b|\ufffd)\[[0-9;]*m")
_CELL_AT = re.compile(r"[ \t]*(X|SYS|NODE|PHB|PXB|PIX|SOC|NV\d+)")
_CELLS_ONLY = re.compile(r"^(?:X|SYS|NODE|PHB|PXB|PIX|SOC|NV\d+)+$")
_DEVICE = re.compile(r"GPU\d+|NIC\d+|mlx\d+_(?:bond_)?\d+")
_LEGEND_LINE = re.compile(r"^\s*(X|SYS|NODE|PHB|PXB|PIX|SOC|NV#)\s*=\s*(.+?)\s*$")
_NIC_LEGEND_LINE = re.compile(r"^\s*(NIC\d+)\s*:\s*(\S+)\s*$")
_FIRST_ROW = re.compile(r"GPU0[ \t]+X[ \t]")


class TopologyParseError(ValueError):
    """The text holds no `topo -m` matrix."""


def distance_class(cell: str) -> str:
    """A matrix cell -> its class: `NV18` -> `NV#`, the old `SOC` -> `SYS`."""
    cell = cell.strip()
    if cell.startswith("NV"):
        return "NV#"
    if cell == "SOC":
        return "SYS"
    return cell


def distance_rank(cell: str) -> int:
    """Order of closeness (0 = self, 1 = NVLink ... 6 = across sockets); 7 if unknown."""
    cls = distance_class(cell)
    return DISTANCE_CLASSES.index(cls) if cls in DISTANCE_CLASSES else len(DISTANCE_CLASSES)


def nvlink_count(cell: str) -> int | None:
    """`NV12` -> 12; None for a PCIe-only cell."""
    m = re.fullmatch(r"NV(\d+)", cell.strip())
    return read_int(m.group(1)) if m else None  # None for a count too long to be one


@dataclass(frozen=True, slots=True)
class TopologyMatrix:
    """Which GPU reaches which how, and which CPUs/NUMA nodes sit nearest each GPU."""

    gpus: tuple[str, ...]
    """GPU column names in order: `GPU0`, `GPU1`, ..."""
    nics: tuple[str, ...] = ()
    """NIC columns: `NIC0` ... (R525+) or `mlx5_0` ... (older drivers)."""
    matrix: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """GPU -> other GPU -> cell (`NV18`, `PIX`, `SYS`...), no diagonal."""
    cpu_affinity: Mapping[str, str | None] | None = None
    """GPU -> cpulist; None when the column is absent, a None value when the cell is blank."""
    numa_affinity: Mapping[str, str | None] | None = None
    """GPU -> nearest CPU NUMA node(s): `0`, `0-1`, `N/A`."""
    gpu_numa_id: Mapping[str, str | None] | None = None
    """GPU -> the NUMA node of the GPU memory itself (Grace systems), usually `N/A`."""
    nic_links: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """GPU -> NIC -> cell."""
    nic_names: Mapping[str, str] = field(default_factory=dict)
    """`NIC0` -> `mlx5_0`, from the NIC legend."""
    legend: Mapping[str, str] = field(default_factory=lambda: dict(LEGEND))
    """Distance class -> meaning."""
    warnings: tuple[str, ...] = ()
    """Oddities found while reading (asymmetric matrix, short row, ...)."""

    def link(self, a: str, b: str) -> str | None:
        """The cell between two devices (`X` for a device with itself)."""
        if a == b:
            return "X"
        return self.matrix.get(a, {}).get(b) or self.nic_links.get(a, {}).get(b)

    def classes_present(self) -> tuple[str, ...]:
        """Distance classes that occur between GPUs, nearest first (for the legend)."""
        seen = {distance_class(c) for row in self.matrix.values() for c in row.values()}
        return tuple(c for c in DISTANCE_CLASSES if c in seen)

    def to_json(self, *, detail: bool = False) -> dict[str, Any]:
        """The corpus `*.expect.json` shape; `detail=True` adds NICs, GPU NUMA ids, legend."""
        out: dict[str, Any] = {
            "gpus": len(self.gpus),
            "nics": len(self.nics),
            "matrix": {g: dict(row) for g, row in self.matrix.items()},
            "cpu_affinity": None if self.cpu_affinity is None else dict(self.cpu_affinity),
            "numa_affinity": None if self.numa_affinity is None else dict(self.numa_affinity),
        }
        if detail:
            out["gpu_names"] = list(self.gpus)
            out["nic_names"] = {n: self.nic_names.get(n, n) for n in self.nics}
            out["nic_links"] = {g: dict(row) for g, row in self.nic_links.items()}
            out["gpu_numa_id"] = None if self.gpu_numa_id is None else dict(self.gpu_numa_id)
            out["legend"] = dict(self.legend)
            out["warnings"] = list(self.warnings)
        return out


def clean_text(text: str) -> list[str]:
    """Lines with ANSI SGR escapes and CRs removed."""
    return [_ANSI.sub("", line).rstrip("\r") for line in text.replace("\r\n", "\n").split("\n")]


def _device_names(header_part: str) -> list[str]:
    names: list[str] = []
    for token in header_part.split():
        parts = _DEVICE.findall(token)
        names.extend(parts if parts and "".join(parts) == token else [token])
    return names


def _find_header(lines: list[str]) -> int:
    for i, line in enumerate(lines):
        at = line.find("GPU0")
        if at < 0:
            continue
        after = line[at + 4 :].split()
        if not after or not _CELLS_ONLY.match(after[0]):
            return i
    raise TopologyParseError("no `nvidia-smi topo -m` header (a line with GPU0 and the column names)")


def _strip_shared_prefix(lines: list[str], h: int) -> list[str]:
    """Lines from the header on with a prefix every line of the block carries removed.

    Container logs stamp each line (`INFO 2025-04-06T03:02:45.843Z `, `sglang-1  | `);
    the prefix is what precedes the first GPU row's label, and it is taken off every
    later line that has the same shape (digits may differ: the timestamps tick).
    """
    row = next((i for i in range(h + 1, min(h + 4, len(lines))) if _FIRST_ROW.search(lines[i])), None)
    if row is None:
        return lines
    first = _FIRST_ROW.search(lines[row])
    assert first is not None  # the row was picked by this search
    prefix = lines[row][: first.start()]
    if not prefix.strip():
        return lines  # no prefix, or only indentation (handled where rows are read)
    full, bare = re.compile(_shape(prefix)), re.compile(_shape(prefix.rstrip()) + r"\s*$")
    if not full.match(lines[h]):
        return lines  # the header does not carry it: not a prefix of the block
    out = lines[:h]
    for line in lines[h:]:
        m = full.match(line)
        if m:
            out.append(line[m.end() :])
        elif bare.match(line):
            out.append("")  # a blank line of the block, stamped and right-trimmed
        else:
            out.append(line)
    return out


def _shape(text: str) -> str:
    """A pattern for text whose digits may differ (a log line's timestamp)."""
    return "".join(r"\d" if c.isdigit() else re.escape(c) for c in text)


def _join_wrapped_header(lines: list[str], h: int) -> tuple[str, int]:
    """The header, with continuation lines a paste wrapped it onto glued back; its last index.

    A terminal breaks mid-word at the width (join as is); a text box breaks at a space
    and drops it (join with one). The join that names more affinity columns wins.
    """
    header = lines[h]
    while h + 1 < len(lines) and len(affinity_markers(header)) < len(AFFINITY_COLUMNS):
        nxt = lines[h + 1]
        if not nxt.strip() or _is_device_row(nxt):
            break
        joins = [header + nxt, header.rstrip() + " " + nxt.lstrip()]
        best = max(joins, key=lambda j: len(affinity_markers(j)))  # first wins a tie
        gained = len(affinity_markers(best)) > len(affinity_markers(header))
        if not gained and _DEVICE.match(nxt.strip()) is None:
            break  # neither more column names nor more device names: not a continuation
        header, h = best, h + 1
    return header, h


def _is_device_row(line: str) -> bool:
    m = _DEVICE.match(line.strip())
    return m is not None and _CELL_AT.match(line.strip(), m.end()) is not None


def parse_topology(text: str) -> TopologyMatrix:
    """Parse `nvidia-smi topo -m` output (or a paste of it) into a TopologyMatrix."""
    lines = clean_text(text)
    h = _find_header(lines)
    lines = _strip_shared_prefix(lines, h)
    header, h = _join_wrapped_header(lines, h)
    markers = affinity_markers(header)
    wide_header = header.expandtabs(TAB)
    wide_gpu0 = wide_header.find("GPU0")
    device_end = min((p for _, p in markers), default=len(wide_header))
    devices = _device_names(wide_header[wide_gpu0:device_end])
    gpus = tuple(d for d in devices if d.startswith("GPU"))
    nics = tuple(d for d in devices if not d.startswith("GPU"))
    columns = [k for k, _ in markers]
    warnings: list[str] = []

    cells: dict[str, list[str]] = {}
    tails: dict[str, list[str | None]] = {}
    by_length = sorted(devices, key=len, reverse=True)
    i = h + 1
    for i in range(h + 1, len(lines)):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("Legend"):
            break
        if not stripped:
            continue
        body_at = len(line) - len(line.lstrip())
        label = next(
            (d for d in by_length if line.startswith(d, body_at) and _label_ends(line, body_at + len(d))),
            None,
        )
        if label is None:
            warnings.append(f"skipped line {i + 1}: {stripped[:40]!r}")
            continue
        row, tail_at = _scan_cells(line, body_at + len(label), len(devices))
        if len(row) < len(devices):
            warnings.append(f"{label}: {len(row)} of {len(devices)} cells")
        cells[label] = row
        if label.startswith("GPU") and columns:
            tail, extra = split_tail(line, body_at + len(label), tail_at, markers, wide_gpu0)
            tails[label] = tail
            if extra:
                warnings.append(f"{label}: {extra} more cell(s) after the matrix than the header names")

    legend = dict(LEGEND)
    nic_names: dict[str, str] = {}
    for line in lines[i:]:
        m = _LEGEND_LINE.match(line)
        if m:
            legend[distance_class(m.group(1)) if m.group(1) != "NV#" else "NV#"] = m.group(2)
            continue
        m = _NIC_LEGEND_LINE.match(line)
        if m:
            nic_names[m.group(1)] = m.group(2)

    col_of = {d: k for k, d in enumerate(devices)}
    matrix: dict[str, dict[str, str]] = {}
    nic_links: dict[str, dict[str, str]] = {}
    for g in gpus:
        cells_of_g = cells.get(g)
        if cells_of_g is None:
            continue
        matrix[g] = {o: cells_of_g[col_of[o]] for o in gpus if o != g and col_of[o] < len(cells_of_g)}
        nic_links[g] = {n: cells_of_g[col_of[n]] for n in nics if col_of[n] < len(cells_of_g)}
        if col_of[g] < len(cells_of_g) and cells_of_g[col_of[g]] != "X":
            warnings.append(f"{g}: diagonal cell is {cells_of_g[col_of[g]]!r}, not 'X'")
    for a, links in matrix.items():
        for b, cell in links.items():
            back = matrix.get(b, {}).get(a)
            if back is not None and back != cell and a < b:
                warnings.append(f"asymmetric: {a}->{b} {cell}, {b}->{a} {back}")

    def column(key: str) -> dict[str, str | None] | None:
        if key not in columns:
            return None
        at = columns.index(key)
        return {g: tails[g][at] if g in tails else None for g in gpus}

    return TopologyMatrix(
        gpus=gpus,
        nics=nics,
        matrix=matrix,
        cpu_affinity=column("cpu"),
        numa_affinity=column("numa"),
        gpu_numa_id=column("gnid"),
        nic_links=nic_links,
        nic_names=nic_names,
        legend=legend,
        warnings=tuple(warnings),
    )


def _label_ends(line: str, at: int) -> bool:
    return at >= len(line) or line[at] in " \t" or _CELL_AT.match(line, at) is not None


def _scan_cells(line: str, at: int, count: int) -> tuple[list[str], int]:
    """Read up to `count` relationship cells from `at`, splitting glued ones."""
    row: list[str] = []
    while len(row) < count:
        m = _CELL_AT.match(line, at)
        if m is None:
            break
        row.append(m.group(1))
        at = m.end()
    return row, at
