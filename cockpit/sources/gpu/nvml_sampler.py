"""Local GPUs through NVML (`pynvml` from nvidia-ml-py) -> GpuSample / TopologyMatrix.

Every NVML call is guarded on its own: a field the GPU or driver cannot give becomes
None with the NVML error name as its note, never an exception. NVML blocks, so every
call runs in a thread (`asyncio.to_thread`); polls never overlap. No driver at all
gives one `GpuSourceUnavailable` with a clear message.

The pure conversions (mW -> W, affinity masks -> cpulists, NVML topology levels and
NVLink counts -> `topo -m` cells) live in `nvml_mapping`, testable without a GPU.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Callable
from types import ModuleType
from typing import Any

from cockpit.parse.gpu.events import GpuSamplesTaken, GpuSourceUnavailable
from cockpit.parse.gpu.nvsmi_topo import LEGEND, TopologyMatrix
from cockpit.parse.gpu.sample import GpuSample, decode_clock_event_reasons
from cockpit.sources.gpu.nvml_mapping import (
    NVLINK_DEVICE_TYPE_IBMNPU,
    NVLINK_DEVICE_TYPE_SWITCH,
    bytes_to_mib,
    ids_to_cpulist,
    mask_to_list,
    mw_to_w,
    normalize_bus_id,
    nvml_error_note,
    pair_nvlinks,
    topology_cell,
    unavailable_message,
)


def _noting(notes: dict[str, str]) -> Callable[..., Any]:
    """`call(field, fn, *args)`: fn(*args), or None with why in `notes[field]` when NVML
    refuses (every NVMLError subclass; ctypes errors too): one figure missing, not the tick."""

    def call(fieldname: str, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except Exception as exc:
            notes[fieldname] = nvml_error_note(exc)
            return None

    return call


# --- the sampler -----------------------------------------------------------------------


class NvmlSampler:
    """Samples every local GPU through NVML.

    `await open()` (or `async with`) first; then `await sample()` for one tick,
    `samples()` for a tick every `interval_s`, `await topology()` for the matrix.
    `nvml` can be a stand-in module for tests.
    """

    def __init__(
        self,
        *,
        interval_s: float = 1.0,
        pcie_throughput: bool = True,
        nvml: ModuleType | Any | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.interval_s = interval_s
        self.pcie_throughput = pcie_throughput
        """Each throughput read blocks ~20 ms per direction per GPU; off to save that."""
        self._nvml: Any = nvml  # pynvml has no type stubs, and tests pass a stand-in module
        self._clock = clock
        self._handles: list[object] = []
        self._static: dict[int, dict[str, Any]] = {}
        self._memory_v2 = True
        self._open = False

    # lifecycle
    async def open(self) -> int:
        """Initialise NVML; returns the GPU count. Raises GpuSourceUnavailable."""
        return await asyncio.to_thread(self.open_blocking)

    def open_blocking(self) -> int:
        if self._open:
            return len(self._handles)
        try:
            if self._nvml is None:
                import pynvml

                self._nvml = pynvml
            nv = self._nvml
            nv.nvmlInit()
        except Exception as exc:  # ImportError, NVMLError_*, OSError from ctypes
            raise GpuSourceUnavailable(unavailable_message(exc)) from exc
        self._open = True
        try:
            count = nv.nvmlDeviceGetCount()
            self._handles = [nv.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
        except Exception as exc:
            self.close_blocking()
            raise GpuSourceUnavailable(unavailable_message(exc)) from exc
        if not self._handles:
            self.close_blocking()
            raise GpuSourceUnavailable("NVML is working but reports no GPUs on this machine.")
        return len(self._handles)

    async def close(self) -> None:
        await asyncio.to_thread(self.close_blocking)

    def close_blocking(self) -> None:
        if self._open and self._nvml is not None:
            try:
                self._nvml.nvmlShutdown()
            except Exception:
                pass
        self._open = False
        self._handles = []

    async def __aenter__(self) -> NvmlSampler:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def gpu_count(self) -> int:
        return len(self._handles)

    # sampling
    async def sample(self) -> tuple[GpuSample, ...]:
        """One sample of every GPU, each GPU read in its own thread."""
        if not self._open:
            await self.open()
        now = self._clock()
        results = await asyncio.gather(
            *(asyncio.to_thread(self.sample_device, i, now) for i in range(len(self._handles)))
        )
        return tuple(results)

    def sample_blocking(self) -> tuple[GpuSample, ...]:
        self.open_blocking()
        now = self._clock()
        return tuple(self.sample_device(i, now) for i in range(len(self._handles)))

    async def samples(self, interval_s: float | None = None) -> AsyncIterator[GpuSamplesTaken]:
        """A tick every `interval_s` (default: the sampler's); the next poll is armed
        only after the previous one finished, so polls never overlap."""
        interval = self.interval_s if interval_s is None else interval_s
        await self.open()
        loop = asyncio.get_running_loop()
        next_at = loop.time()
        while True:
            batch = await self.sample()
            yield GpuSamplesTaken(host=None, samples=batch, taken_at=self._clock())
            next_at += interval
            now = loop.time()
            if next_at < now:  # fell behind (slow consumer or slow NVML): don't burst
                next_at = now
            await asyncio.sleep(next_at - now)

    def sample_device(self, i: int, now: float | None = None) -> GpuSample:
        nv = self._nvml
        h = self._handles[i]
        notes: dict[str, str] = {}
        call = _noting(notes)

        static = self._static.get(i)
        if static is None or static["name"] is None:  # re-read after a failed first read
            static = self._static[i] = self._read_static(i)
        for k, why in static["notes"].items():
            notes.setdefault(k, why)

        util = call("util_gpu_pct", nv.nvmlDeviceGetUtilizationRates, h)
        if util is None:
            notes["util_mem_pct"] = notes["util_gpu_pct"]
        mem = self._memory_info(h, notes)
        throttle = self._throttle(h, notes)
        rx = tx = None
        if self.pcie_throughput:
            rx = call("pcie_rx_kbps", nv.nvmlDeviceGetPcieThroughput, h, nv.NVML_PCIE_UTIL_RX_BYTES)
            tx = call("pcie_tx_kbps", nv.nvmlDeviceGetPcieThroughput, h, nv.NVML_PCIE_UTIL_TX_BYTES)
        else:
            notes["pcie_rx_kbps"] = notes["pcie_tx_kbps"] = "disabled (pcie_throughput=False)"
        return GpuSample(
            index=i,
            name=static["name"],
            uuid=static["uuid"],
            power_w=mw_to_w(call("power_w", nv.nvmlDeviceGetPowerUsage, h)),
            power_window_s=static["power_window_s"],
            power_limit_w=mw_to_w(call("power_limit_w", nv.nvmlDeviceGetEnforcedPowerLimit, h)),
            util_gpu_pct=None if util is None else util.gpu,
            util_mem_pct=None if util is None else util.memory,
            mem_used_mib=None if mem is None else bytes_to_mib(mem.used),
            mem_total_mib=None if mem is None else bytes_to_mib(mem.total),
            temp_c=call("temp_c", nv.nvmlDeviceGetTemperature, h, nv.NVML_TEMPERATURE_GPU),
            sm_clock_mhz=call("sm_clock_mhz", nv.nvmlDeviceGetClockInfo, h, nv.NVML_CLOCK_SM),
            sm_clock_max_mhz=static["sm_clock_max_mhz"],
            pcie_gen=call("pcie_gen", nv.nvmlDeviceGetCurrPcieLinkGeneration, h),
            pcie_gen_max=static["pcie_gen_max"],
            pcie_width=call("pcie_width", nv.nvmlDeviceGetCurrPcieLinkWidth, h),
            pcie_width_max=static["pcie_width_max"],
            pcie_rx_kbps=rx,
            pcie_tx_kbps=tx,
            numa_node=static["numa_node"],
            cpu_affinity=static["cpu_affinity"],
            energy_mj=call("energy_mj", nv.nvmlDeviceGetTotalEnergyConsumption, h),
            throttle_reasons=throttle,
            timestamp=self._clock() if now is None else now,
            notes=notes,
        )

    def _read_static(self, i: int) -> dict[str, Any]:
        """Figures that do not change while the driver is loaded, read once per GPU."""
        nv = self._nvml
        h = self._handles[i]
        notes: dict[str, str] = {}
        call = _noting(notes)

        name = call("name", nv.nvmlDeviceGetName, h)
        uuid = call("uuid", nv.nvmlDeviceGetUUID, h)
        cpus = self._cpu_affinity(h, notes)
        nodes = self._numa_nodes(h, notes)
        return {
            "name": name.decode() if isinstance(name, bytes) else name,
            "uuid": uuid.decode() if isinstance(uuid, bytes) else uuid,
            "sm_clock_max_mhz": call("sm_clock_max_mhz", nv.nvmlDeviceGetMaxClockInfo, h, nv.NVML_CLOCK_SM),
            "pcie_gen_max": call("pcie_gen_max", nv.nvmlDeviceGetMaxPcieLinkGeneration, h),
            "pcie_width_max": call("pcie_width_max", nv.nvmlDeviceGetMaxPcieLinkWidth, h),
            "cpu_affinity": cpus,
            "numa_node": nodes[0] if nodes else None,
            "numa_nodes": nodes,
            "power_window_s": power_window_s(nv, h, name),
            "notes": notes,
        }

    def _memory_info(self, h: object, notes: dict[str, str]) -> Any:
        nv = self._nvml
        if self._memory_v2 and hasattr(nv, "nvmlMemory_v2"):
            try:
                return nv.nvmlDeviceGetMemoryInfo(h, version=nv.nvmlMemory_v2)
            except Exception as exc:
                if nvml_error_note(exc) not in ("NVMLError_FunctionNotFound", "NVMLError_ArgumentVersionMismatch"):
                    notes["mem_used_mib"] = notes["mem_total_mib"] = nvml_error_note(exc)
                    return None
                self._memory_v2 = False  # driver older than R515
        try:
            return nv.nvmlDeviceGetMemoryInfo(h)
        except Exception as exc:
            notes["mem_used_mib"] = notes["mem_total_mib"] = nvml_error_note(exc)
            return None

    def _throttle(self, h: object, notes: dict[str, str]) -> tuple[str, ...]:
        nv = self._nvml
        for fname in ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"):
            fn = getattr(nv, fname, None)
            if fn is None:
                continue
            try:
                return decode_clock_event_reasons(int(fn(h)))
            except Exception as exc:
                notes["throttle_reasons"] = nvml_error_note(exc)
                if notes["throttle_reasons"] != "NVMLError_FunctionNotFound":
                    return ()
        return ()

    def _cpu_affinity(self, h: object, notes: dict[str, str]) -> str | None:
        words = (os.cpu_count() or 64) // 64 + 2
        try:
            mask = self._nvml.nvmlDeviceGetCpuAffinity(h, words)
        except Exception as exc:
            notes["cpu_affinity"] = nvml_error_note(exc)
            return None
        ids = mask_to_list(list(mask))
        if not ids:
            notes["cpu_affinity"] = "empty (cpuset/cgroup excludes the GPU's CPUs)"
            return None
        return ids_to_cpulist(ids)

    def _numa_nodes(self, h: object, notes: dict[str, str]) -> list[int]:
        nv = self._nvml
        try:
            mask = nv.nvmlDeviceGetMemoryAffinity(h, 4, getattr(nv, "NVML_AFFINITY_SCOPE_NODE", 0))
        except Exception as exc:
            notes["numa_node"] = nvml_error_note(exc)
            return []
        return mask_to_list(list(mask))

    # topology
    async def topology(self) -> TopologyMatrix:
        if not self._open:
            await self.open()
        return await asyncio.to_thread(self.topology_blocking)

    def topology_blocking(self) -> TopologyMatrix:
        """The same matrix `nvidia-smi topo -m` prints (GPU part), from NVML."""
        self.open_blocking()
        nv = self._nvml
        n = len(self._handles)
        names = [f"GPU{i}" for i in range(n)]
        warnings: list[str] = []
        bus_ids: list[str] = []
        for i, h in enumerate(self._handles):
            try:
                bus_ids.append(normalize_bus_id(nv.nvmlDeviceGetPciInfo(h).busId))
            except Exception as exc:
                bus_ids.append(f"unknown-{i}")
                warnings.append(f"GPU{i}: PCI info: {nvml_error_note(exc)}")
        peers = [self._nvlink_peers(h) for h in self._handles]
        links = pair_nvlinks(bus_ids, peers)
        matrix: dict[str, dict[str, str]] = {}
        for i in range(n):
            row: dict[str, str] = {}
            for j in range(n):
                if i == j:
                    continue
                level = None
                if (i, j) not in links:
                    try:
                        level = int(nv.nvmlDeviceGetTopologyCommonAncestor(self._handles[i], self._handles[j]))
                    except Exception as exc:
                        warnings.append(f"GPU{i}-GPU{j}: {nvml_error_note(exc)}")
                row[names[j]] = topology_cell(level, links.get((i, j), 0))
            matrix[names[i]] = row
        cpu: dict[str, str | None] = {}
        numa: dict[str, str | None] = {}
        gnid: dict[str, str | None] = {}
        for i in range(n):
            static = self._static.get(i) or self._static.setdefault(i, self._read_static(i))
            cpu[names[i]] = static["cpu_affinity"]
            numa[names[i]] = ids_to_cpulist(static["numa_nodes"]) if static["numa_nodes"] else "N/A"
            try:
                node = int(nv.nvmlDeviceGetNumaNodeId(self._handles[i]))
                gnid[names[i]] = str(node) if node >= 0 else "N/A"
            except Exception:
                gnid[names[i]] = "N/A"
        return TopologyMatrix(
            gpus=tuple(names),
            matrix=matrix,
            cpu_affinity=cpu,
            numa_affinity=numa,
            gpu_numa_id=gnid,
            legend=dict(LEGEND),
            warnings=tuple(warnings),
        )

    def _nvlink_peers(self, h: object) -> list[str | None]:
        """Remote bus id of each active NVLink (None for a switch / unknown remote)."""
        nv = self._nvml
        out: list[str | None] = []
        for link in range(int(getattr(nv, "NVML_NVLINK_MAX_LINKS", 18))):
            try:
                active = nv.nvmlDeviceGetNvLinkState(h, link)
            except Exception:
                break  # past the last link, or no NVLink at all
            if active != getattr(nv, "NVML_FEATURE_ENABLED", 1):
                continue
            try:
                kind = nv.nvmlDeviceGetNvLinkRemoteDeviceType(h, link)
            except Exception:
                kind = None
            if kind == NVLINK_DEVICE_TYPE_IBMNPU:
                continue
            if kind == NVLINK_DEVICE_TYPE_SWITCH:
                out.append(None)
                continue
            try:
                out.append(normalize_bus_id(nv.nvmlDeviceGetNvLinkRemotePciInfo(h, link).busId))
            except Exception:
                out.append(None)
        return out


GA100 = ("A100", "A30", "A800")
"""GA100 boards: NVML's power reading is instantaneous there, as on every architecture before
Ampere."""


def power_window_s(nv: Any, h: object, name: object) -> float | None:
    """The seconds `nvmlDeviceGetPowerUsage` averages over: 1.0 on Ampere and later but GA100,
    0.0 before (NVML's documentation), None: not known. Placed at the middle of its second,
    the average beat NVML's instantaneous field against the energy counter on an H100
    (benchmarks/bench_energy.py)."""
    try:
        arch = int(nv.nvmlDeviceGetArchitecture(h))
    except Exception:
        return None
    if arch == getattr(nv, "NVML_DEVICE_ARCH_UNKNOWN", 0xFFFFFFFF):
        return None
    ampere = getattr(nv, "NVML_DEVICE_ARCH_AMPERE", 7)
    if arch < ampere:
        return 0.0
    text = name.decode() if isinstance(name, bytes) else str(name or "")
    if arch == ampere and any(board in text for board in GA100):
        return 0.0
    return 1.0
