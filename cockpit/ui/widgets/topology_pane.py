"""The topology pane: its place (the Topology tab) and its feed hook.

The `nvidia-smi topo -m` matrix coloured by distance ($topo-x ... $topo-sys) is the
topology work's own; this widget fixes the public surface:

* `update_topology(topology)`: a parsed topology (any object; shown as text until the
  real pane replaces this module);
* `feed(item)`: an item from the injected `sources.topology` feed; calls `update_topology`;
* `set_state(text)`: the source's state; before any source, "no source configured".
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

NO_SOURCE = "no source configured"


class TopologyPane(VerticalScroll, can_focus=True):
    DEFAULT_CSS = """
    TopologyPane { border: round $panel-lighten-2; border-title-color: $foreground-muted; }
    TopologyPane:focus { border: round $primary; }
    TopologyPane > .topo-state { color: $foreground-muted; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Topology"
        self.state_text = NO_SOURCE
        self.topology: Any = None

    def compose(self) -> ComposeResult:
        yield Static(self.state_text, classes="topo-state")
        yield Static("", classes="topo-matrix")

    def update_topology(self, topology: Any) -> None:
        self.topology = topology
        if self.is_mounted:
            self.query_one(".topo-matrix", Static).update(str(topology))

    def feed(self, item: Any) -> None:
        self.update_topology(item)

    def set_state(self, text: str) -> None:
        self.state_text = text
        if self.is_mounted:
            self.query_one(".topo-state", Static).update(text)
