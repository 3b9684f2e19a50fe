"""The sweep runner on this machine: the STAND-IN bench client (cockpit/sandbox/bench_serving.py,
run as `python -m sglang.bench_serving` through a wrapper interpreter) against the STAND-IN
SGLang server (cockpit/sandbox/sglang_server.py); GPU samples from a labelled stand-in tick."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from sweep_support import StandinServer, make_bench_python, pid_alive, standin_gpu_tick

from cockpit.control.session_controller import SessionController
from cockpit.control.session_port import ControllerPort, PortSink
from cockpit.control.sweep_runner import SweepRunner
from cockpit.control.sweep_session import server_metrics_probe
from cockpit.live.experiment.sweep_client_output import ClientOutput, main_run_line
from cockpit.live.experiment.sweep_events import PointFailed, PointProgress, PointRecorded, PointSkipped, PointStarted, SweepNote
from cockpit.live.experiment.sweep_plan import plan_sweep
from cockpit.model.session import Host, LaunchProfile, Session, Sweep
from cockpit.parse.log.sglang_log import parse_line
from cockpit.sources.server.bench_hosts import LocalBenchHost
from cockpit.store.toml_store import load_session, save_session


@pytest.fixture(scope="module")
def server():
    srv = StandinServer(tok_s=3000)
    yield srv
    srv.close()


def _session(tmp_path: Path, port: int, python: str, **sweep_kw: object) -> Path:
    path = tmp_path / "s.toml"
    sweep = {"id": "s1", "name": "short", "input_len": 16, "output_len": 24, "concurrencies": [1, 2, 4, 8],
             "prompts_per_concurrency": 2, **sweep_kw}
    save_session(Session(
        hosts=[Host(name="local", run_dir=str(tmp_path / "runs"))],
        launch=[LaunchProfile(id="l1", name="base", host="local", python=python,
                              command=f"python -m sglang.launch_server --model-path m --port {port}")],
        sweeps=[Sweep(**sweep)]), path)
    return path


def _runner(path: Path, events: list, run_id: str | None = None, metrics: bool = False,
            **kw: object) -> tuple[SweepRunner, SessionController]:
    session = load_session(path)
    controller = SessionController(session, path)
    plan = plan_sweep(session.sweeps[0], session.launch[0], session.hosts[0], run_id=run_id)
    if metrics:  # as `cockpit sweep` and the TUI wire it: the profile's port, this machine
        kw["server_metrics"] = server_metrics_probe(session.launch[0], plan, None, None, session.hosts[0])
    return SweepRunner(plan, LocalBenchHost(), PortSink(ControllerPort(controller)), on_event=events.append, **kw), controller


async def _with_feeds(runner: SweepRunner, server: StandinServer, watts: float = 300.0):
    """Run the sweep while a stand-in GPU source ticks and the server's log lines are parsed."""
    loop = asyncio.get_running_loop()

    def on_line(line: str) -> None:
        loop.call_soon_threadsafe(runner.log_event, parse_line(line))

    server.listeners.append(on_line)

    async def ticks() -> None:
        while True:
            runner.gpu_tick(standin_gpu_tick(watts_per_gpu=watts))
            await asyncio.sleep(0.02)

    ticker = asyncio.create_task(ticks())
    try:
        return await runner.run()
    finally:
        ticker.cancel()
        server.listeners.remove(on_line)


