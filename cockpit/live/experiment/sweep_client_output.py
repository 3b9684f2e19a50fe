"""The bench client's output as a sweep reads it while the client runs: lines (a `\\r` ends a
tqdm redraw), the last progress line, and whether and when its main run started and ended
(`main_run_line`), which bound the point's measured window (sweep_watch). Pure: fed chunks,
no I/O.
"""

from __future__ import annotations

import re
from collections import deque

from cockpit.parse.numbers import read_int

__all__ = ["MAIN_RUN_MARK", "ClientOutput", "main_run_line"]

_STDOUT_KEEP = 4000  # lines of the client's stdout kept for the fallback (the block is ~50 at the end)
_TQDM = re.compile(r"\d+%\|")
_TQDM_DONE = re.compile(r"\d+%\|[^|]*\|\s*(\d+)/(\d+)")  # tqdm's `n/total`: requests of the main run done
_RESULT_BLOCK = "Serving Benchmark Result"
MAIN_RUN_MARK = "Starting main benchmark run"


def main_run_line(line: str) -> bool:
    """The client's line saying its warm-up answered and the main run starts: sglang (older)
    and vllm-derived clients print "Initial test run completed. Starting main benchmark
    run...", newer sglang "Warmup completed with N sequences. Starting main benchmark run..."."""
    return MAIN_RUN_MARK in line


class ClientOutput:
    """The client's output as lines (`\\r` ends a tqdm redraw), its last progress line, and
    whether it said its main run started (`main_run`) while none of that run had finished."""

    def __init__(self) -> None:
        self.stdout: deque[str] = deque(maxlen=_STDOUT_KEEP)
        self.tail: deque[str] = deque(maxlen=20)
        self.partial = {"stdout": "", "stderr": ""}
        self.progress = ""
        self.main_run: str | None = None
        """"started": the main-run line came before anything of the main run finished;
        "late": it came after (stdout held in a buffer until the client exits): not usable."""
        self._main_done = False
        self.sending = False
        """The main run's progress bar drew after the main-run line: its requests go out."""
        self.ended = False
        """The main run's last request answered (the bar at n/n, or the result block)."""

    def feed(self, stream: str, text: str) -> bool:
        """Take a chunk; True when the progress line changed."""
        parts = re.split(r"\r\n|\r|\n", self.partial[stream] + text)
        self.partial[stream] = parts.pop()
        changed = False
        said = False
        for line in parts:
            if stream == "stdout":
                self.stdout.append(line)
            if _TQDM.search(line):
                self.progress, changed = line.strip(), True
            elif line.strip():
                self.tail.append(line.strip())
            said = self._watch_main_run(line) or said
        if _TQDM.search(self.partial[stream]):  # a redraw not yet ended by the next `\r`
            self.progress, changed = self.partial[stream].strip(), True
        said = self._watch_main_run(self.partial[stream]) or said
        # judged once the whole chunk is read: a buffered stdout gives the line together with
        # the result block (and tqdm on stderr, unbuffered, has shown requests done already)
        if said and self.main_run is None:
            self.main_run = "late" if self._main_done else "started"
        return changed

    def _watch_main_run(self, line: str) -> bool:
        m = _TQDM_DONE.search(line)
        if _RESULT_BLOCK in line or (m is not None and m.group(1).strip("0") != ""):  # any digit count
            self._main_done = True
        if self.main_run == "started":
            if m is not None:
                self.sending = True
                done, total = read_int(m.group(1)), read_int(m.group(2))  # None past any real count
                self.ended = self.ended or (done is not None and total is not None and done >= total > 0)
            if _RESULT_BLOCK in line:
                self.ended = True
        return main_run_line(line)

    def lines(self) -> list[str]:
        return [*self.stdout, self.partial["stdout"]]
