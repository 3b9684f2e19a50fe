"""The GPU pane: its place in the layout and its feed hook.

The GPU sampler and its rendering (power bars against limit, clocks, PCIe, NUMA) are the
GPU pane's own work; this widget fixes the public surface:

* `update_samples(samples)`: the latest samples, one per GPU (any objects; shown as text
  here until the real pane replaces this module);
* `feed(item)`: an item from the injected `sources.gpu` feed; calls `update_samples`;
* `set_state(text)`: the source's state in words; before any source, "no source configured".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

NO_SOURCE = "no source configured"


class GpuPane(VerticalScroll, can_focus=True):
    DEFAULT_CSS = """
    GpuPane { border: round $panel-lighten-2; border-title-color: $foreground-muted; }
    GpuPane:focus { border: round $primary; }
    GpuPane > .gpu-state { color: $foreground-muted; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "GPUs"
        self.state_text = NO_SOURCE
        self.samples: list[Any] = []

    def compose(self) -> ComposeResult:
        yield Static(self.state_text, classes="gpu-state")
        yield Static("", classes="gpu-samples")

    def update_samples(self, samples: Sequence[Any]) -> None:
        self.samples = list(samples)
        if self.is_mounted:
            self.query_one(".gpu-samples", Static).update("\n".join(str(s) for s in self.samples))

    def feed(self, item: Any) -> None:
        self.update_samples(item if isinstance(item, Sequence) and not isinstance(item, str) else [item])

    def set_state(self, text: str) -> None:
        self.state_text = text
        if self.is_mounted:
            self.query_one(".gpu-state", Static).update(text)
