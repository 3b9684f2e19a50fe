"""`nvidia-smi topo -m` text -> `TopologyMatrix`, as real drivers print it.

Copes with: tab-separated or tab-expanded (space) cells, the ANSI underline around the
header (also as U+FFFD), headers stripped of leading whitespace by vLLM's collect_env,
NIC rows and the NIC legend, old `mlx5_N` columns, CPU Affinity / NUMA Affinity /
GPU NUMA ID present or not, blank affinity cells, and cells glued together in wide
matrices (`NIC8NIC9`, `NODENODE`, `0N/A`). NVML builds the same type
(`cockpit.sources.nvml_sampler`), so the topology pane has one input.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

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
_GLUED_NUMA = re.compile(r"^(\d+(?:-\d+)?)(N/A)$")
_AFFINITY_COLUMNS = (("cpu", "CPU Affinity"), ("numa", "NUMA Affinity"), ("gnid", "GPU NUMA ID"))


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
    return int(m.group(1)) if m else None


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


def _affinity_markers(header: str) -> list[tuple[str, int]]:
    """(column key, start position) for each affinity column the header has, in order."""
    found = [(key, header.find(label)) for key, label in _AFFINITY_COLUMNS]
    return sorted(((k, p) for k, p in found if p >= 0), key=lambda kp: kp[1])


def parse_topology(text: str) -> TopologyMatrix:
    """Parse `nvidia-smi topo -m` output (or a paste of it) into a TopologyMatrix."""
    lines = clean_text(text)
    h = _find_header(lines)
    header = lines[h]
    gpu0_at = header.find("GPU0")
    # a header wrapped by a narrow terminal: glue the continuation back on
    if "Affinity" not in header and h + 1 < len(lines):
        nxt = lines[h + 1].strip()
        if nxt and not re.match(r"^(GPU\d+|NIC\d+|mlx\S+)\s", nxt):
            header = header + " " + nxt
            h += 1
    markers = _affinity_markers(header)
    device_end = min((p for _, p in markers), default=len(header))
    devices = _device_names(header[gpu0_at:device_end])
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
            tails[label] = _split_tail(line, tail_at, markers, header, gpu0_at, line.find(row[0]) if row else -1)

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
        row = cells.get(g)
        if row is None:
            continue
        matrix[g] = {o: row[col_of[o]] for o in gpus if o != g and col_of[o] < len(row)}
        nic_links[g] = {n: row[col_of[n]] for n in nics if col_of[n] < len(row)}
        if col_of[g] < len(row) and row[col_of[g]] != "X":
            warnings.append(f"{g}: diagonal cell is {row[col_of[g]]!r}, not 'X'")
    for a, row in matrix.items():
        for b, cell in row.items():
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


def _split_tail(
    line: str,
    at: int,
    markers: list[tuple[str, int]],
    header: str,
    gpu0_at: int,
    first_cell_at: int,
) -> list[str | None]:
    """The affinity cells after the matrix, one per header column, None when blank."""
    n = len(markers)
    tail = line[at:]
    if "\t" in tail:
        tail = tail.lstrip(" ")  # the self cell is padded: " X \t"
        parts = [p.strip() for p in (tail[1:] if tail.startswith("\t") else tail).split("\t")]
        # the first cell (CPU Affinity) may be blank; later columns are padded with
        # extra tabs by some drivers (`0\t\tN/A`), so take the non-empty ones in order
        first, rest = parts[0], [p for p in parts[1:] if p]
        values: list[str | None] = [first or None, *rest]
        values = _unglue(values, n)
        return (values + [None] * n)[:n]
    tokens = [(m.start() + at, m.group()) for m in re.finditer(r"\S+", tail)]
    if len(tokens) < n:
        glued = _unglue([t for _, t in tokens], n)
        if len(glued) == n:
            return list(glued)
    if len(tokens) >= n:
        return [t for _, t in tokens[:n]]
    # a blank cell in tab-expanded text: place each token by the header's column starts
    shift = (first_cell_at // 8) * 8 - gpu0_at if first_cell_at >= 0 else 0
    starts = [p + shift for _, p in markers]
    placed: list[str | None] = [None] * n
    for pos, tok in tokens:
        col = max((k for k, s in enumerate(starts) if s <= pos + 2), default=0)
        if placed[col] is not None:  # positions are unreliable: blanks lead
            return [None] * (n - len(tokens)) + [t for _, t in tokens]
        placed[col] = tok
    return placed


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
