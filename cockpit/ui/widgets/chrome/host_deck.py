"""HostDeck: one pane per host (the log panes, the metrics panes), one shown at a time.

The first pane is composed with the deck and keeps its id (`#log`, `#metrics`), so a
session of one host looks and behaves as before; it is given to the first host that
feeds the deck (or to a fixed feed, host None). Other hosts' panes are mounted when their
feed starts, hidden. A one-line strip over the panes names the hosts, the shown one
highlighted, once there are two or more; clicking a name shows that host.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.events import Click
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from cockpit.ui.safe_text import safe


class HostDeck(Vertical):
    DEFAULT_CSS = """
    HostDeck > .deck-hosts { height: 1; display: none; text-wrap: nowrap; text-overflow: ellipsis; }
    HostDeck.-several > .deck-hosts { display: block; }
    """

    @dataclass
    class Shown(Message):
        """The deck now shows `host`'s pane (a key, a click)."""

        deck: HostDeck
        host: str | None

        @property
        def control(self) -> HostDeck:
            return self.deck

    def __init__(self, make: Callable[[bool], Widget], *, label: str, key_hint: str = "",
                 id: str | None = None) -> None:
        """`make(primary)` builds a pane (the primary one with its fixed id); `label` starts
        the strip ("Log")."""
        super().__init__(id=id)
        self._make = make
        self.label = label
        self.key_hint = key_hint
        self.primary = make(True)
        self.panes: dict[str | None, Widget] = {}
        """host -> pane, in the order the hosts came; the primary under None until claimed."""
        self.current: str | None = None
        self._claimed = False

    def compose(self) -> ComposeResult:
        yield Static("", classes="deck-hosts")
        yield self.primary

    # ----- which pane --------------------------------------------------------------------------
    @property
    def hosts(self) -> list[str]:
        return [h for h in self.panes if h is not None]

    @property
    def shown(self) -> Widget:
        return self.panes.get(self.current) or self.primary

    @property
    def all_panes(self) -> list[Widget]:
        """Every pane of the deck, shown or not (the primary first)."""
        return [self.primary, *(p for p in self.panes.values() if p is not self.primary)]

    def has(self, host: str | None) -> bool:
        return host in self.panes

    def pane_for(self, host: str | None) -> Widget:
        """`host`'s pane, made (hidden unless it is the first) when it has none yet."""
        if host in self.panes:
            return self.panes[host]
        if not self._claimed:  # the primary pane goes to the first comer
            self._claimed = True
            self.panes[host] = self.primary
            self.current = host
            self._update_strip()
            return self.primary
        pane = self._make(False)
        pane.display = False
        self.panes[host] = pane
        self.mount(pane)
        self._update_strip()
        return pane

    def show(self, host: str | None) -> Widget:
        """Show `host`'s pane (kept focus moves with it)."""
        if host not in self.panes:
            return self.shown
        old = self.shown
        self.current = host
        new = self.shown
        if new is not old:
            if hasattr(old, "view_state") and hasattr(new, "apply_view_state"):
                # the view (filter, follow) stays as it was, at once: a pane not mounted yet
                # holds it and applies it to its widgets on mount (waiting for a refresh let
                # a loaded machine show the new host's pane without the filter)
                new.apply_view_state(old.view_state)
            had_focus = old.has_focus_within if old.is_mounted else False
            new.display, old.display = True, False
            if had_focus:
                new.focus()
        self._update_strip()
        self.post_message(self.Shown(self, host))
        return new

    def drop(self, host: str) -> None:
        """`host` left the session: its pane goes (the primary stays, told why)."""
        pane = self.panes.pop(host, None)
        if pane is None:
            return
        if pane is self.primary:
            self._claimed = bool(self.panes)  # alone: the next host to come takes it
            for method, args in (("set_state", (f"{host}: removed from the session",)), ("source_stopped", ())):
                if (call := getattr(pane, method, None)) is not None:
                    call(*args)
        if self.current == host:
            self.current = self.hosts[0] if self.hosts else None
            shown = self.shown
            shown.display = True
            if pane is not shown and pane is self.primary:
                pane.display = False
        if pane is not self.primary:
            pane.remove()
        self._update_strip()

    # ----- the strip -------------------------------------------------------------------------
    def _update_strip(self) -> None:
        hosts = self.hosts
        self.set_class(len(hosts) > 1, "-several")
        if not self.is_mounted:
            return
        parts: list[str | tuple[str, str]] = [(f"{self.label}: ", "$foreground-muted")]
        for host in hosts:
            style = "bold reverse $primary" if host == self.current else ""
            parts += [(f" {safe(host)} ", style), " "]
        if self.key_hint:
            parts.append((f" {self.key_hint}", "$foreground-muted"))
        self.query_one(".deck-hosts", Static).update(Content.assemble(*parts))

    def on_mount(self) -> None:
        self._update_strip()

    def on_click(self, event: Click) -> None:
        strip = self.query_one(".deck-hosts", Static)
        if event.widget is not strip:
            return
        x = event.x - len(self.label) - 2
        for host in self.hosts:
            width = len(safe(host)) + 2
            if 0 <= x < width:
                self.show(host)
                return
            x -= width + 1
