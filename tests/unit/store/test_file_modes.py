"""New sessions and their .bak are 0600 (an existing file keeps its mode), and a file others
can read that holds a secret-looking value is warned about, with the fix."""

from __future__ import annotations

import argparse
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from cockpit.model.session import Session
from cockpit.store.toml_store import load_session, save_session


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def cockpit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cockpit", *args], capture_output=True, text=True, timeout=60)


def test_a_new_session_and_its_bak_are_0600_under_a_022_umask(tmp_path):
    old = os.umask(0o022)
    try:
        path = tmp_path / "s.toml"
        save_session(Session(title="one"), path)
        save_session(Session(title="two"), path)
    finally:
        os.umask(old)
    assert mode(path) == 0o600 and mode(tmp_path / "s.toml.bak") == 0o600


def test_the_file_cockpit_creates_on_open_is_0600(tmp_path, monkeypatch):
    from cockpit.cli import open_tui
    # the person answers y at "does not exist: create it?" (a new session is an explicit step)
    monkeypatch.setattr(open_tui, "_confirm_create", lambda path: True)

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    old = os.umask(0o022)
    try:
        resolved = open_tui.resolve_session(str(tmp_path / "new.toml"))
    finally:
        os.umask(old)
    assert not isinstance(resolved, int) and resolved[3] is True
    assert mode(tmp_path / "new.toml") == 0o600


def test_an_existing_0644_file_keeps_its_mode_and_so_does_its_bak(tmp_path):
    path = tmp_path / "s.toml"
    save_session(Session(title="one"), path)
    os.chmod(path, 0o644)
    save_session(Session(title="two"), path)
    assert mode(path) == 0o644 and mode(tmp_path / "s.toml.bak") == 0o644


def _exposed(tmp_path: Path, file_mode: int) -> Path:
    path = tmp_path / "s.toml"
    save_session(Session(title="t"), path)
    os.chmod(path, file_mode)
    return path


def test_cockpit_add_warns_when_a_readable_file_gets_a_token(tmp_path):
    path = _exposed(tmp_path, 0o644)
    done = cockpit("add", "profile", str(path), "base", "--command", "python -m sglang.launch_server --api-key sk-1",
                   "--env", "HF_TOKEN=hf_abcdef")
    assert done.returncode == 0, done.stderr
    assert (f"warning: {path} is readable by anyone on this machine (mode 0644) and holds secret-looking values "
            f"(launch[0].command, launch[0].env.HF_TOKEN); chmod 600 {path}") in done.stderr
    assert "hf_abcdef" not in done.stderr and "sk-1" not in done.stderr
    check = cockpit("check", str(path))
    assert check.returncode == 0 and "chmod 600" in check.stderr


def test_no_warning_for_a_0600_file_or_a_readable_file_without_secrets(tmp_path):
    private = _exposed(tmp_path, 0o600)
    done = cockpit("add", "profile", str(private), "base", "--command", "python -m x", "--env", "HF_TOKEN=hf_abc")
    assert done.returncode == 0 and "warning" not in done.stderr
    os.chmod(private, 0o640)
    assert "readable by its group (mode 0640)" in cockpit("check", str(private)).stderr
    clean = tmp_path / "clean.toml"
    save_session(Session(title="t"), clean)
    os.chmod(clean, 0o644)
    assert cockpit("check", str(clean)).stderr == ""


def test_the_tui_says_it_as_it_opens(tmp_path, monkeypatch):
    from cockpit.cli import open_tui
    from cockpit.model.session import LaunchProfile
    from cockpit.ui.app import CockpitApp

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    path = tmp_path / "s.toml"
    save_session(Session(title="t", launch=[LaunchProfile(id="l1", name="b", command="x --hf-token hf_zz")]), path)
    os.chmod(path, 0o644)
    notes: list[str] = []

    def run(self: Any) -> None:
        notes.extend(self.startup_notes)

    monkeypatch.setattr(CockpitApp, "run", run)
    assert open_tui.run_tui(argparse.Namespace(session=str(path), demo=False, fresh=False, theme=None)) == 0
    assert any("launch[0].command" in n and "chmod 600" in n for n in notes), notes
    assert load_session(path).launch[0].command.endswith("hf_zz")
