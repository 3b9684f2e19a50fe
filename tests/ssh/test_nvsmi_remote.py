"""The remote GPU path against a real sshd: NvsmiStream, fetch_topology, `cockpit gpus HOST`.

STAND-IN, NOT NVIDIA's nvidia-smi: `bin_dir/nvidia-smi` is a small /bin/sh script written
by these tests. It replays recorded text: the 8x A40 figures of the corpus table 034 as
`--query-gpu` CSV lines (3 ticks, cycled), honouring `-lms N` by sleeping N ms between
ticks, and the corpus `topo -m` paste 056 for `topo -m`. Marker files make it refuse
the throttle field (as an old driver would) or behave as if it were not installed.
It logs every start, so the tests can check that ONE process serves the whole stream.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path

import pytest

from cockpit.parse.gpu.events import GpuSamplesTaken, GpuSourceUnavailable, GpuStreamInterrupted
from cockpit.parse.gpu.nvsmi_query import QUERY_FIELDS, parse_nvsmi_table
from cockpit.sources.gpu.nvsmi_stream import NvsmiStream, fetch_samples, fetch_topology
from cockpit.sources.transport.ssh_pool import Backoff, SshPool

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus" / "nvidia-smi"
TICKS = 3

STAND_IN = r"""#!/bin/sh
# STAND-IN nvidia-smi for cockpit's SSH tests: replays recorded corpus text. Not NVIDIA's tool.
D=__DATA__
echo "$*" >> "$D/starts"
if [ -e "$D/missing" ]; then echo "sh: 1: nvidia-smi: not found" >&2; exit 127; fi
case "$*" in
  *"topo -m"*) cat "$D/topo.txt"; exit 0 ;;
esac
data="$D/ticks.csv"
case "$*" in
  *clocks_throttle_reasons*)
    if [ -e "$D/reject-throttle" ]; then
      echo 'Field "clocks_throttle_reasons.active" is not a valid field to query.'; echo; exit 2
    fi ;;
  *clocks_event_reasons*) data="$D/ticks-event.csv" ;;
esac
ms=""; prev=""
for a in "$@"; do
  [ "$prev" = "-lms" ] && ms="$a"
  case "$a" in --loop-ms=*) ms="${a#--loop-ms=}" ;; esac
  prev="$a"
done
n=__NGPU__
if [ -z "$ms" ]; then head -n "$n" "$data"; exit 0; fi
secs=$(awk "BEGIN{print $ms/1000}")
while :; do
  i=0
  while [ "$i" -lt __TICKS__ ]; do
    # Like the real tool: once nobody reads (the channel closed), stop.
    sed -n "$((i * n + 1)),$((i * n + n))p" "$data" || exit 0
    sleep "$secs"
    i=$((i + 1))
  done
