"""What a benchmark keeps of where its figures came from: the command that started the
server (its run folder's .info, not the profile as it is now), the bench client's module and
version, which repeat of its point it is, and for a server percentile the histogram bucket
it was interpolated in."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from cockpit.control.sweep_session import with_bench_client
from cockpit.live.experiment.sweep_plan import bench_module_probe, plan_sweep, point_key
from cockpit.live.experiment.sweep_runs import sweep_runs
from cockpit.live.experiment.sweep_sink import benchmark_fields, recorded_in
from cockpit.live.experiment.sweep_watch import PointWatch
from cockpit.model.session import Benchmark, JournalEvent, LaunchProfile, Session, Sweep
from cockpit.parse.bench.result_jsonl import BenchOutcome
from cockpit.sources.server.results import parse_status
from cockpit.sources.server.scripts import _info_lines
from cockpit.store.handoff.markdown import render_handoff
from cockpit.ui.screens.bench_detail import bench_detail

PROFILE = LaunchProfile(id="l1", name="base", command="python -m sglang.launch_server --tp 8 --port 30001")
SWEEP = Sweep(id="s1", name="ramp", concurrencies=[1, 4], repeats=3)


def test_repeats_go_round_the_sweep_each_with_its_own_key_and_label():
    plan = plan_sweep(SWEEP, PROFILE, None, run_id="r1")
    assert [(p.concurrency, p.repeat) for p in plan.points] == [(1, 1), (4, 1), (1, 2), (4, 2), (1, 3), (4, 3)]
    # a first run keeps the key points had before repeats (a resumed older run still matches)
    assert [p.key for p in plan.points[:3]] == ["s1:r1:c1", "s1:r1:c4", "s1:r1:c1:r2"]
    assert len({p.output_file("/runs", 1) for p in plan.points}) == 6
    fields = benchmark_fields(plan, plan.points[2], BenchOutcome({"total_tok_s": 100.0}, 4, 800, "jsonl"),
                              PointWatch())
    assert (fields["label"], fields["repeat"]) == ("ramp c1 r2", 2)
    session = Session(launch=[PROFILE], sweeps=[SWEEP],
                      benchmarks=[Benchmark(id="b1", label="x", profile="l1", sweep="s1", sweep_run="r1",
                                            concurrency=1, repeat=2)],
                      journal=[JournalEvent(kind="sweep.run.started", text="sweep s1 run r1 started on l1: x",
                                            ref="s1:r1", when=datetime(2026, 12, 7, tzinfo=UTC))])
    assert recorded_in(session, "s1:r1:c1:r2") == "b1" and recorded_in(session, "s1:r1:c1") is None
    (run,) = sweep_runs(session)
    assert run.missing == (1, 4)  # c=1 has one of its three repeats: not done


def test_a_sweep_without_repeats_records_as_before():
    plan = plan_sweep(SWEEP.model_copy(update={"repeats": 1}), PROFILE, None, run_id="r1")
    fields = benchmark_fields(plan, plan.points[0], BenchOutcome({}, 1, 1, "jsonl"), PointWatch())
    assert fields["label"] == "ramp c1" and "repeat" not in fields and plan.points[0].key == point_key("s1", "r1", 1)


def test_the_command_recorded_is_the_one_that_started_the_server():
    started = "python -m sglang.launch_server --tp 4 --port 30001"  # the profile says --tp 8 since
    lines = _info_lines({"fingerprint": "f", "profile": "l1", "log": "/l", "command": started})
    status = parse_status("gpu", "running 42\n" + "".join(f"info {line}\n" for line in lines))
    assert status.command == started
    plan = plan_sweep(SWEEP, PROFILE, None, run_id="r1").with_server_command(status.command)
    fields = benchmark_fields(plan, plan.points[0], BenchOutcome({}, 1, 1, "jsonl"), PointWatch())
    assert fields["command"] == started
    # a command with an escape is kept exactly (read back from its hex form), shown inert
    odd = "python -m sglang.launch_server --served-model-name a\x1b]0;x\x07b"
    lines = _info_lines({"command": odd})
    assert parse_status("gpu", "".join(f"info {line}\n" for line in lines)).command == odd


def test_the_bench_clients_version_is_read_where_it_is_installed(tmp_path: Path):
    # a package installed as a distribution (its dist-info), as pip leaves sglang
    pkg = tmp_path / "site"
    (pkg / "sglang" / "benchmark").mkdir(parents=True)
    for init in (pkg / "sglang" / "__init__.py", pkg / "sglang" / "benchmark" / "__init__.py"):
        init.write_text("")
    (pkg / "sglang" / "benchmark" / "serving.py").write_text("raise SystemExit('never imported')\n")
    info = pkg / "sglang-0.5.23.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.23\n")

    class Host:
        async def run(self, argv, *, folder, pidfile, on_output):  # noqa: ANN001, ANN202
            done = subprocess.run(argv, capture_output=True, text=True, env={"PYTHONPATH": str(pkg)}, timeout=60)
            on_output("stdout", done.stdout)

    plan = plan_sweep(SWEEP, PROFILE.model_copy(update={"python": sys.executable}), None, run_id="r1")
    assert bench_module_probe(sys.executable)[0] == sys.executable
    chosen, missing = asyncio.run(with_bench_client(plan, Host()))
    assert missing is None and (chosen.module, chosen.client_version) == ("sglang.benchmark.serving", "sglang 0.5.23")
    fields = benchmark_fields(chosen, chosen.points[0], BenchOutcome({}, 1, 1, "jsonl"), PointWatch())
    assert (fields["bench_client"], fields["bench_client_version"]) == ("sglang.benchmark.serving", "sglang 0.5.23")


def test_a_server_percentile_is_shown_with_its_bucket():
    bench = Benchmark(id="b1", label="c1", profile="l1", concurrency=1, server_ttft_p99_ms=19.9,
                      server_buckets={"server_ttft_p99_ms": [10.0, 20.0]}, bench_client="sglang.benchmark.serving",
                      bench_client_version="sglang 0.5.23", command="python -m sglang.launch_server --tp 4", sweep="s1",
                      repeat=2)
    text = bench_detail(bench).plain
    assert "TTFT p99 ms           19.9  (interpolated in bucket 10–20)" in text, text
    assert "sglang.benchmark.serving (sglang 0.5.23)" in text and "repeat" in text
    assert "Command (as the server was started)\npython -m sglang.launch_server --tp 4" in text
    session = Session(launch=[PROFILE], sweeps=[SWEEP], benchmarks=[bench])
    row = next(line for line in render_handoff(session).splitlines() if line.startswith("| 1 |"))
    assert "| 19.9 (bucket 10–20) |" in row and "| 2 |" in row  # the repeat column too
