"""Which pane takes which live items: the app's panes by the one routing table below the UI
(live/routes.py, also the assistant's live resources'). A view there is the pane of that
widget id; the log and metrics panes are one per host (MainScreen.live_pane picks the
host's). A pane's `TAKES` is its kind's item types from that table; its `feed` takes any
live item (live/items.py) and refuses, loudly, one of another kind (a routing bug).
"""

from __future__ import annotations

from typing import ClassVar, Protocol, runtime_checkable

from cockpit.live.items import LiveItem
from cockpit.live.routes import ROUTES, Route, state_view

__all__ = ["ROUTES", "LivePane", "Route", "state_pane"]


@runtime_checkable
class LivePane(Protocol):
    TAKES: ClassVar[tuple[type, ...]]

    def feed(self, item: LiveItem) -> None: ...

    def set_state(self, text: str) -> None: ...


def state_pane(feed: str) -> str:
    """The pane that shows a feed's state (its first route)."""
    return state_view(feed)
