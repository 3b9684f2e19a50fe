"""What reaches the terminal, not what the compositor holds: the bytes the app writes, read
back into a grid of cells. Textual's headless driver writes nothing and `screen_text` renders
the whole screen afresh, so neither can show a repaint that never reached the terminal (issue
39: a startup toast stood in tmux until the next key). STAND-IN for a terminal: it knows the
cursor moves and the characters Textual writes; colours, modes and titles are read past."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from rich.cells import cell_len
from textual.drivers import headless_driver

_TOKEN = re.compile(r"\x1b\[([0-9;?<>]*)([A-Za-z])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.|[^\x1b]")


class _WrittenDriver(headless_driver.HeadlessDriver):
    """The headless driver, but the app draws through it and what it writes is kept."""

    written: list[str]

    @property
    def is_headless(self) -> bool:
        return False  # so the app writes its updates (it skips drawing for a headless driver)

    def write(self, data: str) -> None:
        type(self).written.append(data)


@contextmanager
def terminal_bytes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Within: `run_test` apps write their frames into the list yielded."""
    written: list[str] = []
    driver = type("WrittenDriver", (_WrittenDriver,), {"written": written})
    monkeypatch.setattr(headless_driver, "HeadlessDriver", driver)
    yield written


def terminal_lines(written: list[str], width: int, height: int) -> list[str]:
    """The screen a terminal shows after `written`: one string per row (trailing blanks off)."""
    *_, last = _screens(["".join(written)], width, height)
    return last


def ever_shown(written: list[str], width: int, height: int, words: str) -> bool:
    """Whether `words` stood on one row of the terminal after any write (a toast that came and
    went between two looks of a loaded test counts)."""
    return any(any(words in line for line in screen) for screen in _screens(list(written), width, height))


def _screens(writes: list[str], width: int, height: int) -> Iterator[list[str]]:
    """The terminal's rows after each write."""
    grid = [[" "] * width for _ in range(height)]
    y = x = 0
    for data in writes:
        y, x = _play(data, grid, y, x, width, height)
        yield ["".join(row).rstrip() for row in grid]


def _play(data: str, grid: list[list[str]], y: int, x: int, width: int, height: int) -> tuple[int, int]:
    for token in _TOKEN.finditer(data):
        if token.group(2):  # a CSI sequence: only the cursor's move matters here
            if token.group(2) == "H":
                row, _, col = (token.group(1) or "1;1").partition(";")
                y, x = int(row or 1) - 1, int(col or 1) - 1
            continue
        text = token.group(0)
        if text.startswith("\x1b"):
            continue
        if text in "\r\n":
            y, x = (y + 1, 0) if text == "\n" else (y, 0)
            continue
        cells = cell_len(text)
        if 0 <= y < height and 0 <= x < width:
            grid[y][x] = text
            if cells == 2 and x + 1 < width:
                grid[y][x + 1] = ""
        x += cells
    return y, x
