"""The bench_serving argv of a sweep point: argv items, quoted for the host's shell with
shlex.join, never spliced; hostile extra arguments reach the client as one item each."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from cockpit.live.experiment.sweep_plan import bench_argv, bench_python, plan_sweep, profile_port, sweep_fingerprint
from cockpit.model.session import Host, LaunchProfile, Sweep

HOSTILE = ["; touch {d}/semicolon", "$(touch {d}/dollar)", "`touch {d}/backquote`", "it's \"quoted\"",
           "line\ntouch {d}/newline", "--x=$HOME", "*", "> {d}/redirect", "a\\b", ""]


def _profile(**kw: object) -> LaunchProfile:
    return LaunchProfile(id="l1", name="base", command="python -m sglang.launch_server --port 31000", **kw)


def test_point_argv_is_the_documented_one() -> None:
    sweep = Sweep(id="s1", name="short", input_len=512, output_len=128, range_ratio=0.5, prompts_per_concurrency=3,
                  concurrencies=[1, 8])
    assert bench_argv(sweep, 8, python="/opt/venv/bin/python", port=31000, output_file="o.jsonl") == [
        "/opt/venv/bin/python", "-u", "-m", "sglang.bench_serving", "--backend", "sglang", "--host", "127.0.0.1",
        "--port", "31000", "--dataset-name", "random", "--random-input-len", "512", "--random-output-len", "128",
        "--random-range-ratio", "0.5", "--max-concurrency", "8", "--num-prompts", "24", "--output-file", "o.jsonl"]


def test_sharegpt_and_fixed_prompt_count() -> None:
    sweep = Sweep(id="s1", name="chat", dataset="sharegpt", output_len=256, prompts=100, concurrencies=[4])
    argv = bench_argv(sweep, 4, python="python3", port=30000, output_file="o")
    assert argv[argv.index("--sharegpt-output-len") + 1] == "256"
    assert argv[argv.index("--num-prompts") + 1] == "100"
    assert "--random-input-len" not in argv


def test_hostile_extra_args_reach_the_client_as_one_item_each(tmp_path: Path) -> None:
    extra = [h.format(d=tmp_path) for h in HOSTILE]
    sweep = Sweep(id="s1", name="x", concurrencies=[2], extra_args=extra)
    plan = plan_sweep(sweep, _profile(python=sys.executable), Host(name="h", run_dir=str(tmp_path)), run_id="r1")
    line = plan.command_lines()[0]
    argv = plan.argv(plan.points[0])
    assert argv[-len(extra):] == extra
    # what a shell makes of the line is exactly the argv, and it runs nothing of the text
    echo = shlex.join([sys.executable, "-c", "import sys, json; print(json.dumps(sys.argv[1:]))"])
    shown = subprocess.run(["sh", "-c", f"{echo} " + shlex.join(argv[1:])], capture_output=True, text=True, check=True)
    import json

    assert json.loads(shown.stdout) == argv[1:]
    assert shlex.split(line) == argv
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_hostile_profile_python_and_run_dir_stay_one_item(tmp_path: Path) -> None:
    python = f"/x/$(touch {tmp_path}/py)/python"
    plan = plan_sweep(Sweep(id="s1", name="x", concurrencies=[1]), _profile(python=python),
                      Host(name="h", ssh="gpu1", run_dir=f"/runs/`touch {tmp_path}/rd`"), run_id="r1")
    argv = shlex.split(plan.command_lines()[0])
    assert argv[0] == python
    assert argv[argv.index("--output-file") + 1] == f"/runs/`touch {tmp_path}/rd`/sweeps/s1-r1-c1-a1.jsonl"


@pytest.mark.parametrize(("command", "port"), [
    ("python -m sglang.launch_server --model m --port 31000", 31000),
    ("python -m sglang.launch_server --port=31001", 31001),
    ("python -m sglang.launch_server --model m", 30000),
    ("python -m sglang.launch_server --port abc", 30000),
    ("python -m sglang.launch_server --port 'unterminated", 30000),
])
def test_port_comes_from_the_profile_command(command: str, port: int) -> None:
    assert profile_port(command) == port


def test_points_keys_and_files() -> None:
    plan = plan_sweep(Sweep(id="s2", name="x", concurrencies=[1, 4]), _profile(), Host(name="h", ssh="gpu1"), run_id="R")
    assert [p.key for p in plan.points] == ["s2:R:c1", "s2:R:c4"]
    assert plan.port == 31000
    assert plan.points[1].output_file(plan.folder, 2) == ".cockpit/runs/sweeps/s2-R-c4-a2.jsonl"  # home-relative
    local = plan_sweep(Sweep(id="s2", name="x"), _profile(), None, run_id="R")
    assert local.folder.startswith(str(Path.home()))


def test_fingerprint_changes_with_what_would_run() -> None:
    sweep, profile = Sweep(id="s1", name="x"), _profile()
    base = sweep_fingerprint(sweep, profile)
    assert sweep_fingerprint(sweep.model_copy(update={"notes": "n", "name": "y"}), profile) == base
    assert sweep_fingerprint(sweep.model_copy(update={"extra_args": ["--seed", "2"]}), profile) != base
    assert sweep_fingerprint(sweep, profile.model_copy(update={"python": "/other/python"})) != base
    # the interpreter the command names runs the client (before `python`): an edit of it asks again
    assert sweep_fingerprint(sweep, profile.model_copy(update={
        "command": "evil/python3 -m sglang.launch_server --model-path m --port 31000"})) != base
    # where it runs: a host whose ssh target (user, address, port) or jump host changed
    box = Host(name="box", ssh="lo")
    linked = sweep_fingerprint(sweep, profile, box)
    assert sweep_fingerprint(sweep, profile, box.model_copy(update={"ssh": "root@127.0.0.1:22422"})) != linked
    assert sweep_fingerprint(sweep, profile, box.model_copy(update={"jump": "bastion"})) != linked
    assert sweep_fingerprint(sweep, profile, box, port=31001) != linked


@pytest.mark.parametrize("command, python, expected", [
    # the interpreter the server's SGLang lives in, named by the command: the client runs there too
    ("/opt/venv/bin/python -m sglang.launch_server --port 1", None, "/opt/venv/bin/python"),
    ("/opt/venv/bin/python -m sglang.launch_server --port 1", "/usr/bin/python3", "/opt/venv/bin/python"),
    ("CUDA_VISIBLE_DEVICES=0,1 /srv/sg/bin/python3.11 -u -m sglang.launch_server", None, "/srv/sg/bin/python3.11"),
    # a bare name is only a PATH lookup: the profile's `python` says more
    ("python -m sglang.launch_server --port 1", "/home/me/venv/bin/python", "/home/me/venv/bin/python"),
    ("python3.12 -m sglang.launch_server", None, "python3.12"),
    # no interpreter named: the profile's `python`, else python3
    ("docker run --gpus all lmsysorg/sglang python -m sglang.launch_server", None, "python3"),
    ("/opt/venv/bin/python serve.py", None, "python3"),
    ("sglang serve --port 1", "/x/bin/python", "/x/bin/python"),
])
def test_the_bench_interpreter_comes_from_the_profiles_command_first(command: str, python: str | None,
                                                                      expected: str) -> None:
    profile = LaunchProfile(id="l1", name="base", command=command, python=python)
    plan = plan_sweep(Sweep(id="s1", name="s", concurrencies=[1]), profile, None)
    assert plan.python == expected and plan.argv(plan.points[0])[0] == expected
    assert bench_python(profile) == expected


@pytest.mark.parametrize("modules, expected", [
    (("sglang.benchmark.serving",), "sglang.benchmark.serving"),
    (("sglang.bench_serving", "sglang.benchmark.serving"), "sglang.benchmark.serving"),
    (("sglang.bench_serving",), "sglang.bench_serving"),
])
def test_the_bench_module_is_the_one_the_host_has(tmp_path: Path, modules: tuple[str, ...], expected: str) -> None:
    import asyncio

    from sweep_support import make_bench_python

    from cockpit.control.sweep_session import with_bench_client
    from cockpit.sources.server.bench_hosts import LocalBenchHost

    python = make_bench_python(tmp_path, modules=modules)  # the STAND-IN client under those names
    plan = plan_sweep(Sweep(id="s1", name="s", concurrencies=[1]), _profile(python=python),
                      Host(name="h", run_dir=str(tmp_path / "runs")))
    found, note = asyncio.run(with_bench_client(plan, LocalBenchHost()))
    assert (found.module, note) == (expected, None)
    assert found.argv(found.points[0])[:4] == [python, "-u", "-m", expected]


def test_an_interpreter_without_sglang_is_said(tmp_path: Path) -> None:
    import asyncio

    from cockpit.control.sweep_session import with_bench_client
    from cockpit.sources.server.bench_hosts import LocalBenchHost

    plan = plan_sweep(Sweep(id="s1", name="s", concurrencies=[1]), _profile(python=sys.executable),
                      Host(name="h", run_dir=str(tmp_path / "runs")))
    found, note = asyncio.run(with_bench_client(plan, LocalBenchHost()))
    assert found.module == "sglang.bench_serving"
    assert note is not None and sys.executable in note and "imports neither sglang.benchmark.serving" in note
