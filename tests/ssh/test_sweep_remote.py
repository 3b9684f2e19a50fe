"""The sweep runner over the real loopback sshd: the STAND-IN bench client runs on the "host"
as the login user, against the STAND-IN SGLang server; sshd killed during a point; cancel."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from sweep_support import StandinServer, make_bench_python, pid_alive, standin_gpu_tick
from waits import PATIENCE_S

from cockpit.control.session_controller import SessionController
from cockpit.control.session_port import ControllerPort, PortSink
from cockpit.control.sweep_runner import SweepRunner
from cockpit.control.sweep_session import server_metrics_probe
from cockpit.live.experiment.sweep_events import PointProgress, PointRecorded, PointRetrying, PointStarted
from cockpit.live.experiment.sweep_plan import plan_sweep
from cockpit.model.session import Host, LaunchProfile, Session, Sweep
from cockpit.sources.server.bench_hosts import SshBenchHost
from cockpit.sources.transport.ssh_pool import Backoff, SshPool
from cockpit.store.toml_store import load_session, save_session

FAST = Backoff(base_s=0.05, cap_s=0.4)


@pytest.fixture(scope="module")
def server():
    srv = StandinServer(tok_s=3000)
    yield srv
    srv.close()


def _setup(tmp_path: Path, sshd, port: int, **sweep_kw: object) -> tuple[Path, Path]:
    remote = sshd.make_dir("sweep")
    runs = remote / "runs"
    runs.mkdir()
    os.chmod(runs, 0o777)  # the login user writes its output files there
    # the login user cannot run root's venv, nor (in a 0700 home) read the checkout's stand-in
    python = make_bench_python(remote, python="/usr/bin/python3", script=sshd.standin("bench_serving.py"))
    path = tmp_path / "s.toml"
    sweep = {"id": "s1", "name": "short", "input_len": 16, "output_len": 24, "concurrencies": [1, 2, 4, 8],
             "prompts_per_concurrency": 2, **sweep_kw}
    save_session(Session(
        hosts=[Host(name="gpu1", ssh="cockpit-loop", run_dir=str(runs))],
        launch=[LaunchProfile(id="l1", name="base", host="gpu1", python=python,
                              command=f"python -m sglang.launch_server --port {port}")],
        sweeps=[Sweep(**sweep)]), path)
    return path, runs


async def _run(path: Path, sshd, events: list, during=None, metrics: bool = False):
    session = load_session(path)
    plan = plan_sweep(session.sweeps[0], session.launch[0], session.hosts[0])
    async with SshPool(backoff=FAST, agent_path=None) as pool:
        host = SshBenchHost(pool, sshd.target(), "gpu1", reconnect_s=30)
        # /metrics on the host's loopback, reached through its SSH connection (a direct TCP channel)
        probe = server_metrics_probe(session.launch[0], plan, pool, sshd.target(), session.hosts[0]) if metrics else None
        runner = SweepRunner(plan, host, PortSink(ControllerPort(SessionController(session, path))), on_event=events.append,
                             server_metrics=probe)

        async def ticks() -> None:
            while True:
                runner.gpu_tick(standin_gpu_tick(watts_per_gpu=250))
                await asyncio.sleep(0.02)

        ticker = asyncio.create_task(ticks())
        helper = asyncio.create_task(during(runner)) if during else None
        try:
            return await runner.run(), runner
        finally:
            ticker.cancel()
            if helper:
                helper.cancel()


def test_four_points_over_ssh(tmp_path: Path, sshd, server) -> None:
    # points long enough that the client's main run spans GPU ticks even when its lines come
    # over a loaded SSH link in one batch (the power window is the main run only)
    path, runs = _setup(tmp_path, sshd, server.port, output_len=96)
    events: list = []
    outcome, _ = asyncio.run(_run(path, sshd, events, metrics=True))
    assert outcome.status == "done"
    benches = load_session(path).benchmarks
    assert [b.concurrency for b in benches] == [1, 2, 4, 8]
    assert all(b.power_mean_w == 500.0 and b.tok_per_joule and b.total_tok_s for b in benches), [
        (b.concurrency, b.power_mean_w, b.notes) for b in benches]
    assert all(b.server_ttft_p50_ms is not None and b.server_itl_p99_ms is not None for b in benches)
    assert len(list((runs / "sweeps").glob("*.jsonl"))) == 4  # written on the host, by the login user
    assert not list((runs / "sweeps").glob("*.pid"))  # each client's PID file went when it ended
    assert any(isinstance(e, PointProgress) and "%|" in e.line for e in events)


def test_sshd_killed_during_a_point_no_duplicate_and_no_lost_record(tmp_path: Path, sshd, server) -> None:
    # c2 runs ~1 s (16 requests of 100 tokens at 3000 tok/s, two at a time): sshd dies in it
    path, _ = _setup(tmp_path, sshd, server.port, output_len=100, prompts=16)
    events: list = []

    async def kill_during_c2(runner: SweepRunner) -> None:
        while not any(isinstance(e, PointProgress) and e.concurrency == 2 for e in events):
            await asyncio.sleep(0.01)
        await asyncio.to_thread(sshd.kill_all)
        await asyncio.sleep(0.5)
        await asyncio.to_thread(sshd.start)

    # the server's metrics are read through the same link: a scrape across the drop costs that
    # point its server percentiles, nothing more
    outcome, runner = asyncio.run(_run(path, sshd, events, during=kill_during_c2, metrics=True))
    benches = load_session(path).benchmarks
    assert sorted(b.concurrency for b in benches) == [1, 2, 4, 8]  # each once: none lost, none twice
    assert outcome.status == "done" and len(set(outcome.recorded)) == 4
    assert [e.concurrency for e in events if isinstance(e, PointRetrying)] == [2]
    assert [e.attempt for e in events if isinstance(e, PointStarted) and e.concurrency == 2] == [1, 2]


def test_cancel_kills_the_remote_client(tmp_path: Path, sshd, server) -> None:
    path, runs = _setup(tmp_path, sshd, server.port, output_len=400, prompts=8, concurrencies=[1, 1])
    events: list = []
    seen: dict[str, int] = {}

    async def cancel_in_first(runner: SweepRunner) -> None:
        while not any(isinstance(e, PointProgress) for e in events):
            await asyncio.sleep(0.01)
        pidfile = next((runs / "sweeps").glob("*.pid"))
        seen["pid"] = int(pidfile.read_text())
        assert pid_alive(seen["pid"])
        runner.cancel()

    outcome, _ = asyncio.run(_run(path, sshd, events, during=cancel_in_first))
    assert outcome.status == "cancelled" and load_session(path).benchmarks == []
    deadline = time.monotonic() + PATIENCE_S
    while pid_alive(seen["pid"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not pid_alive(seen["pid"])
    assert not any(isinstance(e, PointRecorded) for e in events)


@pytest.mark.parametrize("modules, expected", [
    (("sglang.benchmark.serving", "sglang.bench_serving"), "sglang.benchmark.serving"),
    (("sglang.bench_serving",), "sglang.bench_serving"),
])
def test_the_bench_module_is_looked_up_on_the_host(tmp_path: Path, sshd, server, modules, expected) -> None:
    from cockpit.control.sweep_session import with_bench_client

    remote = sshd.make_dir("probe")
    python = make_bench_python(remote, python="/usr/bin/python3", modules=modules, script=sshd.standin("bench_serving.py"))
    runs = remote / "runs"
    runs.mkdir()
    os.chmod(runs, 0o777)
    session = Session(hosts=[Host(name="gpu1", ssh="cockpit-loop", run_dir=str(runs))],
                      launch=[LaunchProfile(id="l1", name="base", host="gpu1", python=python,
                                            command=f"python -m sglang.launch_server --port {server.port}")],
                      sweeps=[Sweep(id="s1", name="short", concurrencies=[1])])
    plan = plan_sweep(session.sweeps[0], session.launch[0], session.hosts[0])

    async def look() -> tuple:
        async with SshPool(backoff=FAST, agent_path=None) as pool:
            return await with_bench_client(plan, SshBenchHost(pool, sshd.target(), "gpu1", reconnect_s=10))

    found, note = asyncio.run(look())
    assert (found.module, note) == (expected, None)
