"""Against a real NVIDIA driver: NVML samples and topology, cross-checked with nvidia-smi.

Skipped where there is no driver (CI, laptops); run these on a GPU machine:
`pytest tests/gpu -q`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cockpit.parse.gpu.nvsmi_query import QUERY_FIELDS, QueryStreamParser, query_command
from cockpit.parse.gpu.nvsmi_topo import DISTANCE_CLASSES, distance_class, parse_topology
from cockpit.sources.gpu.nvml_sampler import NvmlSampler
from cockpit.sources.gpu.nvsmi_stream import swap_rejected_field


def _driver_present() -> bool:
    try:
        import pynvml

        pynvml.nvmlInit()
        pynvml.nvmlShutdown()
        return True
    except Exception:
        return False


pytestmark = pytest.mark.skipif(not _driver_present(), reason="needs an NVIDIA driver (run on the device machine)")
HAS_SMI = shutil.which("nvidia-smi") is not None
REPO = Path(__file__).resolve().parents[2]


async def test_every_gpu_gives_power_memory_and_a_reason_for_each_gap():
    async with NvmlSampler() as sampler:
        samples = await sampler.sample()
        count = sampler.gpu_count  # read while open: close() drops the handles
    assert len(samples) == count >= 1
    for s in samples:
        assert s.name and s.uuid and s.uuid.startswith(("GPU-", "MIG-"))
        assert s.power_w is not None and 0 < s.power_w < 2000, s
        assert s.power_limit_w is not None and s.power_w <= s.power_limit_w * 1.5
        assert s.mem_total_mib and s.mem_total_mib > 1000
        assert s.temp_c is not None and 0 < s.temp_c < 120
        for name, value in s.to_json().items():
            if value is None and name not in ("host",):
                assert name in s.notes, f"GPU{s.index}.{name} is None without a note"
        print(json.dumps(s.to_json()))


async def test_nvml_topology_is_square_symmetric_and_uses_known_classes():
    async with NvmlSampler() as sampler:
        topo = await sampler.topology()
        n = sampler.gpu_count
    assert len(topo.gpus) == n
    for a in topo.gpus:
        assert set(topo.matrix[a]) == set(topo.gpus) - {a}
        for b, cell in topo.matrix[a].items():
            assert distance_class(cell) in DISTANCE_CLASSES[1:], cell
            assert topo.matrix[b][a] == cell
    assert topo.warnings == ()
    print(json.dumps(topo.to_json(detail=True)))


@pytest.mark.skipif(not HAS_SMI, reason="nvidia-smi not on PATH")
async def test_nvml_topology_agrees_with_nvidia_smi_topo_m():
    text = subprocess.run(["nvidia-smi", "topo", "-m"], capture_output=True, text=True, timeout=60).stdout
    print(text)
    smi = parse_topology(text)
    async with NvmlSampler() as sampler:
        nvml = await sampler.topology()
    assert smi.warnings == ()
    assert nvml.matrix == smi.matrix
    assert nvml.cpu_affinity == smi.cpu_affinity
    assert nvml.numa_affinity == smi.numa_affinity
    if smi.gpu_numa_id is not None:
        assert nvml.gpu_numa_id == smi.gpu_numa_id


@pytest.mark.skipif(not HAS_SMI, reason="nvidia-smi not on PATH")
async def test_the_stream_field_list_is_accepted_and_agrees_with_nvml():
    fields = QUERY_FIELDS
    for _ in range(len(QUERY_FIELDS)):  # what NvsmiStream does when a driver rejects a field
        proc = subprocess.run(
            ["timeout", "2", *query_command(250, fields).split()], capture_output=True, text=True, timeout=30
        )
        swapped = swap_rejected_field(fields, proc.stdout + proc.stderr)
        if swapped is None:
            break
        print(f"driver rejected a field; now querying {swapped}")
        fields = swapped
    parser = QueryStreamParser(fields, clock=None)
    batches = parser.feed(proc.stdout) + parser.flush()
    assert len(batches) >= 3 and parser.errors == [], proc.stdout[-2000:] + proc.stderr
    async with NvmlSampler() as sampler:
        nvml = await sampler.sample()
    last = batches[-2]
    print([s.to_json() for s in last])
    assert [s.index for s in last] == [s.index for s in nvml]
    for a, b in zip(last, nvml):
        assert a.uuid == b.uuid and a.name == b.name
        assert a.mem_total_mib == pytest.approx(b.mem_total_mib, abs=2)
        assert a.power_limit_w == pytest.approx(b.power_limit_w, rel=0.01)
        assert a.pcie_width_max == b.pcie_width_max and a.sm_clock_max_mhz == b.sm_clock_max_mhz
    assert fields == QUERY_FIELDS, "the default field list needed a swap on this driver"


@pytest.mark.parametrize("argv", [["gpus", "--once", "--json"], ["topo", "--json"], ["gpus", "--count", "2"]])
def test_the_commands_run_locally(argv):
    out = subprocess.run([sys.executable, "-m", "cockpit", *argv], capture_output=True, text=True, cwd=REPO, timeout=120)
    print(out.stdout)
    assert out.returncode == 0, out.stderr
