"""What a start, stop, status or log read of the session's server answers (ServerStatus,
StartResult, StopResult, GpuCheck, LogChunk), its errors, and the readers of the lines the
scripts on the host print (`parse_status`, `parse_gpu`). Plain data, no I/O.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from cockpit.model.launch.confirm import fingerprint
from cockpit.model.session import LaunchProfile

__all__ = [
    "AlreadyRunning", "GpuCheck", "LogChunk", "ServerControlError", "ServerStatus", "StartResult", "StopResult",
    "parse_gpu", "parse_status",
]


class ServerControlError(Exception):
    """A start, stop or status that could not be done (one readable line)."""


class AlreadyRunning(ServerControlError):
    """A server of this session already runs on the host; `status` says which."""

    def __init__(self, status: ServerStatus, session_label: str = "SESSION") -> None:
        what = f"profile {status.profile_id}" if status.profile_id else "a server"
        super().__init__(
            f"{status.host}: {what} of this session already runs (pid {status.pid}); stop it first "
            f"(cockpit stop {session_label} {status.host}), then start again")
        self.status = status


@dataclass(frozen=True, slots=True)
class ServerStatus:
    host: str
    running: bool
    pid: int | None = None
    fingerprint: str | None = None
    profile_id: str | None = None
    log_path: str | None = None
    started: str | None = None
    exit_code: int | None = None  # set once the command ended by itself
    command: str | None = None
    """The command line the server was started with (its .info file), whatever the profile says now."""

    def attached_to(self, profile: LaunchProfile) -> bool:
        """Running, and started from this profile as it is now (same command fingerprint)."""
        return self.running and self.profile_id == profile.id and self.fingerprint == fingerprint(profile)


@dataclass(frozen=True, slots=True)
class GpuCheck:
    checked: bool
    others: tuple[str, ...] = ()  # `pid NAME (N MiB)` per process already holding GPU memory
    reason: str = ""  # why it could not check

    @property
    def warning(self) -> str | None:
        if not self.checked:
            return f"cannot check GPU memory in use: {self.reason}"
        if self.others:
            return "GPUs already hold memory of another process: " + ", ".join(self.others)
        return None


@dataclass(frozen=True, slots=True)
class StartResult:
    status: ServerStatus
    log_path: str
    log_offset: int  # bytes the log held before this start: the run's lines follow
    gpu: GpuCheck
    started_at: float = field(default_factory=time.monotonic)


@dataclass(frozen=True, slots=True)
class StopResult:
    host: str
    pid: int | None  # None: no server of the session was there
    signals: tuple[str, ...] = ()  # ("TERM",) or ("TERM", "KILL")
    left: tuple[int, ...] = ()  # processes of the group still there (empty: all gone)

    @property
    def clean(self) -> bool:
        return not self.left


@dataclass(frozen=True, slots=True)
class LogChunk:
    data: bytes
    offset: int  # where the next read starts
    running: bool
    exit_code: int | None
    truncated: bool = False  # the file shrank below the offset (rotated): read again from 0



def parse_status(host: str, text: str) -> ServerStatus:
    running, pid, exit_code = False, None, None
    info: dict[str, str] = {}
    for line in text.splitlines():
        word, _, rest = line.partition(" ")
        if word in ("running", "stopped"):
            running = word == "running"
            pid = int(rest) if rest.strip().isdigit() else pid
        elif word == "exit" and rest.strip().lstrip("-").isdigit():
            exit_code = int(rest)
        elif word == "info":
            key, _, value = rest.partition("=")
            if key.endswith("%hex"):  # the exact value of one `_info_lines` made inert (server_scripts)
                try:
                    key, value = key[:-4], bytes.fromhex(value).decode("utf-8", "surrogateescape")
                except ValueError:
                    continue
            elif key in info:  # the inert form never replaces the exact one
                continue
            info[key] = value
    return ServerStatus(host=host, running=running, pid=pid, fingerprint=info.get("fingerprint"),
                        profile_id=info.get("profile"), log_path=info.get("log"), started=info.get("started"),
                        exit_code=exit_code, command=info.get("command"))


def parse_gpu(lines: list[str]) -> GpuCheck:
    head = next((ln for ln in lines if ln.startswith("gpucheck ")), None)
    if head is None or head == "gpucheck none":
        return GpuCheck(checked=False, reason="no nvidia-smi on the host")
    rows = [ln[4:] for ln in lines if ln.startswith("gpu ")]
    if head != "gpucheck 0":
        return GpuCheck(checked=False, reason=f"nvidia-smi failed: {rows[0] if rows else head}"[:200])
    others = []
    for row in rows:
        parts = [p.strip() for p in row.split(",")]
        if len(parts) >= 3 and parts[0].isdigit():
            others.append(f"pid {parts[0]} {parts[1]} ({parts[2]} MiB)")
        elif row.strip() and "No running" not in row:
            return GpuCheck(checked=False, reason=f"nvidia-smi said: {row.strip()}"[:200])
    return GpuCheck(checked=True, others=tuple(others))
