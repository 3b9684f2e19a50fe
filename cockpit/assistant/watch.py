"""Change notifications for the session resources: a client that listens
(`subscriptions/listen`) is told which resource changed instead of polling.

The session file is the shared memory: the TUI, `cockpit add`, a sweep or another
assistant may write it. So changes are seen where they land, on disk: the file's
signature is checked every `interval_s`, and on a change each section (and the handoff)
is rendered again; only those whose text differs are announced.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path

from cockpit.assistant import views
from cockpit.model.session import Session
from cockpit.store.errors import SessionFileError
from cockpit.store.signature import DiskSignature, disk_signature
from cockpit.store.toml_store import load_session

INTERVAL_S = 0.5


def texts(session: Session, uri: str) -> dict[str, str]:
    """Each session resource's text, by URI (`uri`: the resources' common prefix)."""
    out = {uri + "handoff": views.handoff(session)}
    out.update({uri + name: views.section(name, session) for name in views.SECTIONS})
    return out


class SessionWatch:
    def __init__(self, path: Path, uri: str, publish: Callable[[str], Awaitable[None]], *,
                 interval_s: float = INTERVAL_S) -> None:
        self.path, self.uri, self.publish, self.interval_s = path, uri, publish, interval_s
        self._signature: DiskSignature | None = None
        self._texts: dict[str, str] = {}

    def changed(self) -> list[str]:
        """The URIs whose text differs from the last look (none on the first look)."""
        signature = disk_signature(self.path)
        if signature == self._signature:
            return []
        try:
            now = texts(load_session(self.path), self.uri)
        except (SessionFileError, OSError):  # mid-edit by hand: look again next time
            return []
        self._signature = signature
        before, self._texts = self._texts, now
        if not before:
            return []
        return [uri for uri, text in now.items() if before.get(uri) != text]

    async def run(self) -> None:
        self.changed()
        while True:
            await asyncio.sleep(self.interval_s)
            for uri in self.changed():
                with contextlib.suppress(Exception):  # a gone listener never stops the watch
                    await self.publish(uri)
