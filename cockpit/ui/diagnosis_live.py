"""The diagnosis in the TUI: inputs read from what the live panes hold (the log pane's
last lines, the GPU pane's samples, the topology, the server metrics) and the session,
and a slow watch that keeps the header's count of open findings.

The inputs are copied on the UI thread (cheap: references and a slice of lines); the
rules run in a thread worker, so a frame never waits on them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cockpit.live.diagnosis.engine import decided_keys, diagnose
from cockpit.live.diagnosis.findings import Finding
from cockpit.live.diagnosis.inputs import DiagnosisInputs, bundle
from cockpit.live.server_metrics import ServerMetrics
from cockpit.parse.sglang_metrics import ServerScrape

if TYPE_CHECKING:
    from cockpit.ui.app import CockpitApp

LOG_LINES = 5_000  # the log pane's last lines the rules read (a 50k ring would cost ~0.5 s)
WATCH_S = 5.0


def _scrape_of(m: ServerMetrics) -> ServerScrape | None:
    """The pane's fold as the rules read a scrape: gauges, per-DP gauges, graph passes."""
    if m.state not in ("ok", "failing") or not m.gauges:
        return None
    return ServerScrape(gauges=dict(m.gauges), gauges_by_dp=dict(m.gauges_by_dp),
                        by_label={"cuda_graph_passes_total": dict(m.graph_passes)} if m.graph_passes else {})


def live_inputs(app: CockpitApp) -> DiagnosisInputs:
    from cockpit.ui.widgets.gpu_pane import GpuPane
    from cockpit.ui.widgets.log_pane import LogPane
    from cockpit.ui.widgets.metrics_pane import MetricsPane
    from cockpit.ui.widgets.topology_pane import TopologyPane

    screen = app.main_screen
    logs = list(screen.query(LogPane))
    lines: list[str] | None = None
    first = 1
    if logs and logs[0].buffer.texts:
        buffer = logs[0].buffer
        lines = buffer.texts[-LOG_LINES:]
        first = buffer.first + len(buffer.texts) - len(lines) + 1
    gpus = list(screen.query(GpuPane))
    topo = list(screen.query(TopologyPane))
    scrapes = [s for pane in screen.query(MetricsPane) if (s := _scrape_of(pane.metrics)) is not None][:1]
    return bundle(log_lines=lines, gpus=list(gpus[0].samples) if gpus else [],
                  topology=topo[0].topology if topo else None, metrics=scrapes,
                  session=app.editor.session, first_line=first)


def open_findings(inputs: DiagnosisInputs) -> list[Finding]:
    return diagnose(inputs, decided=decided_keys(inputs))


class FindingsWatch:
    """Every WATCH_S: the open findings, their count said in the header."""

    enabled = True
    """Off in the snapshot tests (tests/ui/conftest.py): the count arrives from a thread at a
    moment no snapshot can pin; tests/ui/test_findings_screen.py turns it on."""

    def __init__(self, app: CockpitApp) -> None:
        self.app = app
        self.findings: list[Finding] = []
        self._busy = False

    def start(self) -> None:
        if not self.enabled:
            return
        self.app.set_interval(WATCH_S, self.tick)
        self.app.call_after_refresh(self.tick)

    def tick(self) -> None:
        if self._busy or not self.app.screen_stack:
            return
        try:
            inputs = live_inputs(self.app)
        except Exception:  # noqa: BLE001 - the main screen is not up (a modal at start-up, exit)
            return
        self._busy = True
        self.app.run_worker(lambda: self._run(inputs), thread=True, group="diagnosis", exit_on_error=False,
                            description="diagnosis")

    def _run(self, inputs: DiagnosisInputs) -> None:
        try:
            found = open_findings(inputs)
        finally:
            self._busy = False
        self.app.call_from_thread(self.show, found)

    def show(self, found: list[Finding]) -> None:
        from cockpit.ui.widgets.header import CockpitHeader

        self.findings = found
        for header in self.app.main_screen.query(CockpitHeader):
            header.show_findings(len(found))
