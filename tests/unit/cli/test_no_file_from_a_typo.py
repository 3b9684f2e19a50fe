"""A typo makes no files: `cockpit fleet` (no such command) is an error naming the commands,
a path that does not exist is not made without a person's yes, and `cockpit new PATH` is
the explicit step that makes a session."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cockpit.store.toml_store import load_session

REPO = Path(__file__).resolve().parents[3]


def cockpit(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "cockpit", *argv], capture_output=True, text=True, cwd=cwd,
                          timeout=60, stdin=subprocess.DEVNULL, env=env)


def test_an_unknown_command_is_an_error_naming_the_commands_and_makes_nothing(tmp_path: Path) -> None:
    done = cockpit(tmp_path, "fleet")
    assert done.returncode != 0
    assert "'fleet' is not a command" in done.stderr
    assert "commands: " in done.stderr and "check" in done.stderr and "sweep" in done.stderr and "new" in done.stderr
    assert "cockpit new fleet.toml" in done.stderr
    assert list(tmp_path.iterdir()) == []  # no ./fleet, ./fleet.bak, ./.fleet.lock


def test_a_near_miss_is_named(tmp_path: Path) -> None:
    done = cockpit(tmp_path, "chek")
    assert done.returncode == 2 and "did you mean `cockpit check`?" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_missing_session_path_without_a_terminal_says_how_and_makes_nothing(tmp_path: Path) -> None:
    done = cockpit(tmp_path, "x.toml")
    assert done.returncode == 2
    assert "x.toml does not exist; create it with: cockpit new x.toml" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_new_makes_the_session_and_refuses_an_existing_one(tmp_path: Path) -> None:
    done = cockpit(tmp_path, "new", "x.toml")
    assert done.returncode == 0, done.stderr
    assert "created x.toml" in done.stdout and "cockpit x.toml" in done.stdout
    assert load_session(tmp_path / "x.toml").title == "x"
    before = (tmp_path / "x.toml").read_bytes()
    again = cockpit(tmp_path, "new", "x.toml")
    assert again.returncode == 1 and "exists already" in again.stderr
    assert (tmp_path / "x.toml").read_bytes() == before


def test_an_existing_file_named_like_a_word_still_opens(tmp_path: Path) -> None:
    """`cockpit notes` where ./notes is a session: the TUI's (here: refused as not TOML, not a command error)."""
    (tmp_path / "notes").write_text("not toml [", encoding="utf-8")
    done = cockpit(tmp_path, "notes")
    assert "is not a command" not in done.stderr and done.returncode == 1


def test_options_read_anywhere_keep_a_commands_own_command_option(tmp_path: Path) -> None:
    """`cockpit add profile S NAME --command CMD`: the profile's command is CMD, not "add"."""
    assert cockpit(tmp_path, "new", "s.toml").returncode == 0
    done = cockpit(tmp_path, "add", "profile", "s.toml", "p", "--command", "python -m sglang.launch_server --tp 8")
    assert done.returncode == 0, done.stderr
    assert load_session(tmp_path / "s.toml").launch[0].command == "python -m sglang.launch_server --tp 8"
