"""NVML values -> cockpit's units and `topo -m` vocabulary: pure functions, no GPU needed.

mW -> W, bytes -> MiB, affinity masks -> Linux cpulists, NVML topology levels and NVLink
counts -> `NV#`/`PIX`/.../`SYS` cells, NVML errors -> notes and one-sentence messages.
"""

from __future__ import annotations

from collections.abc import Sequence

# NVML_TOPOLOGY_* (pynvml) -> the `nvidia-smi topo -m` cell for a PCIe-only pair.
TOPOLOGY_LEVEL_CELLS: dict[int, str] = {
    0: "PIX",  # INTERNAL: two GPUs on one board (K80-style)
    10: "PIX",  # SINGLE
    20: "PXB",  # MULTIPLE
    30: "PHB",  # HOSTBRIDGE
    40: "NODE",  # NODE (old name CPU)
    50: "SYS",  # SYSTEM
}
NVLINK_DEVICE_TYPE_IBMNPU = 0x01
NVLINK_DEVICE_TYPE_SWITCH = 0x02


def topology_cell(level: int | None, nvlinks: int = 0) -> str:
    """NVML common-ancestor level (+ bonded NVLink count) -> `NV#`/`PIX`/.../`SYS`."""
    if nvlinks > 0:
        return f"NV{nvlinks}"
    if level is None:
        return "N/A"
    if level in TOPOLOGY_LEVEL_CELLS:
        return TOPOLOGY_LEVEL_CELLS[level]
    return "SYS" if level > 50 else "N/A"


def mw_to_w(milliwatts: int | float | None) -> float | None:
    return None if milliwatts is None else milliwatts / 1000.0


def bytes_to_mib(n: int | None) -> int | None:
    return None if n is None else int(n) // (1024 * 1024)


def mask_to_list(words: Sequence[int], bits_per_word: int = 64) -> list[int]:
    """NVML affinity array (64-bit words, bit n = CPU/node n) -> sorted ids."""
    return [w * bits_per_word + b for w, word in enumerate(words) for b in range(bits_per_word) if int(word) >> b & 1]


def ids_to_cpulist(ids: Sequence[int]) -> str:
    """[0,1,2,3,8,10,11] -> "0-3,8,10-11" (the Linux cpulist form `topo -m` prints)."""
    parts: list[str] = []
    ordered = sorted(set(ids))
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(parts)


def normalize_bus_id(bus_id: str | bytes) -> str:
    """`00000000:17:00.0` / `0000:17:00.0` -> `0000:17:00.0` (lower case)."""
    text = bus_id.decode() if isinstance(bus_id, bytes) else str(bus_id)
    text = text.strip().lower().rstrip("\x00")
    domain, _, rest = text.rpartition(":")
    domain, _, bus = domain.rpartition(":") if domain.count(":") else ("", "", domain)
    try:
        dom = int(domain or "0", 16)
    except ValueError:
        dom = 0
    return f"{dom:04x}:{bus}:{rest}"


def pair_nvlinks(bus_ids: Sequence[str], peers: Sequence[Sequence[str | None]]) -> dict[tuple[int, int], int]:
    """Bonded NVLink count per GPU pair.

    `peers[i]` lists, for each active link of GPU i, the remote's bus id (normalized),
    or None when the remote is an NVSwitch. Direct links are counted per pair; on
    switch systems every pair of switch-attached GPUs shows the smaller link count,
    as `topo -m` does (NV18 for every pair on an 8x H100 HGX).
    """
    index_of = {b: i for i, b in enumerate(bus_ids)}
    direct: dict[tuple[int, int], int] = {}
    switched = [0] * len(bus_ids)
    for i, remotes in enumerate(peers):
        for remote in remotes:
            j = index_of.get(remote) if remote is not None else None
            if j is None:
                switched[i] += 1
            elif j != i:
                direct[(i, j)] = direct.get((i, j), 0) + 1
    out: dict[tuple[int, int], int] = {}
    n = len(bus_ids)
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            count = max(direct.get((i, j), 0), direct.get((j, i), 0))
            if switched[i] and switched[j]:
                count += min(switched[i], switched[j])
            if count:
                out[(i, j)] = count
    return out


def nvml_error_note(exc: BaseException) -> str:
    """`NVMLError_NotSupported` etc.: the note stored for a field NVML refused."""
    name = type(exc).__name__
    if name == "NVMLError":
        return f"NVMLError({getattr(exc, 'value', '?')})"
    return name


def unavailable_message(exc: BaseException) -> str:
    """One sentence for an NVML start failure, naming the likely cause."""
    name = type(exc).__name__
    if isinstance(exc, ImportError):
        return "nvidia-ml-py (pynvml) is not installed, so local GPUs cannot be read."
    if name == "NVMLError_LibraryNotFound":
        return "No NVIDIA driver on this machine (libnvidia-ml.so.1 not found): no local GPUs."
    if name == "NVMLError_DriverNotLoaded":
        return "The NVIDIA kernel driver is not loaded: no local GPUs."
    if name == "NVMLError_LibRmVersionMismatch":
        return "NVML and the NVIDIA kernel driver differ in version (driver upgraded without reboot?)."
    if name == "NVMLError_NoPermission":
        return "No permission to open the NVIDIA devices (/dev/nvidia*)."
    return f"NVML could not start: {exc} ({name})."
