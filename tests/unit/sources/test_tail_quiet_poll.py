"""A local log that has gone quiet is polled twice a second, not ten times (the idle
cockpit's CPU: benchmarks/README.md), and a line written then still arrives, once."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import cockpit.sources.log.tail as log_tail
from cockpit.sources.log.tail import ResumableTail
from cockpit.sources.log.tail_events import LogBytes


async def test_a_quiet_file_is_polled_less_and_a_new_line_still_arrives(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    path = tmp_path / "server.log"
    path.write_bytes(b"ready\n")
    polls: list[float] = []
    real_stat = os.stat

    def counting_stat(p, *a, **k):  # noqa: ANN001, ANN002, ANN003, ANN202
        if str(p) == str(path):
            polls.append(time.monotonic())
        return real_stat(p, *a, **k)

    monkeypatch.setattr(log_tail.os, "stat", counting_stat)
    got: list[bytes] = []
    async with ResumableTail.local(path, from_start=True, poll_interval_s=0.05, quiet_poll_s=0.5,
                                   quiet_after_s=0.5) as tail:
        async def read() -> None:
            async for ev in tail:
                if isinstance(ev, LogBytes):
                    got.append(ev.data)

        reader = asyncio.create_task(read())
        await asyncio.sleep(0.45)  # lively: every 0.05 s
        lively = len(polls)
        await asyncio.sleep(2.5)  # quiet since 0.5 s: every 0.5 s
        quiet = len(polls) - lively
        with path.open("ab") as f:
            f.write(b"a new line\n")
        written = time.monotonic()
        while b"a new line\n" not in b"".join(got) and time.monotonic() - written < 5:
            await asyncio.sleep(0.02)
        arrived_after = time.monotonic() - written
        reader.cancel()
    assert lively >= 5, polls
    assert quiet <= 7, f"{quiet} polls in 2.5 quiet seconds (at 10 a second it would be ~25)"
    assert b"".join(got) == b"ready\na new line\n"
    assert arrived_after < 1.5
