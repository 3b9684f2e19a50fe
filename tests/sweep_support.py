"""Helpers for the sweep tests: a `python` that runs the STAND-IN bench client
(cockpit/sandbox/bench_python.py, the same wrapper `cockpit sandbox` writes), the STAND-IN
server on a free port, and a labelled stand-in GPU source."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from cockpit.parse.gpu.sample import GpuSample
from cockpit.sandbox import BENCH_CLIENT, SERVER
from cockpit.sandbox.bench_python import make_bench_python

STANDIN = BENCH_CLIENT
__all__ = ["SERVER", "STANDIN", "StandinServer", "free_port", "make_bench_python", "pid_alive", "standin_gpu_tick"]


def standin_gpu_tick(watts_per_gpu: float = 300.0, gpus: int = 2, limit_w: float = 700.0) -> list[GpuSample]:
    """STAND-IN GPU samples (no GPU here): `gpus` GPUs drawing `watts_per_gpu` each."""
    return [GpuSample(index=i, name="STAND-IN GPU", power_w=watts_per_gpu, power_limit_w=limit_w) for i in range(gpus)]


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class StandinServer:
    """The STAND-IN SGLang server (cockpit/sandbox/sglang_server.py) on a free port; its log
    lines parsed as they come (`events`), for the runner's peak running / queued."""

    def __init__(self, *, tok_s: float = 2000.0, extra: tuple[str, ...] = (), log_path: Path | None = None) -> None:
        """`log_path`: the log goes to that file (as a launched server's does) instead of `lines`."""
        import subprocess
        import threading

        self.port = free_port()
        self.lines: list[str] = []
        self.listeners: list = []
        out = open(log_path, "w") if log_path else subprocess.PIPE
        self.proc = subprocess.Popen(
            [sys.executable, str(SERVER), "--port", str(self.port), "--standin-load-s", "0.05",
             "--standin-capture-s", "0.05", "--standin-tok-s", str(tok_s), "--decode-log-interval", "4", *extra],
            stdout=out, stderr=subprocess.STDOUT, text=True, start_new_session=True)
        if log_path:
            out.close()
        else:
            threading.Thread(target=self._read, daemon=True).start()
        self.wait_ready()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            for listener in list(self.listeners):
                listener(line.rstrip("\n"))

    def wait_ready(self, timeout: float = 20.0) -> None:
        import http.client
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
                conn.request("GET", "/health")
                if conn.getresponse().status == 200:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"stand-in server exited {self.proc.returncode}: {self.lines[-5:]}")
            time.sleep(0.05)
        raise TimeoutError("stand-in server not ready")

    def close(self) -> None:
        import signal

        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is gone for our purpose
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False
