"""A feed: any object with a description and an async `stream()` of items (a batch of log
lines, a GPU tick, a topology). Its own module so that feeds.py (what the app is
handed) and host_feeds.py (what builds them) both name it without importing each other.
What a feed may yield is the live layer's (live/items.py: `LiveItem`); the hub refuses
anything else by name (control/live_hub.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol


class LiveFeed(Protocol):
    description: str
    """Shown in the pane while it runs ("tail gpu1:/var/log/sglang.log")."""

    def stream(self) -> AsyncIterator[object]: ...
