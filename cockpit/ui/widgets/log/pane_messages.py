"""The messages a LogPane posts (pane.py), read by the rest of the UI as
`LogPane.ViewChanged` and so on. Each keeps the handler name it had as a class inside the
pane (`namespace="log_pane"`: `on_log_pane_view_changed`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.message import Message
from textual.widget import Widget

from cockpit.model.log_view import LogViewState


@dataclass
class ViewChanged(Message, namespace="log_pane"):
    """Follow, filter, search or a toggle changed in the pane (saved in `ui.log`)."""

    state: LogViewState


@dataclass
class PromptRequested(Message, namespace="log_pane"):
    """The pane needs a line of text (a search, a filter): the app asks it in a dialog
    (a widget opens no screen) and gives the answer, None when cancelled, to `then`."""

    question: str
    value: str
    then: Callable[[str | None], None]


@dataclass
class BenchResultSeen(Message, namespace="log_pane"):
    """"Record this result": a bench_serving block's figures as Benchmark fields
    (`bench_serving.record_fields`); `backend` as the block printed it."""

    fields: dict[str, float | int]
    backend: str | None


@dataclass
class ThroughputUpdated(Message, namespace="log_pane"):
    """The generation-throughput series changed: (log time s, tokens/s summed over DP
    ranks) points of the metrics window, newest last; `current` and `peak` as shown."""

    pane: Widget
    """The LogPane that posts it (typed as its base: pane.py imports this module)."""
    points: tuple[tuple[float, float], ...]
    current: float | None
    peak: float | None

    @property
    def control(self) -> Widget:
        return self.pane
