"""Errors a session file can have, each pointing at `file:line:col`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Problem:
    line: int
    col: int
    message: str


class SessionFileError(Exception):
    """A session file that could not be read; it is never overwritten by cockpit."""

    def __init__(self, path: Path | str, problems: list[Problem]) -> None:
        self.path = Path(path)
        self.problems = problems
        super().__init__(self.render())

    def render(self) -> str:
        return "\n".join(f"{self.path}:{p.line}:{p.col}: {p.message}" for p in self.problems)
