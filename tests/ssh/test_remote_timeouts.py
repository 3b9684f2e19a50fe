"""Remote commands that get no answer, against a real sshd: they say so, exit 1, and leave
nothing running on the host.

STAND-IN, NOT NVIDIA's nvidia-smi: `bin_dir/nvidia-smi` is a /bin/sh script that never
answers (it waits on a `sleep` child whose argument carries a marker unique to the test),
as a hung driver or a stuck GPU does. After the command exits, no process with the marker
(the sleep) and none running the script may be left on the host.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import uuid

import pytest

from sshd_fixture import ALIAS

from cockpit.parse.gpu.events import GpuSourceUnavailable
from cockpit.sources.gpu.nvsmi_stream import fetch_topology
from cockpit.sources.transport.ssh_pool import Backoff, SshPool

HANGING = """#!/bin/sh
# STAND-IN nvidia-smi that never answers (cockpit's timeout tests). Not NVIDIA's tool.
sleep {marker} &
wait
"""


@pytest.fixture
def hanging_nvsmi(sshd):
    """A hanging stand-in; yields the marker its `sleep` carries (seconds: 3,000 and a bit)."""
    marker = f"3000.{uuid.uuid4().int % 10**12:012d}"
    script = sshd.bin_dir / "nvidia-smi"
    script.write_text(HANGING.format(marker=marker))
    os.chmod(script, 0o755)
    yield marker
    subprocess.run(["pkill", "-KILL", "-f", marker], check=False)
    script.unlink(missing_ok=True)


def left_running(sshd, marker: str) -> list[str]:
    """Processes still running the stand-in or its sleep (pgrep -af lines)."""
    out = []
    for pattern in (marker, str(sshd.bin_dir / "nvidia-smi")):
        done = subprocess.run(["pgrep", "-af", pattern], capture_output=True, text=True)
        out += [line for line in done.stdout.splitlines() if "pgrep" not in line]
    return out


def started(sshd, marker: str) -> bool:
    return bool(subprocess.run(["pgrep", "-f", marker], capture_output=True).stdout)


@pytest.mark.parametrize("argv", [("topo", ALIAS), ("gpus", "--once", ALIAS)], ids=["topo", "gpus-once"])
def test_a_host_that_never_answers_is_one_line_exit_1_and_nothing_left_running(sshd, hanging_nvsmi, argv):
    done = sshd.cockpit(*argv, "--timeout", "2")
    assert done.returncode == 1, done.stderr
    what = "nvidia-smi topo -m" if argv[0] == "topo" else "nvidia-smi"
    assert done.stderr == f"cockpit: {ALIAS}: no answer from {what} within 2 s\n"
    assert done.stdout == ""
    assert left_running(sshd, hanging_nvsmi) == []


async def test_the_library_call_kills_the_remote_command_before_it_returns(sshd, hanging_nvsmi):
    # The TUI's topology feed uses the same call: a timeout is a final, readable state.
    async with SshPool(backoff=Backoff(base_s=0.1, cap_s=0.5), agent_path=None) as pool:
        with pytest.raises(GpuSourceUnavailable, match="no answer from nvidia-smi topo -m within 1 s"):
            await fetch_topology(pool, sshd.target(), timeout_s=1)
        assert left_running(sshd, hanging_nvsmi) == []  # gone while the connection is still up


async def test_ctrl_c_during_a_remote_command_stops_it_on_the_host(sshd, hanging_nvsmi):
    async with SshPool(backoff=Backoff(base_s=0.1, cap_s=0.5), agent_path=None) as pool:
        task = asyncio.create_task(fetch_topology(pool, sshd.target(), timeout_s=60))
        while not started(sshd, hanging_nvsmi):
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    # the kill request went out before the connection closed; the host acts on it at once
    for _ in range(100):
        if not left_running(sshd, hanging_nvsmi):
            break
        await asyncio.sleep(0.05)
    assert left_running(sshd, hanging_nvsmi) == []


def test_timeout_must_be_positive(sshd):
    done = sshd.cockpit("topo", ALIAS, "--timeout", "0")
    assert (done.returncode, done.stderr) == (1, "cockpit: --timeout must be positive\n")


async def test_the_gpu_stream_kills_a_stuck_nvidia_smi_before_it_starts_another(sshd, hanging_nvsmi):
    from cockpit.sources.gpu.nvsmi_stream import NvsmiStream

    async with SshPool(backoff=Backoff(base_s=0.1, cap_s=0.5), agent_path=None) as pool:
        stream = NvsmiStream(pool, sshd.target(), interval_ms=100, backoff_s=(0.1,), stall_timeout_s=0.5)
        events = stream.events()
        reasons = [(await asyncio.wait_for(events.__anext__(), 20)).reason for _ in range(3)]
        await events.aclose()
        for _ in range(100):  # the last one was asked to stop as the stream closed
            if not left_running(sshd, hanging_nvsmi):
                break
            await asyncio.sleep(0.05)
    assert reasons[0] == "no data for 0.5 s"
    assert left_running(sshd, hanging_nvsmi) == []