def test_four_point_sweep_records_four_benchmarks_with_power_and_tok_per_joule(tmp_path: Path, server) -> None:
    path = _session(tmp_path, server.port, make_bench_python(tmp_path))
    events: list = []
    runner, _ = _runner(path, events)
    outcome = asyncio.run(_with_feeds(runner, server))
    assert outcome.status == "done" and len(outcome.recorded) == 4
    saved = load_session(path)  # on disk, not only in memory
    benches = saved.benchmarks
    assert [b.concurrency for b in benches] == [1, 2, 4, 8]
    for b in benches:
        assert b.profile == "l1" and b.sweep == "s1" and b.sweep_run == runner.plan.run_id
        assert b.command == saved.launch[0].command and b.dataset == "random"
        assert b.total_tok_s and b.output_tok_s and b.ttft_ms is not None and b.duration_s
        assert b.peak_running is not None  # the server log was followed during every point
        assert b.input_len == 16 and b.output_len == 24
        if b.power_mean_w is None:  # a loaded machine starved the 20 ms feed for the whole main run: said so
            assert "no GPU sample came inside the main run" in (b.notes or ""), b.notes
            assert b.tok_per_joule is None
        else:
            assert (b.power_mean_w, b.power_peak_w, b.power_share) == (600.0, 600.0, round(600 / 1400, 4))
            assert b.tok_per_joule == pytest.approx(b.total_tok_s / 600.0, rel=0.01)
    assert any(b.power_mean_w is not None for b in benches)
    assert benches[3].peak_running >= 2  # eight at once show up in the server's batches
    assert [type(e) for e in events if isinstance(e, (PointStarted, PointRecorded))] == [PointStarted, PointRecorded] * 4
    assert any(isinstance(e, PointProgress) and "%|" in e.line for e in events)
    assert [e.source for e in events if isinstance(e, PointRecorded)] == ["jsonl"] * 4
    # each client's run-time PID file went when it ended (issue 39: 97 left after 12 sweeps)
    sweeps = tmp_path / "runs" / "sweeps"
    assert len(list(sweeps.glob("*.jsonl"))) == 4 and not list(sweeps.glob("*.pid"))


def test_a_resumed_run_records_no_point_twice(tmp_path: Path, server) -> None:
    path = _session(tmp_path, server.port, make_bench_python(tmp_path), concurrencies=[1, 2])
    first: list = []
    runner, _ = _runner(path, first, run_id="R1")
    asyncio.run(runner.run())
    again: list = []
    runner, _ = _runner(path, again, run_id="R1")
    outcome = asyncio.run(runner.run())
    assert len(load_session(path).benchmarks) == 2
    assert [type(e) for e in again[:-1]] == [PointSkipped, PointSkipped]
    assert outcome.recorded == [b.id for b in load_session(path).benchmarks]


def test_without_a_record_file_the_printed_block_is_read(tmp_path: Path, server) -> None:
    path = _session(tmp_path, server.port, make_bench_python(tmp_path), concurrencies=[2],
                    extra_args=["--standin-no-record"])
    events: list = []
    runner, _ = _runner(path, events)
    asyncio.run(runner.run())
    (bench,) = load_session(path).benchmarks
    assert bench.total_tok_s and bench.ttft_p99_ms is not None
    assert [e.source for e in events if isinstance(e, PointRecorded)] == ["stdout"]


@pytest.mark.parametrize("on_fail", ["stop", "skip"])
def test_a_crashed_client_fails_the_point_and_says_why(tmp_path: Path, server, on_fail: str) -> None:
    path = _session(tmp_path, server.port, make_bench_python(tmp_path), concurrencies=[1, 2],
                    extra_args=["--standin-exit", "3"])
    events: list = []
    runner, _ = _runner(path, events, on_fail=on_fail)
    outcome = asyncio.run(runner.run())
    # stop (the default): the point after the failed one is not run; skip: it runs (and fails too)
    assert outcome.status == "failed"
    assert [c for c, _ in outcome.failed] == ([1] if on_fail == "stop" else [1, 2])
    assert outcome.not_run == ([2] if on_fail == "stop" else [])
    failed = [e for e in events if isinstance(e, PointFailed)]
    assert "exit status 3" in failed[0].reason and "stand-in asked to fail" in failed[0].reason
    assert load_session(path).benchmarks == []


