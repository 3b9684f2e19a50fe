"""`cockpit sweep` as a user runs it: the STAND-IN SGLang server (its log in the host's
log_path) and the STAND-IN bench client (as `python -m sglang.bench_serving`, through a
wrapper interpreter); exit codes 0 / 1 / 2 / 3; confirmation; progress lines."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sweep_support import StandinServer, free_port, make_bench_python

from cockpit.model.session import Host, LaunchProfile, Session, Sweep
from cockpit.store.toml_store import load_session, save_session

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def logged_server(tmp_path_factory):
    log = tmp_path_factory.mktemp("server") / "server.log"
    srv = StandinServer(tok_s=3000, log_path=log)
    yield srv, log
    srv.close()


def _session(tmp_path: Path, port: int, log: Path | None, *, modules: tuple[str, ...] = ("sglang.bench_serving",),
             **sweep_kw: object) -> Path:
    path = tmp_path / "s.toml"
    sweep = {"id": "s1", "name": "short ramp", "input_len": 16, "output_len": 24, "concurrencies": [1, 2, 4, 8],
             "prompts_per_concurrency": 2, **sweep_kw}
    save_session(Session(
        hosts=[Host(name="local", run_dir=str(tmp_path / "runs"), log_path=str(log) if log else None)],
        launch=[LaunchProfile(id="l1", name="base", host="local", python=make_bench_python(tmp_path, modules=modules),
                              command=f"python -m sglang.launch_server --model-path m --port {port}")],
        sweeps=[Sweep(**sweep)]), path)
    return path


def _cockpit(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cockpit", *argv], capture_output=True, text=True, cwd=ROOT,
                          stdin=subprocess.DEVNULL, timeout=120)


def test_never_confirmed_and_no_terminal_prints_the_commands_and_runs_nothing(tmp_path: Path, logged_server) -> None:
    srv, log = logged_server
    path = _session(tmp_path, srv.port, log)
    res = _cockpit("sweep", str(path), "s1")
    assert res.returncode == 3, res.stderr
    # the interpreter was never confirmed on this host, so it is not asked which module it has before
    # the person says yes: the commands name the current module, and the line says when the older runs
    assert res.stdout.count("-u -m sglang.benchmark.serving") == 4 and "--max-concurrency 8" in res.stdout
    assert "has no sglang.benchmark.serving, -m sglang.bench_serving instead" in res.stdout
    assert "--yes" in res.stderr
    assert load_session(path).benchmarks == [] and not (tmp_path / "runs").exists()


def test_yes_runs_every_point_records_them_and_remembers_the_confirmation(tmp_path: Path, logged_server) -> None:
    srv, log = logged_server
    # the client pauses after its main-run line, as the real one does (1 s): the server's
    # /metrics is read there, before the point's first request (a 0.6 s point under load
    # could otherwise end before that read, and the window would hold no observation)
    path = _session(tmp_path, srv.port, log, extra_args=["--standin-main-pause-s", "0.5"])
    res = _cockpit("sweep", str(path), "short ramp", "--yes")  # by name
    assert res.returncode == 0, res.stdout + res.stderr
    for i, c in enumerate((1, 2, 4, 8), start=1):
        assert f"[{i}/4] c={c} recorded b" in res.stdout
    recorded = [line for line in res.stdout.splitlines() if " recorded b" in line]
    assert len(recorded) == 4 and all("server TTFT p50/p99 " in line and "server ITL p50/p99 " in line
                                      for line in recorded)  # the stand-in serves /metrics
    assert "warm-up" not in res.stdout
    # no GPU source on this host: every point says why it has no power, in one note
    assert all(line.count("note: ") == 1 and 'no power: host local has gpu_source = "none"' in line
               for line in recorded)
    session = load_session(path)
    assert [b.concurrency for b in session.benchmarks] == [1, 2, 4, 8]
    assert all(b.profile == "l1" and b.sweep == "s1" for b in session.benchmarks)
    assert session.benchmarks[-1].peak_running and session.benchmarks[-1].peak_running >= 2  # from the log
    assert all(b.server_ttft_p99_ms is not None and b.server_itl_p50_ms is not None for b in session.benchmarks)
    assert session.last_action and "4 of 4 points recorded" in session.last_action.text
    assert session.sweeps[0].confirmed
    # one transaction per record, journaled as who acted: the person confirmed, the sweep measured
    said = {e.kind: e.text for e in session.journal}
    assert said["sweep.confirmed"] == "sweep s1 confirmed"
    assert said["benchmark.added"].endswith(" (via sweep)") and said["sweep.run.done"].endswith(" (via sweep)")
    again = _cockpit("sweep", str(path), "s1", "--profile", "base")  # confirmed before: no --yes needed
    assert again.returncode == 0, again.stderr
    assert len(load_session(path).benchmarks) == 8


def test_a_server_without_metrics_is_said_once_and_the_sweep_goes_on(tmp_path: Path) -> None:
    srv = StandinServer(tok_s=3000, extra=("--standin-no-metrics",))
    try:
        path = _session(tmp_path, srv.port, None, concurrencies=[1, 2])
        res = _cockpit("sweep", str(path), "s1", "--yes")
    finally:
        srv.close()
    assert res.returncode == 0, res.stdout + res.stderr
    notes = [line for line in res.stdout.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and "exposes no metrics" in notes[0] and "--enable-metrics" in notes[0]
    assert "server TTFT" not in res.stdout
    assert [b.server_ttft_p50_ms for b in load_session(path).benchmarks] == [None, None]


def test_no_server_on_the_port_is_exit_2(tmp_path: Path) -> None:
    path = _session(tmp_path, free_port(), None)
    res = _cockpit("sweep", str(path), "s1", "--yes")
    assert res.returncode == 2
    assert "not ready" in res.stderr
    assert load_session(path).benchmarks == []


def test_a_failed_point_is_exit_1(tmp_path: Path, logged_server) -> None:
    srv, log = logged_server
    path = _session(tmp_path, srv.port, log, concurrencies=[1], extra_args=["--standin-exit", "4"])
    res = _cockpit("sweep", str(path), "s1", "--yes")
    assert res.returncode == 1
    assert "[1/1] c=1 FAILED: exit status 4" in res.stdout


def test_an_unknown_sweep_names_the_known_ones(tmp_path: Path) -> None:
    path = _session(tmp_path, free_port(), None)
    res = _cockpit("sweep", str(path), "nope")
    assert res.returncode == 1 and "s1 (short ramp)" in res.stderr


def test_a_points_note_is_on_its_recorded_line() -> None:
    """A note the runner put on the record (the warm-up inside the server window) is printed, not
    only stored: a script reading the lines learns the p99 may be the warm-up's."""
    from cockpit.cli.experiment.sweep_cmd import _figures
    from cockpit.live.experiment.sweep_sink import WARMUP_NOTE

    line = _figures({"total_tok_s": 1000.0, "server_ttft_p99_ms": 2365.0, "notes": WARMUP_NOTE})
    assert line.endswith(f"note: {WARMUP_NOTE}") and "1,000 tok/s total" in line
    assert "note:" not in _figures({"total_tok_s": 1000.0})


