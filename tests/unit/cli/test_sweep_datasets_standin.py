"""A sweep of each dataset beyond random, made by `cockpit add sweep` and run by `cockpit
sweep --yes` end to end against the STAND-IN server and the STAND-IN bench client: the
client takes the --gsp-* and --mooncake-* flags cockpit emits (it refused them before:
argparse's "unrecognized arguments", every point failed) and shapes its requests by them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sweep_support import STANDIN, StandinServer, make_bench_python

from cockpit.model.session import Host, LaunchProfile, Session
from cockpit.store.toml_store import load_session, save_session

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = StandinServer(tok_s=3000, log_path=tmp_path_factory.mktemp("server") / "server.log")
    yield srv
    srv.close()


def _cockpit(*argv: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cockpit", *map(str, argv)], capture_output=True, text=True,
                          cwd=ROOT, stdin=subprocess.DEVNULL, timeout=180)


def _session(tmp_path: Path, port: int) -> Path:
    path = tmp_path / "s.toml"
    save_session(Session(
        hosts=[Host(name="local", run_dir=str(tmp_path / "runs"))],
        launch=[LaunchProfile(id="l1", name="base", host="local", python=make_bench_python(tmp_path),
                              command=f"python -m sglang.launch_server --model-path m --port {port}")]), path)
    return path


def _run(path: Path, *add: object) -> tuple[str, list]:
    made = _cockpit("add", "sweep", path, "w", "--concurrencies", "1,4", *add)
    assert made.returncode == 0, made.stderr
    ident = made.stdout.strip()
    done = _cockpit("sweep", path, ident, "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "[2/2] c=4 recorded b" in done.stdout
    return ident, [b for b in load_session(path).benchmarks if b.sweep == ident]


def test_a_generated_shared_prefix_sweep_runs_end_to_end(tmp_path: Path, server) -> None:
    path = _session(tmp_path, server.port)
    ident, benches = _run(path, "--dataset", "generated-shared-prefix", "--gsp-num-groups", "2",
                          "--gsp-prompts-per-group", "3", "--gsp-system-prompt-len", "40", "--gsp-question-len", "8",
                          "--gsp-output-len", "6")
    assert [b.concurrency for b in benches] == [1, 4]
    for b in benches:
        assert b.dataset == "generated-shared-prefix" and b.output_tok_s and b.ttft_ms is not None
    records = [json.loads(line) for f in sorted((tmp_path / "runs").rglob("*.jsonl")) for line in f.open()]
    assert records and all(r["dataset_name"] == "generated-shared-prefix" for r in records)
    # 2 groups x 3 prompts, each a 40-token system prompt and an 8-token question, 6 tokens out
    assert all(r["completed"] == 6 and r["total_input_tokens"] == 6 * 48 and r["total_output_tokens"] == 36
               for r in records)


def test_a_mooncake_trace_sweep_runs_end_to_end_at_the_traces_times(tmp_path: Path, server) -> None:
    trace = tmp_path / "trace.jsonl"  # 4 requests 200 ms apart in the trace, replayed twice as slow
    trace.write_text("".join(json.dumps({"timestamp": 200 * i, "input_length": 30, "output_length": 5,
                                          "hash_ids": [i]}) + "\n" for i in range(4)))
    path = _session(tmp_path, server.port)
    ident, benches = _run(path, "--dataset", "mooncake", "--dataset-path", trace, "--mooncake-workload", "toolagent",
                          "--mooncake-slowdown-factor", "2", "--mooncake-num-rounds", "1", "--use-trace-timestamps",
                          "--prompts-per-concurrency", "4")
    assert [b.concurrency for b in benches] == [1, 4] and all(b.dataset == "mooncake" for b in benches)
    records = [json.loads(line) for f in sorted((tmp_path / "runs").rglob("*.jsonl")) for line in f.open()]
    assert len(records) == 2
    for r in records:
        assert r["dataset_name"] == "mooncake" and r["total_input_tokens"] == r["completed"] * 30
        assert r["duration"] >= 0.6 * 2 * 0.95  # the last request left at 600 ms x 2


def test_the_stand_in_takes_every_flag_cockpit_emits_for_a_dataset() -> None:
    from cockpit.model.bench.sweep_dataset import _OWN_FIELDS

    flags = {flag for _owners, flag in _OWN_FIELDS.values()}
    helped = subprocess.run([sys.executable, str(STANDIN), "--help"], capture_output=True, text=True).stdout
    assert {flag for flag in flags if flag not in helped} == set()
