"""The diagnosis in the TUI: inputs read from what the live panes hold (the log pane's
last lines, the GPU pane's samples, the topology, the server metrics) and the session,
and a slow watch that keeps the header's count of open findings.

The inputs are copied on the UI thread (cheap: references and a slice of lines); the
rules run in a thread worker, so a frame never waits on them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

from cockpit.live.diagnosis.engine import decided_keys, diagnose
from cockpit.live.diagnosis.findings import Finding
from cockpit.live.diagnosis.inputs import DiagnosisInputs, LogFacts, bundle, log_facts
from cockpit.live.metrics.server_metrics import ServerMetrics
from cockpit.model.session import Session
from cockpit.parse.gpu.gpu_sample import GpuSample
from cockpit.parse.gpu.nvsmi_topo import TopologyMatrix
from cockpit.parse.metrics.sglang_metrics import ServerScrape

if TYPE_CHECKING:
    from textual.screen import Screen

    from cockpit.control.session_controller import SessionController


class LivePanes(Protocol):
    """The main screen's panes without a DOM query (MainScreen.live_panes)."""

    def live_panes(self) -> tuple[list[Any], Any, Any, list[Any]]: ...


class FindingsApp(Protocol):
    """What the diagnosis glue reads of the app (FindingsApp is one), so it never imports the App."""

    @property
    def controller(self) -> SessionController: ...

    @property
    def main_screen(self) -> Screen[Any]: ...

    @property
    def screen_stack(self) -> list[Screen[Any]]: ...

    def set_interval(self, interval: float, callback: Any, *args: Any, **kwargs: Any) -> Any: ...

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any: ...

    def call_from_thread(self, callback: Any, *args: Any, **kwargs: Any) -> Any: ...

LOG_LINES = 5_000  # the log pane's last lines the rules read (a 50k ring would cost ~0.5 s)
WATCH_S = 5.0
LOG_EVERY_S = 30.0  # the watch parses a moving log's lines at most this often


def _scrape_of(m: ServerMetrics) -> ServerScrape | None:
    """The pane's fold as the rules read a scrape: gauges, per-DP gauges, graph passes."""
    if m.state not in ("ok", "failing") or not m.gauges:
        return None
    return ServerScrape(gauges=dict(m.gauges), gauges_by_dp=dict(m.gauges_by_dp),
                        by_label={"cuda_graph_passes_total": dict(m.graph_passes)} if m.graph_passes else {})


@dataclass(frozen=True, slots=True)
class LiveParts:
    """What the panes hold, copied on the UI thread (references and a slice of lines)."""

    lines: list[str] | None
    first_line: int
    log_total: int
    """Lines the log pane has ever taken: unchanged means the log has not moved."""
    gpus: list[GpuSample]
    topology: TopologyMatrix | None
    scrapes: list[ServerScrape]
    session: Session

    def inputs(self, facts: LogFacts | None = None) -> DiagnosisInputs:
        """`facts`: the log already read (the watch's cache), else the lines are parsed here."""
        return bundle(log_lines=self.lines, gpus=self.gpus, topology=self.topology, metrics=self.scrapes,
                      session=self.session, first_line=self.first_line, facts=facts)


def live_parts(app: FindingsApp) -> LiveParts:
    from cockpit.ui.widgets.log.log_pane import LogPane
    from cockpit.ui.widgets.metrics.metrics_pane import MetricsPane

    # the main screen's own references: four DOM queries every WATCH_S cost more than the rest
    panes, gpu, topology, metrics = cast(LivePanes, app.main_screen).live_panes()
    logs = [p for p in panes if isinstance(p, LogPane)]
    lines: list[str] | None = None
    first, total = 1, 0
    if logs and logs[0].buffer.texts:
        buffer = logs[0].buffer
        lines = buffer.texts[-LOG_LINES:]
        first, total = buffer.first + len(buffer.texts) - len(lines) + 1, buffer.total
    scrapes = [s for pane in metrics if isinstance(pane, MetricsPane)
               and (s := _scrape_of(pane.metrics)) is not None][:1]
    return LiveParts(lines, first, total, list(gpu.samples), topology.topology, scrapes, app.controller.session)


def live_inputs(app: FindingsApp) -> DiagnosisInputs:
    return live_parts(app).inputs()


def open_findings(inputs: DiagnosisInputs) -> list[Finding]:
    return diagnose(inputs, decided=decided_keys(inputs))


class FindingsWatch:
    """Every WATCH_S: the open findings, their count said in the header."""

    enabled = True
    """Off in the snapshot tests (tests/ui/conftest.py): the count arrives from a thread at a
    moment no snapshot can pin; tests/ui/test_findings_screen.py turns it on."""

    def __init__(self, app: FindingsApp) -> None:
        self.app = app
        self.findings: list[Finding] = []
        self._busy = False
        self._facts: LogFacts | None = None
        self._log_total = -1
        self._parsed_at = 0.0
        self._shown = False

    def start(self) -> None:
        if not self.enabled:
            return
        self.app.set_interval(WATCH_S, self.tick)

    def tick(self) -> None:
        if self._busy or not self.app.screen_stack:
            return
        try:
            parts = live_parts(self.app)
        except Exception:  # noqa: BLE001 - the main screen is not up (a modal at start-up, exit)
            return
        self._busy = True
        self.app.run_worker(lambda: self._run(parts), thread=True, group="diagnosis", exit_on_error=False,
                            description="diagnosis")

    def _run(self, parts: LiveParts) -> None:
        try:
            found = open_findings(parts.inputs(self._log_facts(parts)))
        finally:
            self._busy = False
        self.app.call_from_thread(self.show, found)

    def _log_facts(self, parts: LiveParts) -> LogFacts | None:
        """The log read again only when it moved, and at most every LOG_EVERY_S: a busy log
        would otherwise cost a parse of LOG_LINES lines every tick (the idle CPU budget)."""
        if parts.lines is None:
            self._facts = None
            return None
        now = time.monotonic()
        moved = parts.log_total != self._log_total
        if self._facts is None or (moved and now - self._parsed_at >= LOG_EVERY_S):
            self._facts = log_facts(parts.lines, parts.first_line)
            self._log_total, self._parsed_at = parts.log_total, now
        return self._facts

    def show(self, found: list[Finding]) -> None:
        """The header's count: these findings (the watch's, or the findings view's when it
        reads them, so the two say the same number)."""
        from cockpit.ui.widgets.chrome.header import CockpitHeader

        changed = len(found) != len(self.findings) or not self._shown
        self.findings, self._shown = found, True
        if not changed:
            return  # the same count: no header layout pass
        for header in self.app.main_screen.query(CockpitHeader):
            header.show_findings(len(found))
