"""NVML -> GpuSample / TopologyMatrix without a GPU: the pure mapping code, a stand-in
pynvml module, and the real no-driver path of this machine."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pynvml
import pytest

from cockpit.parse.gpu.events import GpuSamplesTaken, GpuSourceUnavailable
from cockpit.sources.gpu.nvml_mapping import (
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
from cockpit.sources.gpu.nvml_sampler import NvmlSampler

REPO = Path(__file__).resolve().parents[3]


def _driver_present() -> bool:
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError:
        return False
    pynvml.nvmlShutdown()
    return True


HAS_DRIVER = _driver_present()


def err(code: int) -> pynvml.NVMLError:
    return pynvml.NVMLError(code)  # pynvml maps the code to its NVMLError_* subclass


# --- pure mapping ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "links", "cell"),
    [
        (pynvml.NVML_TOPOLOGY_INTERNAL, 0, "PIX"),
        (pynvml.NVML_TOPOLOGY_SINGLE, 0, "PIX"),
        (pynvml.NVML_TOPOLOGY_MULTIPLE, 0, "PXB"),
        (pynvml.NVML_TOPOLOGY_HOSTBRIDGE, 0, "PHB"),
        (pynvml.NVML_TOPOLOGY_NODE, 0, "NODE"),
        (pynvml.NVML_TOPOLOGY_SYSTEM, 0, "SYS"),
        (pynvml.NVML_TOPOLOGY_SYSTEM, 18, "NV18"),
        (None, 4, "NV4"),
        (None, 0, "N/A"),
    ],
)
def test_nvml_topology_levels_map_to_topo_m_cells(level, links, cell):
    assert topology_cell(level, links) == cell


def test_unit_conversions():
    assert mw_to_w(330_500) == 330.5 and mw_to_w(None) is None
    assert bytes_to_mib(81559 * 1024 * 1024 + 5) == 81559 and bytes_to_mib(None) is None


def test_affinity_masks_become_linux_cpulists():
    words = [(1 << 48) - 1, 0xFFFF_0000_0000_0000, (1 << 16) - 1]  # 0-47 and 112-143
    assert ids_to_cpulist(mask_to_list(words)) == "0-47,112-143"
    assert ids_to_cpulist([4, 6, 9, 15, 17]) == "4,6,9,15,17"
    assert ids_to_cpulist([]) == "" and mask_to_list([0, 0]) == []


def test_bus_ids_normalize_across_domain_widths():
    assert normalize_bus_id(b"00000000:17:00.0") == normalize_bus_id("0000:17:00.0") == "0000:17:00.0"
    assert normalize_bus_id("00000000:AB:00.0\x00") == "0000:ab:00.0"


def test_direct_nvlink_bridges_count_per_pair():
    bus = ["0000:01:00.0", "0000:02:00.0", "0000:03:00.0", "0000:04:00.0"]
    peers = [[bus[1]] * 4, [bus[0]] * 4, [bus[3]] * 2, [bus[2]] * 2]
    links = pair_nvlinks(bus, peers)
    assert links == {(0, 1): 4, (1, 0): 4, (2, 3): 2, (3, 2): 2}


def test_nvswitch_links_give_every_switch_attached_pair_the_same_count():
    bus = [f"0000:{i:02x}:00.0" for i in range(8)]
    links = pair_nvlinks(bus, [[None] * 18 for _ in bus])
    assert len(links) == 56 and set(links.values()) == {18}


def test_nvml_errors_become_their_class_name():
    assert nvml_error_note(err(pynvml.NVML_ERROR_NOT_SUPPORTED)) == "NVMLError_NotSupported"
    assert nvml_error_note(err(pynvml.NVML_ERROR_NO_PERMISSION)) == "NVMLError_NoPermission"


@pytest.mark.parametrize(
    ("exc", "says"),
    [
        (err(pynvml.NVML_ERROR_LIBRARY_NOT_FOUND), "No NVIDIA driver"),
        (err(pynvml.NVML_ERROR_DRIVER_NOT_LOADED), "driver is not loaded"),
        (err(pynvml.NVML_ERROR_LIB_RM_VERSION_MISMATCH), "differ in version"),
        (ImportError("pynvml"), "nvidia-ml-py"),
    ],
)
def test_start_failures_get_one_clear_sentence(exc, says):
    assert says in unavailable_message(exc)


# --- a stand-in pynvml -------------------------------------------------------------------------


class FakeNvml:
    """Three GPUs: 0 and 1 bridged by 4 NVLinks; 2 a PCIe card that refuses several calls.
    Constants come from the real pynvml."""

    BUS = [b"00000000:17:00.0", b"00000000:65:00.0", b"00000000:CA:00.0"]
    LEVELS = {(0, 1): 30, (0, 2): 40, (1, 2): 50}

    def __init__(self, *, init_error: int | None = None, delay_s: float = 0.0) -> None:
        self.init_error = init_error
        self.delay_s = delay_s
        self.shutdowns = 0

    def __getattr__(self, name):
        return getattr(pynvml, name)

    def nvmlInit(self):
        if self.init_error is not None:
            raise err(self.init_error)

    def nvmlShutdown(self):
        self.shutdowns += 1

    def nvmlDeviceGetCount(self):
        return 3

    def nvmlDeviceGetHandleByIndex(self, i):
        return i

    def nvmlDeviceGetName(self, h):
        return ["NVIDIA RTX A6000", "NVIDIA RTX A6000", "NVIDIA L4"][h]

    def nvmlDeviceGetUUID(self, h):
        return f"GPU-{h:04d}"

    def nvmlDeviceGetPowerUsage(self, h):
        time.sleep(self.delay_s)
        if h == 2:
            raise err(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return [150_250, 290_000][h]

    def nvmlDeviceGetEnforcedPowerLimit(self, h):
        return [300_000, 300_000, 72_000][h]

    def nvmlDeviceGetUtilizationRates(self, h):
        return SimpleNamespace(gpu=80 + h, memory=30)

    def nvmlDeviceGetMemoryInfo(self, h, version=None):
        if version is not None and h == 2:
            raise err(pynvml.NVML_ERROR_FUNCTION_NOT_FOUND)
        return SimpleNamespace(used=1024 * 1024 * 1000, total=1024 * 1024 * 49140)

    def nvmlDeviceGetTemperature(self, h, sensor):
        return 60 + h

    def nvmlDeviceGetClockInfo(self, h, clock):
        return 1800

    def nvmlDeviceGetMaxClockInfo(self, h, clock):
        return 2100

    def nvmlDeviceGetCurrPcieLinkGeneration(self, h):
        return 4

    def nvmlDeviceGetMaxPcieLinkGeneration(self, h):
        return 4

    def nvmlDeviceGetCurrPcieLinkWidth(self, h):
        return 16 if h < 2 else 8

    def nvmlDeviceGetMaxPcieLinkWidth(self, h):
        return 16

    def nvmlDeviceGetPcieThroughput(self, h, counter):
        return 1000 if counter == pynvml.NVML_PCIE_UTIL_RX_BYTES else 2000

    def nvmlDeviceGetTotalEnergyConsumption(self, h):
        return 123_456_789

    def nvmlDeviceGetCurrentClocksEventReasons(self, h):
        if h == 2:
            raise err(pynvml.NVML_ERROR_NO_PERMISSION)
        return 0x4 if h == 1 else 0x1

    def nvmlDeviceGetCpuAffinity(self, h, n):
        return [0] * n if h == 2 else [0xFFFF] + [0] * (n - 1)

    def nvmlDeviceGetMemoryAffinity(self, h, n, scope):
        if h == 2:
            raise err(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return [0b1] + [0] * (n - 1)

    def nvmlDeviceGetNumaNodeId(self, h):
        raise err(pynvml.NVML_ERROR_NOT_SUPPORTED)

    def nvmlDeviceGetPciInfo(self, h):
        return SimpleNamespace(busId=self.BUS[h])

    def nvmlDeviceGetNvLinkState(self, h, link):
        if h == 2 or link >= 4:
            raise err(pynvml.NVML_ERROR_NOT_SUPPORTED if h == 2 else pynvml.NVML_ERROR_INVALID_ARGUMENT)
        return pynvml.NVML_FEATURE_ENABLED

    def nvmlDeviceGetNvLinkRemoteDeviceType(self, h, link):
        return pynvml.NVML_NVLINK_DEVICE_TYPE_GPU

    def nvmlDeviceGetNvLinkRemotePciInfo(self, h, link):
        return SimpleNamespace(busId=self.BUS[1 - h].replace(b"00000000", b"0000"))

    def nvmlDeviceGetTopologyCommonAncestor(self, a, b):
        return self.LEVELS[(min(a, b), max(a, b))]


async def test_a_sample_fills_every_field_and_notes_each_refusal():
    async with NvmlSampler(nvml=FakeNvml(), clock=lambda: 1000.0) as sampler:
        g0, g1, g2 = await sampler.sample()
    assert (g0.index, g0.name, g0.uuid) == (0, "NVIDIA RTX A6000", "GPU-0000")
    assert (g0.power_w, g0.power_limit_w, g1.power_w) == (150.25, 300.0, 290.0)
    assert (g0.util_gpu_pct, g0.util_mem_pct, g0.mem_used_mib, g0.mem_total_mib) == (80, 30, 1000, 49140)
    assert (g0.temp_c, g0.sm_clock_mhz, g0.sm_clock_max_mhz) == (60, 1800, 2100)
    assert (g2.pcie_gen, g2.pcie_gen_max, g2.pcie_width, g2.pcie_width_max) == (4, 4, 8, 16)
    assert (g0.pcie_rx_kbps, g0.pcie_tx_kbps, g0.energy_mj) == (1000, 2000, 123_456_789)
    assert (g0.cpu_affinity, g0.numa_node) == ("0-15", 0)
    assert g0.throttle_reasons == ("gpu_idle",) and g1.throttle_reasons == ("sw_power_cap",)
    assert g0.timestamp == 1000.0 and dict(g0.notes) == {}
    # GPU 2: power NotSupported, memory via the v1 call, throttle and affinity refused
    assert g2.power_w is None and g2.notes["power_w"] == "NVMLError_NotSupported"
    assert g2.mem_total_mib == 49140 and "mem_total_mib" not in g2.notes
    assert g2.throttle_reasons == () and g2.notes["throttle_reasons"] == "NVMLError_NoPermission"
    assert g2.cpu_affinity is None and "cgroup" in g2.notes["cpu_affinity"]
    assert g2.numa_node is None and g2.notes["numa_node"] == "NVMLError_NotSupported"


async def test_topology_from_nvml_matches_the_topo_m_shape():
    async with NvmlSampler(nvml=FakeNvml()) as sampler:
        topo = await sampler.topology()
    assert topo.to_json() == {
        "gpus": 3,
        "nics": 0,
        "matrix": {
            "GPU0": {"GPU1": "NV4", "GPU2": "NODE"},
            "GPU1": {"GPU0": "NV4", "GPU2": "SYS"},
            "GPU2": {"GPU0": "NODE", "GPU1": "SYS"},
        },
        "cpu_affinity": {"GPU0": "0-15", "GPU1": "0-15", "GPU2": None},
        "numa_affinity": {"GPU0": "0", "GPU1": "0", "GPU2": "N/A"},
    }
    assert topo.gpu_numa_id == {"GPU0": "N/A", "GPU1": "N/A", "GPU2": "N/A"}
    assert topo.warnings == ()


async def test_polls_run_at_the_interval_and_never_overlap(monkeypatch):
    fake = FakeNvml(delay_s=0.05)  # each poll takes longer than the interval
    sampler = NvmlSampler(nvml=fake, interval_s=0.01)
    in_flight, peak, starts = 0, 0, []
    original = sampler.sample

    async def counted():
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        starts.append(asyncio.get_running_loop().time())
        try:
            return await original()
        finally:
            in_flight -= 1

    monkeypatch.setattr(sampler, "sample", counted)
    events = []
    async for ev in sampler.samples():
        events.append(ev)
        if len(events) == 4:
            break
    await sampler.close()
    assert all(isinstance(e, GpuSamplesTaken) and len(e.samples) == 3 and e.host is None for e in events)
    assert peak == 1
    assert all(b - a >= 0.045 for a, b in zip(starts, starts[1:]))
    assert fake.shutdowns == 1


async def test_an_init_failure_is_one_gpu_source_unavailable():
    sampler = NvmlSampler(nvml=FakeNvml(init_error=pynvml.NVML_ERROR_DRIVER_NOT_LOADED))
    with pytest.raises(GpuSourceUnavailable, match="driver is not loaded"):
        await sampler.open()
    with pytest.raises(GpuSourceUnavailable):
        async for _ in sampler.samples():
            pass


@pytest.mark.skipif(HAS_DRIVER, reason="this machine has an NVIDIA driver")
async def test_without_a_driver_the_real_nvml_path_says_so_clearly():
    with pytest.raises(GpuSourceUnavailable) as info:
        await NvmlSampler().open()
    assert info.value.message == "No NVIDIA driver on this machine (libnvidia-ml.so.1 not found): no local GPUs."


@pytest.mark.skipif(HAS_DRIVER, reason="this machine has an NVIDIA driver")
@pytest.mark.parametrize("argv", [["gpus"], ["gpus", "--once", "--json"], ["topo", "--json"]])
def test_without_a_driver_or_host_the_commands_exit_1_with_one_line(argv):
    out = subprocess.run([sys.executable, "-m", "cockpit", *argv], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert out.returncode == 1
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cockpit: No NVIDIA driver on this machine")


class ArchNvml(FakeNvml):
    """STAND-IN: GPU 0 a Hopper board, GPU 1 an A100 (GA100), GPU 2 whose architecture NVML
    will not say; the architecture constants are the real pynvml's."""

    NAMES = [b"NVIDIA H100 80GB HBM3", b"NVIDIA A100-SXM4-80GB", b"Tesla V100"]

    def nvmlDeviceGetName(self, h):
        return self.NAMES[h]

    def nvmlDeviceGetArchitecture(self, h):
        if h == 2:
            raise err(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return pynvml.NVML_DEVICE_ARCH_HOPPER if h == 0 else pynvml.NVML_DEVICE_ARCH_AMPERE


async def test_power_says_the_window_nvml_averages_it_over():
    """nvmlDeviceGetPowerUsage is a 1 s average on Ampere and later but GA100 and instantaneous
    there and before (NVML's documentation): the sample says which, so the energy integral
    can place the draw at the middle of its second (benchmarks/bench_energy.py)."""
    async with NvmlSampler(nvml=ArchNvml(), clock=lambda: 1000.0) as sampler:
        g0, g1, g2 = await sampler.sample()
    assert (g0.power_w, g0.power_window_s) == (150.25, 1.0)
    assert (g1.power_w, g1.power_window_s) == (290.0, 0.0)
    assert g2.power_window_s is None  # not known: the draw stands at its timestamp
