"""Find a record by what a person types for it: its id, else its name.

One rule for every command and tool that takes a profile or a sweep by "ID or NAME"
(`cockpit launch`, `cockpit sweep`, `cockpit diff`, MCP): the id wins; else an exact name;
else a name that differs only in case. The caller words the error, since it knows what
the person was asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

__all__ = ["by_id_or_name", "known_records"]


class _Named(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...


_R = TypeVar("_R", bound=_Named)


def by_id_or_name(records: Sequence[_R], ref: str) -> list[_R]:
    """The records `ref` names: [the one with that id], else those with that exact name,
    else those whose name matches ignoring case; [] when none. More than one: ambiguous."""
    for record in records:
        if record.id == ref:
            return [record]
    named = [r for r in records if r.name == ref]
    return named or [r for r in records if r.name.lower() == ref.lower()]


def known_records(records: Sequence[_Named], none: str = "none") -> str:
    """`p1 (baseline), p2 (fp8)` for an error that lists what could have been meant."""
    return ", ".join(f"{r.id} ({r.name})" for r in records) or none