done
"""


def _recorded_ticks(throttle_hex: str) -> tuple[list[str], list]:
    """CSV lines in QUERY_FIELDS order from the corpus table 034, power varied per tick."""
    gpus = parse_nvsmi_table((CORPUS / "034.txt").read_text())
    lines = []
    for t in range(TICKS):
        for g in gpus:
            values = {
                "timestamp": f"2023/08/15 11:43:{53 + t:02d}.000", "index": g.index, "name": g.name,
                "uuid": "[N/A]", "power.draw": f"{g.power_w + t:.2f}", "enforced.power.limit": f"{g.power_limit_w:.2f}",
                "utilization.gpu": g.util_gpu_pct, "utilization.memory": "[N/A]", "memory.used": g.mem_used_mib,
                "memory.total": g.mem_total_mib, "temperature.gpu": g.temp_c, "clocks.sm": "[Not Supported]",
                "clocks.max.sm": 1740, "pcie.link.gen.current": 4, "pcie.link.gen.max": 4,
                "pcie.link.width.current": 16, "pcie.link.width.max": 16,
                "clocks_throttle_reasons.active": throttle_hex,
            }
            lines.append(", ".join(str(values[f]) for f in QUERY_FIELDS))
    return lines, gpus


@pytest.fixture
def stand_in(sshd):
    data = sshd.make_dir("nvsmi")
    os.chmod(data, 0o777)  # the login user appends to the start log
    ticks, gpus = _recorded_ticks("0x0000000000000001")
    (data / "ticks.csv").write_text("\n".join(ticks) + "\n")
    (data / "ticks-event.csv").write_text("\n".join(t.replace("0x0000000000000001", "0x0000000000000004") for t in ticks) + "\n")
    (data / "topo.txt").write_text((CORPUS / "056.txt").read_text())
    script = sshd.bin_dir / "nvidia-smi"
    script.write_text(
        STAND_IN.replace("__DATA__", str(data)).replace("__NGPU__", str(len(gpus))).replace("__TICKS__", str(TICKS))
    )
    os.chmod(script, 0o755)
    yield data, gpus
    script.unlink(missing_ok=True)


def starts(data: Path) -> list[str]:
    p = data / "starts"
    return p.read_text().splitlines() if p.exists() else []


async def take(stream: NvsmiStream, n_batches: int, timeout: float = 20.0) -> list:
    events: list = []

    async def run():
        async for ev in stream:
            events.append(ev)
            if isinstance(ev, GpuSourceUnavailable):
                return
            if sum(isinstance(e, GpuSamplesTaken) for e in events) >= n_batches:
                return

    await asyncio.wait_for(run(), timeout)
    return events


def fast_pool() -> SshPool:
    return SshPool(backoff=Backoff(base_s=0.1, cap_s=0.5, jitter=0.0), agent_path=None, stable_after_s=0.5)


async def test_one_long_lived_process_streams_per_tick_batches(sshd, stand_in):
    data, gpus = stand_in
    async with fast_pool() as pool:
        stream = NvsmiStream(pool, sshd.target(), interval_ms=100, backoff_s=(0.2,))
        events = await take(stream, 7)
    batches = [e for e in events if isinstance(e, GpuSamplesTaken)]
    assert len(batches) == 7 and not [e for e in events if not isinstance(e, GpuSamplesTaken)]
    assert all(len(b.samples) == 8 and b.host == sshd.target().label for b in batches)
    first = batches[0].samples
    assert [s.index for s in first] == list(range(8))
    assert [s.power_w for s in first] == [g.power_w for g in gpus]
    assert [s.power_w for s in batches[1].samples] == [g.power_w + 1 for g in gpus]
    assert first[0].name == "NVIDIA A40" and first[0].power_limit_w == 300.0 and first[0].mem_total_mib == 46068
    assert first[0].sm_clock_mhz is None and first[0].notes["sm_clock_mhz"] == "[Not Supported]"
    assert first[0].throttle_reasons == ("gpu_idle",)
    assert len(starts(data)) == 1, starts(data)  # one process, not one exec per sample
    assert "-lms 100" in starts(data)[0]


async def test_a_field_an_old_driver_rejects_is_swapped_and_the_stream_restarts(sshd, stand_in):
    data, _ = stand_in
    (data / "reject-throttle").touch()
    async with fast_pool() as pool:
        stream = NvsmiStream(pool, sshd.target(), interval_ms=100, backoff_s=(0.2,))
        events = await take(stream, 2)
    batches = [e for e in events if isinstance(e, GpuSamplesTaken)]
    assert batches[0].samples[0].throttle_reasons == ("sw_power_cap",)
    assert "clocks_event_reasons.active" in stream.fields
    runs = starts(data)
    assert len(runs) == 2 and "clocks_throttle_reasons" in runs[0] and "clocks_event_reasons" in runs[1]


async def test_the_stream_comes_back_after_the_server_dies(sshd, stand_in):
    async with fast_pool() as pool:
        stream = NvsmiStream(pool, sshd.target(), interval_ms=100, backoff_s=(0.2,))
        events: list = []
        it = stream.events()
        while not isinstance(ev := await asyncio.wait_for(it.__anext__(), 20), GpuSamplesTaken):
            events.append(ev)
        sshd.kill_all()
        await asyncio.sleep(0.3)
        sshd.start()
        after: list[object] = []
        while len([e for e in after if isinstance(e, GpuSamplesTaken)]) < 3:
            ev = await asyncio.wait_for(it.__anext__(), 30)
            after.append(ev)
        await it.aclose()
    interruptions = [e for e in after if isinstance(e, GpuStreamInterrupted)]
    assert interruptions, after
    assert all(e.host == sshd.target().label and e.retry_in_s >= 0 for e in interruptions)
    assert stream.restarts >= 1
    assert isinstance(after[-1], GpuSamplesTaken) and len(after[-1].samples) == 8


async def test_a_host_without_nvidia_smi_ends_the_stream_with_one_clear_event(sshd, stand_in):
    data, _ = stand_in
    (data / "missing").touch()
    async with fast_pool() as pool:
        events = await take(NvsmiStream(pool, sshd.target(), interval_ms=100, backoff_s=(0.2,)), 1)
    assert len(events) == 1 and isinstance(events[0], GpuSourceUnavailable)
    assert "nvidia-smi is not installed" in events[0].message


async def test_topology_and_a_single_sample_over_the_same_pool(sshd, stand_in):
    async with fast_pool() as pool:
        topo = await fetch_topology(pool, sshd.target())
        samples = await fetch_samples(pool, sshd.target())
    assert topo.to_json() == json.loads((CORPUS / "056.expect.json").read_text())
    assert [s.index for s in samples] == list(range(8)) and samples[0].power_w == 61.0


def _cli(sshd, *argv: str) -> subprocess.CompletedProcess:
    return sshd.cockpit(*argv, "cockpit-loop")


def test_the_gpus_command_streams_json_lines_from_a_host(sshd, stand_in):
    out = _cli(sshd, "gpus", "--json", "--count", "2", "--interval", "0.1")
    assert out.returncode == 0, out.stderr
    ticks = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(ticks) == 2 and all(len(t["gpus"]) == 8 for t in ticks)
    assert ticks[0]["host"] == "cockpit-loop" and ticks[0]["gpus"][0]["name"] == "NVIDIA A40"


def test_the_topo_command_reads_a_host(sshd, stand_in):
    out = _cli(sshd, "topo", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == json.loads((CORPUS / "056.expect.json").read_text())