def test_cancel_kills_the_client_and_keeps_finished_points(tmp_path: Path, server) -> None:
    # slow points: 400 tokens a request at 3000 tok/s, 8 requests at c1 -> about 1 s each
    path = _session(tmp_path, server.port, make_bench_python(tmp_path), output_len=400, concurrencies=[1, 1024],
                    prompts=8)
    events: list = []
    runner, _ = _runner(path, events)

    async def scenario():
        task = asyncio.create_task(runner.run())
        while sum(isinstance(e, PointStarted) for e in events) < 2:
            await asyncio.sleep(0.02)
        while not any(isinstance(e, PointProgress) and e.concurrency == 1024 for e in events):
            await asyncio.sleep(0.02)
        pids.append(int(next((tmp_path / "runs" / "sweeps").glob("*-c1024-a1.jsonl.pid")).read_text()))
        runner.cancel()
        return await task

    pids: list[int] = []
    outcome = asyncio.run(scenario())
    assert outcome.status == "cancelled"
    assert [b.concurrency for b in load_session(path).benchmarks] == [1]
    assert not pid_alive(pids[0])
    # the run-time PID files go with their processes (issue 39: 97 left after 12 sweeps)
    assert not list((tmp_path / "runs" / "sweeps").glob("*.pid"))


class _DroppingHost:
    """A host whose link drops at the end of the first run, after the client appended its
    record (scripted; the real-sshd version is tests/ssh/test_sweep_remote.py)."""

    label = "scripted"

    def __init__(self, record_text: str, drop_before_record: bool) -> None:
        self.files: dict[str, str] = {}
        self.runs = 0
        self.killed: list[str] = []
        self.record_text = record_text
        self.drop_before_record = drop_before_record

    async def run(self, argv, *, folder, pidfile, on_output):
        from cockpit.sources.server.bench_hosts import LinkLost

        self.runs += 1
        out = argv[argv.index("--output-file") + 1]
        if self.runs == 1:
            if not self.drop_before_record:
                self.files[out] = self.record_text
            raise LinkLost("scripted: connection lost")
        self.files[out] = self.record_text
        return 0

    async def read_text(self, path):
        return self.files.get(path)

    async def kill_leftover(self, pidfile, marker):
        self.killed.append(marker)


@pytest.mark.parametrize("drop_before_record", [False, True])
def test_link_lost_after_or_before_the_record(tmp_path: Path, drop_before_record: bool) -> None:
    record = (Path(__file__).resolve().parents[2] / "data" / "bench" / "bench_serving_0.5.23.jsonl").read_text()
    path = _session(tmp_path, 1, "python3", concurrencies=[16])
    session = load_session(path)
    plan = plan_sweep(session.sweeps[0], session.launch[0], session.hosts[0])
    host = _DroppingHost(record, drop_before_record)
    events: list = []
    runner = SweepRunner(plan, host, PortSink(ControllerPort(SessionController(session, path))), on_event=events.append)
    outcome = asyncio.run(runner.run())
    assert outcome.status == "done"
    assert [b.concurrency for b in load_session(path).benchmarks] == [16]
    # the record on the host counts (no second run); without one, what is left is killed and the point runs again
    assert host.runs == (2 if drop_before_record else 1)
    assert len(host.killed) == (1 if drop_before_record else 0)


def test_a_missing_interpreter_fails_the_point_with_the_reason(tmp_path: Path) -> None:
    path = _session(tmp_path, 1, str(tmp_path / "no-such-python"), concurrencies=[1])
    events: list = []
    runner, _ = _runner(path, events)
    outcome = asyncio.run(runner.run())
    assert outcome.status == "failed" and "cannot run the client" in outcome.failed[0][1]
    assert "no-such-python" in outcome.failed[0][1]


SERVER_FIELDS = ("server_ttft_p50_ms", "server_ttft_p99_ms", "server_itl_p50_ms", "server_itl_p99_ms")


def _sweep_against(server: StandinServer, tmp_path: Path, **session: Any) -> tuple[Any, list, Path]:
    """One sweep with server metrics read against the STAND-IN server, which is closed after."""
    try:
        path = _session(tmp_path, server.port, make_bench_python(tmp_path), **session)
        events: list = []
        runner, _ = _runner(path, events, metrics=True)
        outcome = asyncio.run(runner.run())
    finally:
        server.close()
    return outcome, events, path


