"""Helpers for the server-control tests: free ports, the stand-in's command line, and what
/proc says about a process group (read directly, not through the code under test)."""

from __future__ import annotations

import os
import shlex
import signal
import socket
import urllib.request
from pathlib import Path

from cockpit.sandbox import SERVER

STANDIN = SERVER  # the STAND-IN server (cockpit/sandbox/sglang_server.py), the one `cockpit sandbox` runs


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def standin_command(python: str, port: int, *extra: str, script: Path | str = STANDIN) -> str:
    """A launch profile command that starts the STAND-IN server (as a person would type it)."""
    return shlex.join([python, str(script), "--model-path", "stand-in/Llama-3-8B", "--port", str(port),
                       "--tp", "1", *extra])


def _stat(pid_dir: Path) -> tuple[int, str, int] | None:
    """(pid, state, pgid) of one /proc entry."""
    try:
        text = (pid_dir / "stat").read_text()
    except OSError:
        return None
    rest = text.rsplit(")", 1)[1].split()
    return int(pid_dir.name), rest[0], int(rest[2])


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes whose process group is `pgid`."""
    found = []
    for d in Path("/proc").glob("[0-9]*"):
        st = _stat(d)
        if st and st[2] == pgid and st[1] != "Z":
            found.append(st[0])
    return found


def all_cmdlines() -> dict[int, bytes]:
    out = {}
    for d in Path("/proc").glob("[0-9]*"):
        try:
            out[int(d.name)] = (d / "cmdline").read_bytes()
        except OSError:
            pass
    return out


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def http_get(port: int, path: str = "/health", timeout: float = 5.0) -> tuple[int, bytes]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as r:
        return r.status, r.read()


def kill_groups_left(folder: Path, pattern: str = "*/*.pid") -> None:
    """Kill every server group whose PID file a test left under `folder` (its run_dir)."""
    for pid_file in folder.glob(pattern):
        text = pid_file.read_text().strip()
        if text.isdigit():
            kill_group(int(text))


def server_pid(folder: Path, pattern: str = "*/*.pid") -> int:
    """The stand-in server process itself (a launched server's PID file names the small sh in
    front of it), to send it SIGUSR1 (it crashes as under load)."""
    pgid = int(next(folder.glob(pattern)).read_text())
    cmdlines = all_cmdlines()
    (pid,) = [p for p in group_members(pgid) if cmdlines.get(p, b"").split(b"\0")[1:2] == [str(STANDIN).encode()]]
    return pid
