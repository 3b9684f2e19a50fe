"""The demo's live world: a recorded server log and GPU stream, replayed in real time.

Nothing here short-cuts the real pipeline: the log writer appends real-format lines to a
file that the real tail follows and the real parser reads, and the GPU replay emits
`nvidia-smi --query-gpu` CSV text that goes through the real stream parser.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TextIO

from cockpit.parse.gpu.events import GpuSamplesTaken
from cockpit.parse.gpu.nvsmi_query import QueryStreamParser
from cockpit.parse.log.batch_lines import series_figures
from cockpit.parse.log.events import DecodeBatch, PrefillBatch
from cockpit.parse.log.sglang_log import parse_line

STEADY_MARKER = "# --- steady state"
_STAMP = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


@dataclass
class DemoLoad:
    """The replayed server's state now, as its last batch line says it: the one truth the
    demo's other panes read (the /metrics replay's gauges and rates follow it)."""

    running: int = 0
    queued: int = 0
    usage: float = 0.0
    gen_tps: float = 0.0
    tokens: int = 0

    def read(self, line: str) -> None:
        """Take the figures of a batch line as the log pane's series read them (a prefill line
        says running, queued and usage; only a decode line says the generation speed)."""
        event = parse_line(line)
        if not isinstance(event, (DecodeBatch, PrefillBatch)):
            return
        running, queued, usage, gen = series_figures(event)
        self.running = running if running is not None else self.running
        self.queued = queued if queued is not None else self.queued
        self.usage = usage if usage is not None else self.usage
        self.gen_tps = gen if gen is not None else self.gen_tps
        if isinstance(event, DecodeBatch) and event.token is not None:
            self.tokens = event.token


def _pause_after(line: str) -> float:
    """Seconds to wait after a line so the replay feels like a real server."""
    if "Decode batch" in line:
        return 0.45
    if "Prefill batch" in line:
        return 0.2
    if "Load weight" in line or "Loading safetensors" in line or "Capture cuda graph" in line:
        return 0.08
    if "Retract" in line or "out of memory" in line:
        return 0.5
    return 0.02


def split_capture(text: str) -> tuple[list[str], list[str]]:
    """(startup lines, steady-state lines) of a capture; the marker line itself is dropped."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.startswith(STEADY_MARKER):
            return lines[:index], lines[index + 1:]
    return lines, []


class DemoLogWriter:
    """Appends the capture to `path`: startup once, then the steady state in a loop."""

    def __init__(self, capture: Path, path: Path, speed: float = 1.0) -> None:
        self.startup, self.steady = split_capture(capture.read_text(encoding="utf-8"))
        self.path = path
        self.speed = speed
        self.lines_written = 0
        self.load = DemoLoad()
        """What the lines written so far say the server does now."""

    def _stamp(self, line: str) -> str:
        return _STAMP.sub(lambda _m: "[" + datetime.now().strftime("%Y-%m-%d %H:%M:%S"), line, count=1)

    async def run(self) -> None:
        with open(self.path, "a", encoding="utf-8") as handle:
            for line in self.startup:
                await self._write(handle, line)
            while self.steady:
                for line in self.steady:
                    await self._write(handle, line)

    async def _write(self, handle: TextIO, line: str) -> None:
        handle.write(self._stamp(line) + "\n")
        handle.flush()
        self.lines_written += 1
        self.load.read(line)
        await asyncio.sleep(_pause_after(line) / self.speed)


class DemoGpuReplay:
    """Recorded `nvidia-smi --query-gpu ... -lms 1000` output, one tick per interval."""

    def __init__(self, capture: Path, host: str = "lxc", interval_s: float = 1.0) -> None:
        self.lines = capture.read_text(encoding="utf-8").splitlines()
        self.host = host
        self.interval_s = interval_s

    def gpu_count(self) -> int:
        """GPUs in the capture: the lines of its first tick."""
        ticks = self.ticks()
        return ticks[0].count("\n") if ticks else 0

    def ticks(self) -> list[str]:
        """The capture cut into per-tick text blocks (a tick = one line per GPU)."""
        out: list[str] = []
        block: list[str] = []
        stamp = None
        for line in self.lines:
            head = line.split(",", 1)[0]
            if stamp is not None and head != stamp and block:
                out.append("\n".join(block) + "\n")
                block = []
            stamp = head
            block.append(line)
        if block:
            out.append("\n".join(block) + "\n")
        return out

    async def events(self) -> AsyncIterator[GpuSamplesTaken]:
        parser = QueryStreamParser(host=self.host)
        ticks = self.ticks()
        while ticks:
            for text in ticks:
                for batch in parser.feed(text):
                    yield GpuSamplesTaken(host=self.host, samples=batch, taken_at=time.time())
                await asyncio.sleep(self.interval_s)
