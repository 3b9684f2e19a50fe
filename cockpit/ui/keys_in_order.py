"""Keys typed after one that asks for a form act after the form opens: on it, or nowhere.

A binding's action (`e` on a profile) only posts a request; the screen opens the form when
the request reaches it. Keys typed meanwhile (`e S` in one burst) were checked against the
bindings of the screen still showing, so `S` restarted the server behind the form. After
each binding the app now lets the request land (the queues between the widget and its
screen run dry, or a screen opens) before the next key is looked up, for at most
LAND_WAIT_S; a key then meets the form's bindings, and none of the screen behind it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import App
from textual.screen import Screen

LAND_WAIT_S = 0.25  # far over a request's trip through a few queues; a key is never held longer
_QUIET_LOOKS = 2  # dry twice in a row: a handler that was running when first looked at has finished


async def requests_landed(app: App[Any], screen: Screen[Any]) -> None:
    """Return once what the last binding posted has been handled, or another screen is on top."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + LAND_WAIT_S
    quiet = 0
    while loop.time() < deadline:
        if app.screen is not screen:
            return
        focused = screen.focused
        pumps = [node for node in (focused.ancestors_with_self if focused is not None else [screen])
                 if node is not app]
        quiet = quiet + 1 if all(node.message_queue_size == 0 for node in pumps) else 0
        if quiet >= _QUIET_LOOKS:
            return
        await asyncio.sleep(0.001)
