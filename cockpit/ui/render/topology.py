"""What the topology pane shows, as Rich `Text`: the GPU x GPU (and GPU x NIC) matrix
coloured by distance class, the affinity columns, the legend and the SYS summary.

Pure functions of a `TopologyMatrix` and the theme's variables (`topo-x` ... `topo-sys`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.text import Text

from cockpit.parse.gpu.nvsmi_topo import DISTANCE_CLASSES, TopologyMatrix, distance_class
from cockpit.ui.render.gpu import Palette

CLASS_ROLE: dict[str, str] = {
    "X": "topo-x", "NV#": "topo-nv", "PIX": "topo-pix", "PXB": "topo-pxb",
    "PHB": "topo-phb", "NODE": "topo-node", "SYS": "topo-sys",
}
SHORT_LEGEND: dict[str, str] = {
    "X": "self",
    "NV#": "NVLink (# bonded links)",
    "PIX": "one PCIe bridge at most",
    "PXB": "several PCIe bridges, no host bridge",
    "PHB": "through a PCIe host bridge (the CPU)",
    "NODE": "between host bridges, same NUMA node",
    "SYS": "across the CPU socket link (QPI/UPI/xGMI)",
}


def _role(cell: str) -> str:
    return CLASS_ROLE.get(distance_class(cell), "foreground-muted")


def _label(name: str, short: bool) -> str:
    if not short:
        return name
    m = re.fullmatch(r"(GPU|NIC)(\d+)", name)
    return (("" if m.group(1) == "GPU" else "N") + m.group(2)) if m else name


def sys_groups(matrix: TopologyMatrix) -> list[list[str]]:
    """GPUs joined by anything nearer than SYS: the sockets, as seen from the GPUs."""
    seen: set[str] = set()
    groups: list[list[str]] = []
    for g in matrix.gpus:
        if g in seen:
            continue
        group, todo = [], [g]
        seen.add(g)
        while todo:
            a = todo.pop()
            group.append(a)
            for b, cell in matrix.matrix.get(a, {}).items():
                if b not in seen and distance_class(cell) != "SYS":
                    seen.add(b)
                    todo.append(b)
        groups.append(sorted(group, key=matrix.gpus.index))
    return groups


def sys_pairs(matrix: TopologyMatrix) -> list[tuple[str, str]]:
    gpus = matrix.gpus
    return [(a, b) for i, a in enumerate(gpus) for b in gpus[i + 1:]
            if distance_class(matrix.link(a, b) or "") == "SYS"]


def _span(names: Sequence[str]) -> str:
    """`GPU0-3` for a run of consecutive GPUs, else `GPU0,2,5`."""
    nums = [int(n[3:]) for n in names if n[3:].isdigit()]
    if len(nums) != len(names) or not nums:
        return ",".join(names)
    if nums == list(range(nums[0], nums[0] + len(nums))) and len(nums) > 1:
        return f"GPU{nums[0]}-{nums[-1]}"
    return "GPU" + ",".join(str(n) for n in nums)


def render_matrix(matrix: TopologyMatrix, width: int, pal: Palette) -> Text:
    """The matrix with its affinity columns; short labels (`0`, `N0`) when the full ones do not fit."""
    devices = list(matrix.gpus) + list(matrix.nics)
    affinity: list[tuple[str, dict[str, str | None]]] = []
    if matrix.cpu_affinity is not None:
        affinity.append(("CPU affinity", dict(matrix.cpu_affinity)))
    if matrix.numa_affinity is not None:
        affinity.append(("NUMA", dict(matrix.numa_affinity)))
    if matrix.gpu_numa_id is not None and any(v not in (None, "N/A") for v in matrix.gpu_numa_id.values()):
        affinity.append(("GPU NUMA", dict(matrix.gpu_numa_id)))
    aff_widths = [max([len(h)] + [len(v or "–") for v in col.values()]) for h, col in affinity]

    def layout(short: bool) -> tuple[int, int, int]:
        label_w = max(len(_label(g, short)) for g in matrix.gpus)
        cell_w = max([4] + [len(_label(d, short)) for d in devices]
                     + [len(c) for row in matrix.matrix.values() for c in row.values()]
                     + [len(c) for row in matrix.nic_links.values() for c in row.values()])
        total = label_w + len(devices) * (cell_w + 1) + sum(w + 2 for w in aff_widths)
        return label_w, cell_w, total

    short = False
    label_w, cell_w, total = layout(False)
    if total > width:
        short = True
        label_w, cell_w, total = layout(True)
    muted_bold = pal("foreground-muted", bold=True)
    out = Text(no_wrap=True, overflow="crop")
    out.append(" " * label_w)
    for d in devices:
        out.append(" " + _label(d, short).center(cell_w), style=muted_bold)
    for (head, _), w in zip(affinity, aff_widths):
        out.append("  " + head.ljust(w), style=muted_bold)
    for g in matrix.gpus:
        out.append("\n")
        out.append(_label(g, short).ljust(label_w), style=muted_bold)
        for d in devices:
            cell = matrix.link(g, d) or "?"
            cls = distance_class(cell)
            style = pal(_role(cell), bold=cls in ("SYS", "NV#"))
            out.append(" ")
            out.append(cell.center(cell_w), style=style)
        for (_, col), w in zip(affinity, aff_widths):
            value = col.get(g)
            out.append("  ")
            out.append((value or "–").ljust(w), style="" if value else pal("foreground-muted"))
    return out


def render_summary(matrix: TopologyMatrix, pal: Palette) -> Text:
    """Which GPU pairs cross the socket link, and what NVLink there is."""
    out = Text()
    pairs = sys_pairs(matrix)
    n_pairs = len(matrix.gpus) * (len(matrix.gpus) - 1) // 2
    if pairs:
        groups = sys_groups(matrix)
        out.append(f"{len(pairs)} of {n_pairs} GPU pairs cross the CPU socket link (SYS)", style=pal("topo-sys", bold=True))
        if len(groups) > 1:
            out.append(": " + " | ".join(_span(g) for g in groups), style=pal("topo-sys"))
    elif len(matrix.gpus) > 1:
        out.append("no GPU pair crosses the CPU socket link", style=pal("topo-pix"))
    else:
        out.append("one GPU: no GPU-to-GPU paths", style=pal("foreground-muted"))
    nv = [c for row in matrix.matrix.values() for c in row.values() if distance_class(c) == "NV#"]
    if nv:
        kinds = sorted(set(nv), key=lambda c: int(c[2:]) if c[2:].isdigit() else 0)
        out.append(f"; NVLink on {len(nv) // 2} pairs ({', '.join(kinds)})", style=pal("topo-nv"))
    return out


def render_legend(matrix: TopologyMatrix, width: int, pal: Palette) -> Text:
    """The distance classes in the matrix (and X), nearest first; then the NIC names."""
    present = set(matrix.classes_present()) | {"X"}
    present |= {distance_class(c) for row in matrix.nic_links.values() for c in row.values()}
    items = [c for c in DISTANCE_CLASSES if c in present]
    out = Text()
    col = 0
    for n, cls in enumerate(items):
        piece = f"{cls} {SHORT_LEGEND[cls]}"
        if n and col + 3 + len(piece) > width:
            out.append("\n")
            col = 0
        elif n:
            out.append(" · ", style=pal("foreground-muted"))
            col += 3
        out.append(cls, style=pal(CLASS_ROLE[cls], bold=True))
        out.append(" " + SHORT_LEGEND[cls], style=pal("foreground-muted"))
        col += len(piece)
    if matrix.nics:
        names = [f"{n}={matrix.nic_names.get(n, n)}" for n in matrix.nics if matrix.nic_names.get(n, n) != n]
        if names:
            out.append("\n")
            out.append("NICs: " + " ".join(names), style=pal("foreground-muted"))
    return out


def legend_tooltip(matrix: TopologyMatrix) -> str:
    """nvidia-smi's own legend text, for the matrix tooltip."""
    return "\n".join(f"{k:<4} = {v}" for k, v in matrix.legend.items())
