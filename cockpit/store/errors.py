"""Errors a session file can have, each pointing at `file:line:col`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cockpit.ground.sanitize import sanitize


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
        # Messages quote the file (a key, a value): made inert for the terminal they go to.
        return "\n".join(sanitize(f"{self.path}:{p.line}:{p.col}: {p.message}") for p in self.problems)
