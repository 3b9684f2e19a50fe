"""Short ids a person can type: a letter prefix and a number (`t12`, `d3`, `b7`)."""

from __future__ import annotations

import re
from collections.abc import Iterable

PREFIX = {
    "targets": "g",
    "instructions": "i",
    "discoveries": "d",
    "tasks": "t",
    "files": "f",
    "packages": "p",
    "launch": "l",
    "benchmarks": "b",
    "hosts": "h",
    "sweeps": "s",
    "searches": "q",
}

ID_PATTERN = re.compile(r"^[a-z][0-9]+$")


def next_id(prefix: str, existing: Iterable[str]) -> str:
    """The next free id for `prefix`; never reuses a number below the highest in use."""
    highest = 0
    for ident in existing:
        if ident.startswith(prefix) and ident[len(prefix):].isdigit():
            highest = max(highest, int(ident[len(prefix):]))
    return f"{prefix}{highest + 1}"
