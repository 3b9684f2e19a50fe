"""`cockpit --help` names every command the parser registers, each with its one-line help,
whether asked alone or after a session path (a hand-kept list once left out `sweep`)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cockpit.cli import build_parser

REPO = Path(__file__).resolve().parents[3]


def registered() -> list[tuple[str, str]]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return [(a.dest, a.help or "") for a in sub._choices_actions]


@pytest.mark.parametrize("argv", [["--help"], ["-h"], ["s.toml", "--help"]])
def test_help_lists_every_registered_command_with_its_summary(tmp_path: Path, argv: list[str]) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO), COLUMNS="200")
    done = subprocess.run([sys.executable, "-m", "cockpit", *argv], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60, stdin=subprocess.DEVNULL, env=env)
    assert done.returncode == 0, done.stderr
    commands = registered()
    assert {name for name, _ in commands} >= {"sweep", "log", "run", "stop", "new"}
    lines = [line.split(None, 1) for line in done.stdout.splitlines() if line.startswith("  ")]
    listed = {parts[0]: parts[1] if len(parts) > 1 else "" for parts in lines}
    for name, summary in commands:
        assert listed.get(name) == summary, f"`cockpit {' '.join(argv)}` leaves out {name!r}"
    assert list(tmp_path.iterdir()) == []  # help makes no session file
