"""What a sweep point's power covers: the client's main run only (its main-run line to its
last request), not its start-up (the real client idles ~12 s on imports while the GPUs
idle too), checked against the samples the GPU source produced over that window; and every
GPU source feeds the sweep (dcgm-exporter, NVML) or each point says in one note why not.

The server and client are the STAND-INs (cockpit/sandbox/); the GPU source of the window test
is a labelled STAND-IN whose draw follows the server: busy while its log shows running
requests, idle otherwise, as a real GPU's does. The dcgm test reads a real HTTP endpoint
serving dcgm-exporter's text (tests/metrics_server.py)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from metrics_server import MetricsServer
from sweep_support import StandinServer, make_bench_python, standin_gpu_tick

from cockpit.control.session_controller import SessionController
from cockpit.control.session_port import ControllerPort, PortSink
from cockpit.control.sweep_runner import SweepRunner
from cockpit.control.sweep_session import watch_tasks
from cockpit.live.experiment.sweep_plan import plan_sweep
from cockpit.live.experiment.sweep_watch import NO_MAIN_RUN_NOTE
from cockpit.model.session import Host, LaunchProfile, Session, Sweep
from cockpit.parse.bench.result_jsonl import read_records
from cockpit.parse.log.events import DecodeBatch, PrefillBatch
from cockpit.parse.log.sglang_log import parse_line
from cockpit.sources.server.bench_hosts import LocalBenchHost
from cockpit.store.toml_store import load_session, save_session

BUSY_W, IDLE_W = 400.0, 70.0  # per GPU, two GPUs
IDLE_S, PAUSE_S = 1.2, 0.5  # the client's start-up, and the pause after its main-run line (newer clients: 1 s)


def _session(tmp_path: Path, port: int, host: Host, **sweep_kw: object) -> Path:
    path = tmp_path / "s.toml"
    sweep = {"id": "s1", "name": "short", "input_len": 16, "output_len": 24, "concurrencies": [2],
             "prompts_per_concurrency": 4, **sweep_kw}
    save_session(Session(
        hosts=[host], launch=[LaunchProfile(id="l1", name="base", host=host.name, python=make_bench_python(tmp_path),
                                            command=f"python -m sglang.launch_server --model-path m --port {port}")],
        sweeps=[Sweep(**sweep)]), path)
    return path


def _runner(path: Path) -> SweepRunner:
    session = load_session(path)
    plan = plan_sweep(session.sweeps[0], session.launch[0], session.hosts[0])
    return SweepRunner(plan, LocalBenchHost(), PortSink(ControllerPort(SessionController(session, path))))


class GpuFollowingTheServer:
    """STAND-IN GPU source: draws BUSY_W per GPU while the server's log shows requests
    running (a batch line in the last 50 ms), IDLE_W otherwise; keeps every tick it gave."""

    def __init__(self, server: StandinServer) -> None:
        self.busy_until = 0.0
        self.ticks: list[tuple[float, float]] = []
        """(wall clock, summed draw) of every tick produced."""
        server.listeners.append(self._line)

    def _line(self, line: str) -> None:
        event = parse_line(line)
        if isinstance(event, (PrefillBatch, DecodeBatch)) and (event.running_req or 0) > 0:
            self.busy_until = time.monotonic() + 0.05

    async def feed(self, runner: SweepRunner) -> None:
        while True:
            watts = BUSY_W if time.monotonic() < self.busy_until else IDLE_W
            self.ticks.append((time.time(), 2 * watts))
            runner.gpu_tick(standin_gpu_tick(watts_per_gpu=watts))
            await asyncio.sleep(0.02)


async def _run_with(runner: SweepRunner, source: GpuFollowingTheServer):
    ticker = asyncio.create_task(source.feed(runner))
    try:
        return await runner.run()
    finally:
        ticker.cancel()


def test_power_and_tok_per_joule_cover_the_main_run_only(tmp_path: Path) -> None:
    server = StandinServer(tok_s=400)  # 24 tokens a request: 60 ms each, 2 rounds of 2 at c=2
    try:
        source = GpuFollowingTheServer(server)
        path = _session(tmp_path, server.port, Host(name="local", run_dir=str(tmp_path / "runs")), output_len=120,
                        extra_args=["--standin-idle-s", str(IDLE_S), "--standin-main-pause-s", str(PAUSE_S)])
        runner = _runner(path)
        outcome = asyncio.run(_run_with(runner, source))
    finally:
        server.close()
    assert outcome.status == "done", outcome.failed
    (bench,) = load_session(path).benchmarks
    (record,) = read_records(next((tmp_path / "runs" / "sweeps").glob("*.jsonl")).read_text())
    start, end = record["standin_main_start_unix"], record["standin_main_end_unix"]
    # the figure checked against its source: the ticks the GPU source gave while the main run ran
    inside = [w for t, w in source.ticks if start <= t <= end]
    whole = [w for t, w in source.ticks if t <= end]
    assert len(inside) >= 20 and min(whole) == 2 * IDLE_W  # the start-up did idle the GPUs
    expected = sum(inside) / len(inside)
    assert bench.power_mean_w == pytest.approx(expected, rel=0.05)
    assert bench.power_peak_w == 2 * BUSY_W and bench.power_share == pytest.approx(bench.power_mean_w / 1400, rel=0.01)
    assert bench.tok_per_joule == pytest.approx(bench.total_tok_s / bench.power_mean_w, rel=0.01)
    assert bench.output_tok_per_joule == pytest.approx(bench.output_tok_s / bench.power_mean_w, rel=0.01)
    # what the old window (from the client's start) gave: the idle start-up averaged in
    assert sum(whole) / len(whole) < 0.8 * expected
    assert "power" not in (bench.notes or "")


def test_without_a_main_run_line_the_whole_client_run_is_used_and_said(tmp_path: Path) -> None:
    server = StandinServer(tok_s=3000)
    try:
        source = GpuFollowingTheServer(server)
        path = _session(tmp_path, server.port, Host(name="local", run_dir=str(tmp_path / "runs")),
                        extra_args=["--standin-no-main-run-line"])
        asyncio.run(_run_with(_runner(path), source))
    finally:
        server.close()
    (bench,) = load_session(path).benchmarks
    assert bench.power_mean_w is not None and NO_MAIN_RUN_NOTE in (bench.notes or "")


async def _sweep_watching(path: Path) -> list:
    """The sweep with `cockpit sweep`'s own watchers (sweep_session.watch_tasks) for the host."""
    session = load_session(path)
    runner = _runner(path)
    host = session.hosts[0]
    tasks = [asyncio.create_task(t) for t in watch_tasks(runner, host, None, None, None)]
    try:
        await asyncio.sleep(0.3)  # a first scrape before the point, as the TUI's feeds have run a while
        await runner.run()
    finally:
        for task in tasks:
            task.cancel()
    return load_session(path).benchmarks