def test_each_point_records_the_servers_own_ttft_and_itl_percentiles(tmp_path: Path) -> None:
    # 80 tok/s per request: every inter-token gap is at least 12.5 ms, and the first token
    # comes one gap after admission; the stand-in's buckets put both in (10, 20] ms
    outcome, events, path = _sweep_against(StandinServer(tok_s=80), tmp_path, output_len=8, concurrencies=[1, 4])
    assert outcome.status == "done"
    benches = load_session(path).benchmarks
    assert [b.concurrency for b in benches] == [1, 4]
    for b in benches:
        assert b.server_ttft_p50_ms is not None and b.server_ttft_p99_ms is not None
        assert b.server_itl_p50_ms is not None and b.server_itl_p99_ms is not None
        assert 10.0 <= b.server_ttft_p50_ms <= b.server_ttft_p99_ms < 250.0
        assert 10.0 <= b.server_itl_p50_ms <= 20.0 and b.server_itl_p50_ms <= b.server_itl_p99_ms < 250.0
    recorded = [e for e in events if isinstance(e, PointRecorded)]
    assert all(set(SERVER_FIELDS) <= set(e.fields) for e in recorded)
    assert not [e for e in events if isinstance(e, SweepNote)]


def test_a_server_without_metrics_records_the_points_without_them_and_says_so_once(tmp_path: Path) -> None:
    server = StandinServer(tok_s=3000, extra=("--standin-no-metrics",))
    outcome, events, path = _sweep_against(server, tmp_path, concurrencies=[1, 2, 4])
    assert outcome.status == "done"
    benches = load_session(path).benchmarks
    assert [b.concurrency for b in benches] == [1, 2, 4] and all(b.total_tok_s for b in benches)
    assert all(getattr(b, name) is None for b in benches for name in SERVER_FIELDS)
    notes = [e.text for e in events if isinstance(e, SweepNote)]
    assert len(notes) == 1 and "--enable-metrics" in notes[0] and "HTTP 404" in notes[0]
    assert isinstance(events[0], SweepNote)  # said before the first point runs


COLD_S = 1.5  # the STAND-IN server's first request (the client's warm-up): first token after this


@pytest.mark.parametrize("client_says_main_run", [True, False], ids=["main-run-line", "no-such-line"])
def test_the_clients_warm_up_is_not_in_the_servers_percentiles(tmp_path: Path, client_says_main_run: bool) -> None:
    # A cold server: the client's warm-up request waits 1.5 s for its first token, the 8
    # main-run requests get theirs at once. At concurrency 1 and 8 prompts, p99 is in effect
    # the slowest one: the warm-up, unless the window starts at the client's main-run line.
    server = StandinServer(tok_s=3000, extra=("--standin-cold-first-token-s", str(COLD_S)))
    extra = [] if client_says_main_run else ["--standin-no-main-run-line"]  # as a client that does not say it
    outcome, events, path = _sweep_against(server, tmp_path, output_len=8, concurrencies=[1],
                                           prompts_per_concurrency=8, extra_args=extra)
    assert outcome.status == "done"
    (bench,) = load_session(path).benchmarks
    assert bench.ttft_p99_ms is not None and bench.ttft_p99_ms < COLD_S * 1000 / 3  # the client leaves it out
    assert bench.server_ttft_p99_ms is not None and bench.server_itl_p99_ms is not None
    if client_says_main_run:
        assert bench.server_ttft_p99_ms < COLD_S * 1000 / 3
        assert "warm-up" not in (bench.notes or "")
    else:  # today's window, from before the client started: the warm-up is in it, and said so
        assert bench.server_ttft_p99_ms >= COLD_S * 1000
        assert bench.notes is not None and "warm-up" in bench.notes


@pytest.mark.parametrize("line", [
    "Initial test run completed. Starting main benchmark run...",  # sglang (older), vllm-derived
    "Warmup completed with 1 sequences. Starting main benchmark run...",  # sglang (newer)
])
def test_both_phrasings_of_the_main_run_line_are_read(line: str) -> None:
    assert main_run_line(line)
    out = ClientOutput()
    out.feed("stdout", "#Input tokens: 512\nStarting initial single prompt test run...\n")
    assert out.main_run is None
    out.feed("stdout", line + "\n")
    assert out.main_run == "started"


