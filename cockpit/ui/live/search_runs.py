"""The searches running in this app, by search id: each a SearchLoop in an app worker, so a
search goes on when its view is closed and the view finds it again when reopened."""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

__all__ = ["runs_of"]

_RUNS: WeakKeyDictionary[Any, dict[str, Any]] = WeakKeyDictionary()


def runs_of(app: Any) -> dict[str, Any]:
    """search id -> its SearchLoop while it runs (the app's own registry)."""
    return _RUNS.setdefault(app, {})
