"""The one place the cockpit starts a Python child of its own (no Textual).

Work that would hold the UI's GIL for long (parsing and folding a live log, scanning a big
file's beginning at C speed) runs in `python -m cockpit...` children; both are started
here, with the checkout that runs this process first on their path (a source checkout
runs too, not only an installed package).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[3])


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = _ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def spawn_python(*args: str) -> subprocess.Popen[bytes] | None:
    """A long-lived child talking over its stdin/stdout pipes (None: it could not start)."""
    try:
        return subprocess.Popen([sys.executable, *args], env=child_env(), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True)
    except OSError:
        return None


async def run_python(*args: str) -> bytes | None:
    """A one-shot child's stdout (None: it failed); killed when the caller is cancelled."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, *args, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, env=child_env())
    try:
        out, _ = await proc.communicate()
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            with contextlib.suppress(Exception):
                await proc.wait()
    return out if proc.returncode == 0 else None
