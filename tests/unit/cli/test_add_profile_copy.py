"""`cockpit add profile` as people change profiles: `--python`, and a copy of l1 with one
flag changed (`--from l1 --set --cuda-graph-max-bs=128`, `--unset FLAG`), typed as in a shell
(the value of --set is itself a flag). Bad input is one line and changes nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cockpit.cli import main
from cockpit.model.session import LaunchProfile, Session
from cockpit.store.toml_store import load_session, save_session

BASE = ("python3 -m sglang.launch_server --model-path m --tp 2 --cuda-graph-max-bs 64 "
        "--mem-fraction-static 0.80 --enable-torch-compile")


@pytest.fixture
def path(tmp_path: Path) -> Path:
    p = tmp_path / "camp.toml"
    save_session(Session(launch=[LaunchProfile(id="l1", name="base", command=BASE, host=None, env={"NCCL_X": "1"},
                                               python="/opt/venv/bin/python", confirmed="sealed-by-a-person")]), p)
    return p


def test_add_profile_with_python(path: Path, capsys) -> None:
    assert main(["add", "profile", str(path), "mine", "--command", "python3 -m sglang.launch_server --tp 1",
                 "--python", "/srv/venv/bin/python3"]) == 0
    assert capsys.readouterr().out.strip() == "l2"
    made = load_session(path).launch[1]
    assert made.python == "/srv/venv/bin/python3" and made.command.endswith("--tp 1")


def test_a_copy_with_one_flag_changed_typed_in_a_shell(path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "cockpit", "add", "profile", str(path), "bs128", "--from", "l1",
                           "--set", "--cuda-graph-max-bs=128"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["l2: a copy of l1", "  ~ --cuda-graph-max-bs: 64 -> 128"]
    l1, l2 = load_session(path).launch
    assert l2.command == BASE.replace("--cuda-graph-max-bs 64", "--cuda-graph-max-bs 128")
    assert (l2.env, l2.python, l2.host) == (l1.env, l1.python, l1.host)
    assert l2.confirmed is None  # a new command is the person's to confirm anew


def test_set_repeats_unset_removes_and_equal_numbers_are_no_change(path: Path, capsys) -> None:
    assert main(["add", "profile", str(path), "copy", "--from", "base", "--set", "--mem-fraction-static=0.8",
                 "--set", "--cuda-graph-bs=1 2 4", "--unset", "--enable-torch-compile", "--set", "--disable-radix-cache",
                 "--env", "NCCL_Y=2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "l2: a copy of l1"
    assert set(out[1:]) == {"  - --enable-torch-compile", "  + --cuda-graph-bs 1 2 4", "  + --disable-radix-cache",
                            "  + NCCL_Y=2"}  # 0.80 -> 0.8 is not a change
    made = load_session(path).launch[1]
    assert "--cuda-graph-bs 1 2 4" in made.command and "--enable-torch-compile" not in made.command
    assert made.env == {"NCCL_X": "1", "NCCL_Y": "2"}


def test_bad_input_is_one_line_and_changes_nothing(path: Path, capsys) -> None:
    before = path.read_text()
    assert main(["add", "profile", str(path), "x", "--from", "l1", "--unset", "--nope"]) == 1
    assert capsys.readouterr().err.strip() == f"{path}: --unset --nope: the command has no --nope"
    assert main(["add", "profile", str(path), "x", "--from", "l9", "--set", "--tp=4"]) == 1
    assert "no launch profile 'l9' (profiles: l1 (base))" in capsys.readouterr().err
    assert main(["add", "profile", str(path), "x", "--from", "l1", "--set", "tp=4"]) == 2
    assert "--set 'tp=4': a flag starts with -" in capsys.readouterr().err
    assert main(["add", "profile", str(path), "x"]) == 2
    assert "--command or --from PROFILE is needed" in capsys.readouterr().err
    assert path.read_text() == before
