"""A feed: any object with a description and an async `stream()` of items (a batch of log
lines, a GPU sample list, a topology). Its own module so that feeds.py (what the app is
handed) and host_feeds.py (what builds them) both name it without importing each other."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol


class LiveFeed(Protocol):
    description: str
    """Shown in the pane while it runs ("tail gpu1:/var/log/sglang.log")."""

    def stream(self) -> AsyncIterator[Any]: ...
