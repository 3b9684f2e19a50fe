"""Find the line of a key path (`tasks[3].status`) in TOML text, for error messages.

A small scanner over table headers and `key =` lines: it covers files written by cockpit
and ordinary hand edits; where it cannot tell, the caller falls back to the table's line.
"""

from __future__ import annotations

import re

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-\"'.]+)\s*=")


def _norm(key: str) -> str:
    return ".".join(part.strip().strip("\"'") for part in key.split("."))


def key_lines(text: str) -> dict[str, tuple[int, int]]:
    """Map every concrete key path to (line, column), both 1-based."""
    found: dict[str, tuple[int, int]] = {}
    counters: dict[str, int] = {}
    prefix = ""
    in_multiline = False
    for number, line in enumerate(text.splitlines(), start=1):
        if in_multiline:
            if line.count('"""') % 2 == 1 or line.count("'''") % 2 == 1:
                in_multiline = False
            continue
        header = _HEADER.match(line)
        if header and not _KEY.match(line):
            name = _norm(header.group(2))
            if header.group(1) == "[[":
                index = counters.get(name, -1) + 1
                counters[name] = index
                # Nested arrays restart when their parent element changes.
                for other in list(counters):
                    if other.startswith(name + "[") or other.startswith(name + "."):
                        del counters[other]
                prefix = f"{_resolve(name, counters)}[{index}]"
            else:
                prefix = _resolve(name, counters)
            found.setdefault(prefix, (number, len(line) - len(line.lstrip()) + 1))
            continue
        key = _KEY.match(line)
        if key:
            path = _norm(key.group(1))
            full = f"{prefix}.{path}" if prefix else path
            found.setdefault(full, (number, line.index(key.group(1)[0]) + 1))
            rest = line[key.end():]
            if rest.count('"""') % 2 == 1 or rest.count("'''") % 2 == 1:
                in_multiline = True
    return found


def _resolve(name: str, counters: dict[str, int]) -> str:
    """`goal.targets` inside the third `[[goal]]`-style parent gets its index back."""
    parts = name.split(".")
    out: list[str] = []
    for i, part in enumerate(parts):
        out.append(part)
        base = ".".join(parts[: i + 1])
        if i < len(parts) - 1 and base in counters:
            out[-1] = f"{part}[{counters[base]}]"
    return ".".join(out)


class KeyIndex:
    """The text's key paths indexed once, then looked up per problem: a file with thousands
    of errors is scanned one time, not once per error (which was quadratic)."""

    def __init__(self, text: str) -> None:
        self.table = key_lines(text)

    def locate(self, loc: str) -> tuple[int, int]:
        return _nearest(self.table, loc)


def locate(text: str, loc: str) -> tuple[int, int]:
    """Best (line, col) for a key path; walks up to the nearest known parent."""
    return _nearest(key_lines(text), loc)


def _nearest(table: dict[str, tuple[int, int]], loc: str) -> tuple[int, int]:
    path = loc
    while path:
        if path in table:
            return table[path]
        cut = max(path.rfind("."), path.rfind("["))
        if cut <= 0:
            break
        path = path[:cut]
    return (1, 1)