def test_other_lines_are_not_the_main_run_line() -> None:
    for line in ("Starting initial single prompt test run...", "Starting warmup with 1 sequences...",
                 "Traffic request rate: inf", "  0%|          | 0/8 [00:00<?, ?it/s]"):
        assert not main_run_line(line)
    out = ClientOutput()
    out.feed("stdout", "Starting initial single prompt test run...\nTraffic request rate: inf\n")
    out.feed("stderr", "\r  0%|          | 0/8 [00:00<?, ?it/s]")
    assert out.main_run is None


def test_a_main_run_line_that_comes_after_requests_finished_is_not_used() -> None:
    # stdout held in a buffer: the line arrives when the client exits, after tqdm (stderr)
    # showed requests done, or in one chunk with the result block (tqdm off)
    out = ClientOutput()
    out.feed("stderr", "\r  0%|          | 0/8 [00:00<?, ?it/s]\r 12%|█▎        | 1/8 [00:00<00:01, 6.1it/s]")
    out.feed("stdout", "Initial test run completed. Starting main benchmark run...\n")
    assert out.main_run == "late"
    out = ClientOutput()
    out.feed("stdout", "Initial test run completed. Starting main benchmark run...\nTraffic request rate: inf\n"
                       "\n============ Serving Benchmark Result ============\nBackend:   sglang\n")
    assert out.main_run == "late"
    # said as it happens (`-u`), then the main run: usable, and not undone by what follows
    out = ClientOutput()
    out.feed("stdout", "Initial test run completed. Starting main benchmark run...")  # the newline comes next
    out.feed("stderr", "\r 12%|█▎        | 1/8 [00:00<00:01, 6.1it/s]")
    out.feed("stdout", "\nTraffic request rate: inf\n")
    assert out.main_run == "started"


def test_a_point_whose_requests_all_failed_is_failed_not_recorded(tmp_path: Path) -> None:
    # no server on the port and no warm-up: the client sends every request, all fail, and it
    # still writes its record (completed 0, throughput 0), as sglang's client does
    from sweep_support import free_port

    path = _session(tmp_path, free_port(), make_bench_python(tmp_path), concurrencies=[1, 2],
                    extra_args=["--warmup-requests", "0"])
    events: list = []
    runner, _ = _runner(path, events)
    outcome = asyncio.run(runner.run())
    assert load_session(path).benchmarks == []
    assert outcome.status == "failed" and outcome.recorded == [] and outcome.not_run == [2]
    (failed,) = [e for e in events if isinstance(e, PointFailed)]
    assert failed.concurrency == 1 and "no request completed (0 of 2)" in failed.reason


def test_a_server_that_stopped_answering_fails_the_point_before_its_client_runs(tmp_path: Path) -> None:
    from cockpit.control.sweep_session import server_health

    server = StandinServer(tok_s=3000)
    path = _session(tmp_path, server.port, make_bench_python(tmp_path), concurrencies=[1, 2, 4])
    session = load_session(path)
    events: list = []

    def on_event(event: object) -> None:
        events.append(event)
        if isinstance(event, PointRecorded):
            server.close()  # killed once the first point is recorded

    plan = plan_sweep(session.sweeps[0], session.launch[0], session.hosts[0])
    runner = SweepRunner(plan, LocalBenchHost(), PortSink(ControllerPort(SessionController(session, path))), on_event=on_event,
                         server_health=server_health(session.launch[0], plan, None, None), on_fail="skip")
    outcome = asyncio.run(runner.run())
    assert [b.concurrency for b in load_session(path).benchmarks] == [1]
    assert [c for c, _ in outcome.failed] == [2, 4] and outcome.status == "failed"
    reasons = [e.reason for e in events if isinstance(e, PointFailed)]
    assert all(r.startswith("the server stopped answering") for r in reasons), reasons
    assert sum(isinstance(e, PointStarted) for e in events) == 1  # no client ran against the dead server
