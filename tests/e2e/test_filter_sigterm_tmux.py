"""The real `cockpit` process with a filter over long lines (issue 34: `(A|B)*C` over a
100,000-character line held `q` and SIGTERM for 150 s+): the filter typed into `cockpit log`
and the filter saved in a session's `ui.log` both apply, and SIGTERM ends the process
within a couple of seconds."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tmux_driver import cockpit_program, tmux  # noqa: F401  (tmux is the fixture)

from cockpit.model.log_view import LogViewState
from cockpit.model.session import Host, Session, UiState
from cockpit.store.toml_store import save_session

PATTERNS = ["(A|B)*C", "A.*A.*B", "A.*B"]


def _long_log(path: Path) -> None:
    """The lines `re` spent seconds to minutes on, and one line each pattern matches."""
    with path.open("w", encoding="utf-8") as f:
        f.write("AB" * 50_000 + "\n")
        f.write("A" * 4_000 + "\n")
        f.write("A" * 100_000 + "\n")
        f.write("[2026-11-29 09:00:00] the ABC line: AAB matched\n")
        f.write("AB" * 50_000 + "\n")
        f.write("[2026-11-29 09:00:01] the very last line\n")


def _start(tmux, tmp_path: Path, args: str) -> Path:  # noqa: ANN001
    pid_file = tmp_path / "cockpit.pid"
    tmux.start(f"sh -c 'echo $$ > {pid_file}; exec {cockpit_program()} {args}'")
    return pid_file


def _sigterm_exit_s(tmux, pid_file: Path) -> float:  # noqa: ANN001
    os.kill(int(pid_file.read_text().strip()), signal.SIGTERM)
    started = time.monotonic()
    tmux.wait_for("COCKPIT-EXIT=", timeout=30)
    return time.monotonic() - started


@pytest.mark.parametrize("pattern", PATTERNS)
def test_a_filter_typed_into_cockpit_log_applies_and_sigterm_ends_it(tmux, tmp_path: Path, pattern: str) -> None:
    log = tmp_path / "server.log"
    _long_log(log)
    pid_file = _start(tmux, tmp_path, f"log {log}")
    tmux.wait_for("the very last line")
    tmux.keys("\\")
    tmux.wait_for("Show only lines matching")
    tmux.run("send-keys", "-t", "t", "-l", pattern)
    tmux.keys("Enter")
    screen = tmux.wait_for(f"filter: {pattern}")
    assert "the ABC line" in screen and "the very last line" not in screen
    assert _sigterm_exit_s(tmux, pid_file) < 2.0


def test_a_saved_filter_opens_applied_and_sigterm_ends_the_tui(tmux, tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    _long_log(log)
    session = tmp_path / "s.toml"
    save_session(Session(title="x", hosts=[Host(name="here", log_path=str(log))],
                         ui=UiState(log=LogViewState(filter="(A|B)*C"))), session)
    pid_file = _start(tmux, tmp_path, str(session))
    screen = tmux.wait_for("the ABC line", timeout=30)
    assert "filter: (A|B)*C" in screen and "the very last line" not in screen
    assert _sigterm_exit_s(tmux, pid_file) < 2.0
