"""How long a test waits for something that should happen soon.

A wait polls its condition and returns the moment it holds, so a long deadline costs a
passing test nothing; a short one only turns a loaded machine into a failure (the suite
runs on 2 shared cores with 3 workers, and a fresh clone's run ended with waits of 3-10 s
that ran out). Every condition wait gets at least PATIENCE_S.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

PATIENCE_S = 60.0


def patience(timeout: float) -> float:
    """The deadline a wait actually uses: what the test asked, or PATIENCE_S if that is longer."""
    return max(timeout, PATIENCE_S)


async def until(cond: Callable[[], object], why: Callable[[], object], timeout: float = 10.0) -> None:
    """Poll `cond` every 20 ms until it holds; past `patience(timeout)` fail with `why()`."""
    end = asyncio.get_running_loop().time() + patience(timeout)
    while not cond():
        assert asyncio.get_running_loop().time() < end, why()
        await asyncio.sleep(0.02)


async def cancelled(task: asyncio.Task[None]) -> None:
    """Cancel `task` and see it end by the cancel."""
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def append_lines(path: Path, lines: list[str], mode: str = "a") -> None:
    """Write `lines` to a log as a server does (each with its newline)."""
    with path.open(mode, encoding="utf-8") as f:
        f.write("".join(x + "\n" for x in lines))


def batch_line(i: int) -> str:
    """SGLang's decode batch line number `i` (its throughput 100 + i)."""
    return (f"[2025-03-01 12:00:{i % 60:02d} TP0] Decode batch. #running-req: 3, #token: 100, "
            f"token usage: 0.10, gen throughput (token/s): {100 + i}.00, #queue-req: 0")