def test_a_dcgm_host_feeds_the_sweep(tmp_path: Path) -> None:
    server = StandinServer(tok_s=3000)
    try:
        with MetricsServer("dcgm-exporter-a.txt") as dcgm:
            host = Host(name="local", run_dir=str(tmp_path / "runs"), gpu_source="dcgm", dcgm_url=dcgm.url,
                        gpu_interval_s=0.05)
            path = _session(tmp_path, server.port, host, output_len=200)
            (bench,) = asyncio.run(_sweep_watching(path))
    finally:
        server.close()
    # dcgm-exporter-a.txt: 612.5 W + 592.5 W, limits 700 W each
    assert (bench.power_mean_w, bench.power_peak_w, bench.power_share) == (1205.0, 1205.0, round(1205 / 1400, 4))
    assert bench.output_tok_per_joule == pytest.approx(bench.output_tok_s / 1205.0, rel=0.01)


@pytest.mark.parametrize("kind", ["dcgm-down", "nvml-no-driver", "none"])
def test_no_gpu_source_is_said_in_one_note_per_point(tmp_path: Path, kind: str) -> None:
    server = StandinServer(tok_s=3000)
    try:
        if kind == "dcgm-down":
            host = Host(name="local", run_dir=str(tmp_path / "runs"), gpu_source="dcgm",
                        dcgm_url=f"http://127.0.0.1:{_free_port()}/metrics", gpu_interval_s=0.05)
            said = "refused"
        elif kind == "nvml-no-driver":  # this machine: pynvml installed, no NVIDIA driver
            host = Host(name="local", run_dir=str(tmp_path / "runs"), gpu_source="nvml", gpu_interval_s=0.05)
            said = "NVML"
        else:
            host = Host(name="local", run_dir=str(tmp_path / "runs"))
            said = 'gpu_source = "none"'
        path = _session(tmp_path, server.port, host, concurrencies=[1, 2])
        benches = asyncio.run(_sweep_watching(path))
    finally:
        server.close()
    assert [b.concurrency for b in benches] == [1, 2]
    for bench in benches:
        assert bench.power_mean_w is None and bench.tok_per_joule is None
        notes = (bench.notes or "").split("; ")
        power_notes = [n for n in notes if n.startswith("no power: ")]
        assert len(power_notes) == 1 and said in power_notes[0], bench.notes


def _free_port() -> int:
    from sweep_support import free_port

    return free_port()



def test_a_run_shorter_than_a_gpu_tick_says_so_instead_of_a_start_up_figure() -> None:
    from cockpit.live.experiment.sweep_watch import PointWatch

    watch = PointWatch()
    watch.gpu_tick(standin_gpu_tick(watts_per_gpu=IDLE_W))  # during the imports
    watch.open_window()
    watch.close_window()  # the run ended before the next tick
    watch.gpu_tick(standin_gpu_tick(watts_per_gpu=IDLE_W))
    assert "power_mean_w" not in watch.fields(total_tokens=100, duration_s=0.2, total_tok_s=500.0)
    (note,) = watch.notes()
    assert note.startswith("no power: no GPU sample came inside the main run")


def test_an_averaged_draw_is_integrated_at_the_middle_of_its_second() -> None:
    """A host whose GPUs' draw is NVML's 1 s average (GpuSample.power_window_s): the point's
    energy places each tick's draw half a second before its stamp, where it applies; a draw
    of unknown kind stays at its stamp."""
    from cockpit.live.experiment.sweep_watch import PointWatch
    from cockpit.parse.gpu.sample import GpuSample

    now = [100.0]
    watch = PointWatch(clock=lambda: now[0])
    for window in (1.0, None):
        watch.gpu_tick([GpuSample(index=i, power_w=300.0, power_window_s=window, timestamp=now[0])
                        for i in range(2)])
        now[0] += 1.0
    averaged, unknown = watch.whole.ticks
    assert (averaged.t, averaged.power_t, averaged.watts) == (100.0, 99.5, 600.0)
    assert (unknown.t, unknown.power_t) == (101.0, 101.0)
