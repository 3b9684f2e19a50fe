"""The GPU and topology feeds: the LiveFeed shape, NVML for real (no driver here -> one
unavailable item), NVML with a stand-in module, nvidia-smi through a fake pool, files."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from cockpit.model.enums import GpuSource
from cockpit.model.session import Host
from cockpit.parse.gpu.events import GpuSamplesTaken, GpuSourceUnavailable
from cockpit.parse.gpu.nvsmi_topo import TopologyMatrix
from cockpit.sources.gpu import feed as gpu_feed
from cockpit.sources.gpu.feed import (
    FileTopologyFeed,
    NvmlFeed,
    NvmlTopologyFeed,
    NvsmiFeed,
    RemoteTopologyFeed,
    gpu_feed_for_host,
    history_points,
    interval_of,
)

REPO = Path(__file__).resolve().parents[3]
DEMO_TOPO = REPO / "sessions" / "demo" / "nvidia-smi-topo.txt"
DEMO_CSV = REPO / "sessions" / "demo" / "nvidia-smi-query.csv"


async def take(feed, n: int = 10) -> list:  # noqa: ANN001
    out = []
    async for item in feed.stream():
        out.append(item)
        if len(out) >= n:
            break
    return out


def _driver_present() -> bool:
    try:
        import pynvml

        pynvml.nvmlInit()
        pynvml.nvmlShutdown()
        return True
    except Exception:
        return False


@pytest.mark.skipif(_driver_present(), reason="this machine has an NVIDIA driver")
async def test_nvml_feed_without_a_driver_yields_one_unavailable_item() -> None:
    items = await take(NvmlFeed(0.05))
    assert len(items) == 1
    assert isinstance(items[0], GpuSourceUnavailable)
    assert "driver" in items[0].message or "pynvml" in items[0].message


@pytest.mark.skipif(_driver_present(), reason="this machine has an NVIDIA driver")
async def test_nvml_topology_feed_without_a_driver_yields_one_unavailable_item() -> None:
    items = await take(NvmlTopologyFeed())
    assert len(items) == 1 and isinstance(items[0], GpuSourceUnavailable)


async def test_nvml_feed_with_a_broken_stand_in_module() -> None:
    class Broken:
        def nvmlInit(self) -> None:  # noqa: N802
            raise OSError("libnvidia-ml.so.1: cannot open shared object file")

    items = await take(NvmlFeed(nvml=Broken()))
    assert len(items) == 1 and isinstance(items[0], GpuSourceUnavailable)


def test_feeds_describe_themselves() -> None:
    assert NvmlFeed(2).description == "NVML: local GPUs every 2 s"
    assert NvsmiFeed(object(), SimpleNamespace(host="gpu1"), interval_ms=500).description == "nvidia-smi on gpu1 every 0.5 s"
    assert FileTopologyFeed(DEMO_TOPO).description == "topology from nvidia-smi-topo.txt"


def test_interval_and_history_bounds() -> None:
    assert interval_of(None) == 1.0
    assert interval_of(Host(name="a", gpu_interval_s=2.5)) == 2.5
    assert interval_of(SimpleNamespace(gpu_interval_s="bogus")) == 1.0
    assert history_points(1.0) == 900
    assert history_points(0.001) == 18_000
    assert history_points(3600) == 60


def test_feed_for_host_follows_the_session() -> None:
    assert gpu_feed_for_host(Host(name="a")) is None
    local = gpu_feed_for_host(Host(name="a", gpu_source=GpuSource.NVML, gpu_interval_s=2))
    assert isinstance(local, NvmlFeed) and local.interval_s == 2
    remote = gpu_feed_for_host(Host(name="gpu1", ssh="gpu1", gpu_source=GpuSource.NVIDIA_SMI, gpu_interval_s=0.5),
                               pool=object())
    assert isinstance(remote, NvsmiFeed) and remote.interval_ms == 500 and remote.host == "gpu1"
    with pytest.raises(ValueError):
        gpu_feed_for_host(Host(name="gpu1", gpu_source=GpuSource.NVIDIA_SMI))


async def test_file_topology_feed(tmp_path: Path) -> None:
    (item,) = await take(FileTopologyFeed(DEMO_TOPO))
    assert isinstance(item, TopologyMatrix) and len(item.gpus) == 8
    (bad,) = await take(FileTopologyFeed(tmp_path / "missing.txt"))
    assert isinstance(bad, GpuSourceUnavailable)
    (tmp_path / "junk.txt").write_text("hello\n")
    (junk,) = await take(FileTopologyFeed(tmp_path / "junk.txt"))
    assert isinstance(junk, GpuSourceUnavailable)


class FakeResult:
    def __init__(self, status: int, stdout: str, stderr: str = "") -> None:
        self.exit_status, self.stdout, self.stderr = status, stdout, stderr


class FakeConnection:
    def __init__(self, result: FakeResult) -> None:
        self.result = result

    async def create_process(self, command: str, **_: object) -> FakeConnection:
        return self  # the process, too: its wait() gives the result, as asyncssh's does

    async def wait(self, check: bool = False) -> FakeResult:
        return self.result


class FakePool:
    def __init__(self, result: FakeResult) -> None:
        self.result = result

    async def connection(self, target: object) -> FakeConnection:
        return FakeConnection(self.result)


async def test_remote_topology_feed() -> None:
    pool = FakePool(FakeResult(0, DEMO_TOPO.read_text()))
    (item,) = await take(RemoteTopologyFeed(pool, SimpleNamespace(host="gpu1")))
    assert isinstance(item, TopologyMatrix) and item.numa_affinity and item.numa_affinity["GPU7"] == "1"
    pool = FakePool(FakeResult(127, "", "sh: nvidia-smi: command not found"))
    (item,) = await take(RemoteTopologyFeed(pool, SimpleNamespace(host="gpu1")))
    assert isinstance(item, GpuSourceUnavailable) and "command not found" in item.message


async def test_nvsmi_feed_streams_ticks_through_the_real_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = DEMO_CSV.read_text().splitlines()[:24]

    class Stream:
        def __init__(self, *a: object, **k: object) -> None:
            self.closed = False

        async def events(self):  # noqa: ANN202
            from cockpit.sources.gpu.nvsmi_stream import parse_lines

            async def src():  # noqa: ANN202
                for ln in lines:
                    yield ln

            async for ev in parse_lines(src(), host="gpu1", clock=lambda: 1.0):
                yield ev

        def close(self) -> None:
            self.closed = True

    monkeypatch.setattr(gpu_feed, "NvsmiStream", Stream)
    items = await take(NvsmiFeed(object(), SimpleNamespace(host="gpu1")))
    assert [len(i.samples) for i in items] == [8, 8, 8]
    assert all(isinstance(i, GpuSamplesTaken) and i.host == "gpu1" for i in items)


def test_no_textual_import() -> None:
    import subprocess

    code = "import cockpit.sources.gpu.feed, sys; assert 'textual' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
