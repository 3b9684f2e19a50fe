"""The searches running in this app, by search id: each a SearchLoop in an app worker, so a
search goes on when its view is closed and the view finds it again when reopened."""

from __future__ import annotations

from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

if TYPE_CHECKING:
    from cockpit.control.search.loop import SearchLoop

__all__ = ["runs_of"]

_RUNS: WeakKeyDictionary[object, dict[str, SearchLoop]] = WeakKeyDictionary()


def runs_of(app: object) -> dict[str, SearchLoop]:
    """search id -> its SearchLoop while it runs (the app's own registry)."""
    return _RUNS.setdefault(app, {})
