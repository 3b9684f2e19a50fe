"""Every dataset of today's bench client (`python -m sglang.benchmark.serving`) as a sweep:
its own fields validated at load, turned into the client's flags, named in the handoff;
`cockpit add sweep` from a shell."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from paths import EXAMPLE_SESSION

from cockpit.live.experiment.sweep_plan import plan_sweep
from cockpit.model.session import Host, LaunchProfile, Sweep
from cockpit.store.handoff.markdown import render_handoff
from cockpit.store.toml_store import load_session


def cockpit(*args):
    return subprocess.run([sys.executable, "-m", "cockpit", *map(str, args)], capture_output=True, text=True)


def _argv(sweep: Sweep, tmp_path: Path) -> list[str]:
    profile = LaunchProfile(id="l1", name="base", command="python -m sglang.launch_server --port 31000")
    plan = plan_sweep(sweep, profile, Host(name="h", run_dir=str(tmp_path)), run_id="r1")
    return plan.argv(plan.points[0])


def _flags(argv: list[str]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for i, item in enumerate(argv):
        if item.startswith("--"):
            nxt = argv[i + 1] if i + 1 < len(argv) else None
            out[item] = None if nxt is None or nxt.startswith("--") else nxt
    return out


@pytest.mark.parametrize(("fields", "expected", "absent"), [
    ({"dataset": "random-ids", "input_len": 300, "output_len": 20},
     {"--dataset-name": "random-ids", "--random-input-len": "300", "--random-output-len": "20"}, ["--gsp-num-groups"]),
    ({"dataset": "sharegpt", "dataset_path": "/data/sg.json", "sharegpt_context_len": 4096, "output_len": 64},
     {"--dataset-name": "sharegpt", "--dataset-path": "/data/sg.json", "--sharegpt-context-len": "4096",
      "--sharegpt-output-len": "64"}, ["--random-input-len"]),
    ({"dataset": "generated-shared-prefix", "gsp_num_groups": 8, "gsp_prompts_per_group": 4,
      "gsp_system_prompt_len": 2048, "gsp_question_len": 64, "gsp_output_len": 128},
     {"--dataset-name": "generated-shared-prefix", "--gsp-num-groups": "8", "--gsp-prompts-per-group": "4",
      "--gsp-system-prompt-len": "2048", "--gsp-question-len": "64", "--gsp-output-len": "128"},
     ["--random-input-len", "--sharegpt-output-len"]),
    ({"dataset": "mooncake", "dataset_path": "/traces/conv.jsonl", "mooncake_workload": "toolagent",
      "mooncake_slowdown_factor": 2.0, "mooncake_num_rounds": 3, "use_trace_timestamps": True},
     {"--dataset-name": "mooncake", "--dataset-path": "/traces/conv.jsonl", "--mooncake-workload": "toolagent",
      "--mooncake-slowdown-factor": "2", "--mooncake-num-rounds": "3", "--use-trace-timestamps": None},
     ["--random-input-len"]),
    ({"dataset": "random", "request_rate": 12.5},
     {"--dataset-name": "random", "--request-rate": "12.5", "--random-range-ratio": "1"}, ["--dataset-path"]),
])
def test_each_dataset_becomes_the_clients_own_flags(tmp_path, fields, expected, absent):
    flags = _flags(_argv(Sweep(id="s1", name="w", concurrencies=[4], **fields), tmp_path))
    for flag, value in expected.items():
        assert flag in flags and flags[flag] == value, (flag, flags)
    assert not set(absent) & set(flags)


def _session_with(tmp_path: Path, sweep_toml: str) -> Path:
    path = tmp_path / "s.toml"
    shutil.copy(EXAMPLE_SESSION, path)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("\n[[sweeps]]\n" + sweep_toml)
    return path


def test_check_refuses_a_field_of_another_dataset(tmp_path):
    path = _session_with(tmp_path, 'id = "s9"\nname = "w"\ndataset = "random"\ngsp_num_groups = 8\n')
    done = cockpit("check", path)
    assert done.returncode == 1
    assert "gsp_num_groups is for dataset generated-shared-prefix, not random" in done.stderr


def test_check_refuses_a_dataset_given_through_extra_args(tmp_path):
    # recorded as "sharegpt" by the client while the handoff said "random": now said at load
    path = _session_with(tmp_path, 'id = "s9"\nname = "w"\nextra_args = ["--dataset-name", "sharegpt"]\n')
    done = cockpit("check", path)
    assert done.returncode == 1
    assert "extra_args gives --dataset-name (set `dataset` instead)" in done.stderr


def test_add_sweep_from_a_shell_and_the_handoff_names_its_dataset(tmp_path):
    path = tmp_path / "s.toml"
    shutil.copy(EXAMPLE_SESSION, path)
    done = cockpit("add", "sweep", path, "shared prefix", "--dataset", "generated-shared-prefix",
                   "--concurrencies", "1,8,32", "--gsp-num-groups", "16", "--gsp-system-prompt-len", "4096",
                   "--request-rate", "20", "--extra-arg=--seed", "--extra-arg=7")
    assert done.returncode == 0, done.stderr
    ident = done.stdout.strip()
    session = load_session(path)
    (sweep,) = [s for s in session.sweeps if s.id == ident]
    assert (sweep.name, sweep.dataset.value, sweep.concurrencies) == ("shared prefix", "generated-shared-prefix",
                                                                     [1, 8, 32])
    assert (sweep.gsp_num_groups, sweep.gsp_system_prompt_len, sweep.request_rate) == (16, 4096, 20.0)
    assert sweep.extra_args == ["--seed", "7"]
    assert session.journal[-1].text == "sweep added: shared prefix"
    assert cockpit("check", path).returncode == 0
    # the handoff's sweep header says the real workload once a point is recorded
    from cockpit.control.transaction import edit
    from cockpit.model.edit.edits import PERSON
    edit(path, lambda e: e.add_benchmark(label="c8", sweep=ident, concurrency=8, total_tok_s=100.0), PERSON)
    text = render_handoff(load_session(path))
    assert "shared prefix: generated-shared-prefix (16 groups, 4096 system tok)" in text


def test_add_sweep_refuses_a_field_the_dataset_does_not_read(tmp_path):
    path = tmp_path / "s.toml"
    shutil.copy(EXAMPLE_SESSION, path)
    before = path.read_bytes()
    done = cockpit("add", "sweep", path, "w", "--dataset", "sharegpt", "--mooncake-num-rounds", "2")
    assert done.returncode == 1
    assert "mooncake_num_rounds is for dataset mooncake, not sharegpt" in done.stderr
    assert path.read_bytes() == before