def test_the_steady_windows_tok_per_joule_is_on_the_recorded_line() -> None:
    """The steady window's output tok/J (the batch full, ramp-up and drain left out) is printed
    beside the whole run's, not only stored."""
    from cockpit.cli.experiment.sweep_cmd import _figures

    line = _figures({"output_tok_per_joule": 10.6537, "steady_output_tok_per_joule": 10.8204})
    assert "10.7 output tok/J, steady 10.8 output tok/J" in line
    # three figures each, a trailing zero kept: 10.98 is 11.0 beside 10.8, not 11
    line = _figures({"tok_per_joule": 123.44, "output_tok_per_joule": 10.8, "steady_output_tok_per_joule": 10.98})
    assert "123 total tok/J, 10.8 output tok/J, steady 11.0 output tok/J" in line
    assert "2.04 output tok/J" in _figures({"output_tok_per_joule": 2.0400001})
    assert "steady" not in _figures({"output_tok_per_joule": 10.6537})


def _sweep_killing_the_server(path: Path, srv: StandinServer, *extra: str) -> tuple[int, str, str]:
    """`cockpit sweep --yes` as a user runs it; the server is killed once point 1 is recorded."""
    proc = subprocess.Popen([sys.executable, "-m", "cockpit", "sweep", str(path), "s1", "--yes", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            stdin=subprocess.DEVNULL)
    lines = []
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.append(line)
        if "[1/4] c=1 recorded" in line:
            srv.close()
    err = proc.stderr.read() if proc.stderr else ""
    return proc.wait(timeout=120), "".join(lines), err


@pytest.mark.parametrize("on_fail", ["stop", "skip"])
def test_a_server_killed_mid_sweep_fails_the_rest_and_exits_1(tmp_path: Path, on_fail: str) -> None:
    srv = StandinServer(tok_s=3000)
    try:
        # no warm-up: a client against a dead server still writes a record, every request failed
        path = _session(tmp_path, srv.port, None, extra_args=["--warmup-requests", "0"])
        status, out, err = _sweep_killing_the_server(path, srv, *(["--on-fail", "skip"] if on_fail == "skip" else []))
    finally:
        srv.close()
    assert status == 1, out + err
    assert "[2/4] c=2 FAILED: the server stopped answering" in out
    assert " recorded b" not in out.split("[1/4] c=1 recorded", 1)[1]
    session = load_session(path)
    assert [b.concurrency for b in session.benchmarks] == [1]  # no 0 tok/s "success"
    if on_fail == "stop":
        assert "[3/4]" not in out and "not run: c=4,8" in err
        assert "1 of 4 points recorded, failed at c=2, stopped there (not run: c=4,8)" in session.last_action.text
    else:
        assert "[3/4] c=4 FAILED" in out and "[4/4] c=8 FAILED" in out
        assert "1 of 4 points recorded, failed at c=2,4,8" in session.last_action.text


def test_the_current_bench_module_runs_where_the_host_has_it_and_the_record_says_which(tmp_path: Path,
                                                                                      logged_server) -> None:
    srv, log = logged_server
    path = _session(tmp_path, srv.port, log, modules=("sglang.benchmark.serving",), concurrencies=[1])
    res = _cockpit("sweep", str(path), "s1", "--yes")
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"bench client: {tmp_path / 'python-standin'} -m sglang.benchmark.serving" in res.stdout
    (bench,) = load_session(path).benchmarks
    assert bench.bench_client == "sglang.benchmark.serving" and bench.total_tok_s


def test_resume_runs_only_the_points_with_no_record_of_the_run_cut_short(tmp_path: Path, logged_server) -> None:
    import signal

    srv, log = logged_server
    path = _session(tmp_path, srv.port, log)
    proc = subprocess.Popen([sys.executable, "-m", "cockpit", "sweep", str(path), "s1", "--yes"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        if "[2/4] c=2 recorded" in line:
            os.killpg(proc.pid, signal.SIGKILL)  # as a closed terminal or a crash: no end written
            break
    proc.wait(timeout=30)
    cut = load_session(path)
    assert [b.concurrency for b in cut.benchmarks] == [1, 2]
    run_id = cut.benchmarks[0].sweep_run
    res = _cockpit("sweep", str(path), "s1", "--resume")  # confirmed before: no --yes needed
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"resuming run {run_id}" in res.stdout
    assert "[1/4] c=1 already recorded as b1" in res.stdout and "[2/4] c=2 already recorded as b2" in res.stdout
    assert "[3/4] c=4 started" in res.stdout and "[4/4] c=8 started" in res.stdout
    assert res.stdout.count(" started") == 2  # only the points left ran
    benches = load_session(path).benchmarks
    assert [(b.concurrency, b.sweep_run) for b in benches] == [(c, run_id) for c in (1, 2, 4, 8)]
    again = _cockpit("sweep", str(path), "s1", "--resume")
    assert again.returncode == 1 and "no unfinished run" in again.stderr
    assert len(load_session(path).benchmarks) == 4


def test_a_recorded_line_says_each_figures_unit_and_statistic() -> None:
    """`19449 tok/s total, TTFT 14 ms, 362 W` said neither the thousands nor which TTFT (the
    client's mean) nor which power (the main run's mean)."""
    from cockpit.cli.experiment.sweep_cmd import _figures

    line = _figures({"total_tok_s": 19449.4, "output_tok_s": 3890.0, "ttft_ms": 14.2, "power_mean_w": 362.4,
                     "server_ttft_p99_ms": 20.0})
    assert line == ("19,449 tok/s total, 3,890 tok/s out, TTFT mean 14 ms, 362 W mean, "
                    "server TTFT p50/p99 —/20 ms"), line
    assert "TTFT mean 2.5 ms" in _figures({"ttft_ms": 2.46})
