"""The diagnosis in the TUI: inputs read from one snapshot of the live state below the UI
(live/state.py, the folds the hub feeds; an assistant and `cockpit diagnose` build theirs
the same way, live/diagnosis/inputs.py `inputs_of`) and the session, and a slow watch that
keeps the header's count of open findings.

The snapshot is taken on the UI thread (cheap: tuples of references); the rules run in a
thread worker, so a frame never waits on them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from cockpit.live.diagnosis.engine import decided_keys, diagnose
from cockpit.live.diagnosis.findings import Finding
from cockpit.live.diagnosis.inputs import DiagnosisInputs, LogFacts, inputs_of, log_facts
from cockpit.live.snapshot import LiveSnapshot
from cockpit.live.state import LiveState
from cockpit.model.session import Session

if TYPE_CHECKING:
    from textual.screen import Screen

    from cockpit.control.session_controller import SessionController


class FindingsApp(Protocol):
    """What the diagnosis glue reads of the app (FindingsApp is one), so it never imports the App."""

    @property
    def controller(self) -> SessionController: ...

    @property
    def live_state(self) -> LiveState: ...

    @property
    def main_screen(self) -> Screen[None]: ...

    @property
    def screen_stack(self) -> list[Screen[Any]]: ...

    def set_interval(self, interval: float, callback: Any, *args: Any, **kwargs: Any) -> Any: ...

    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Any: ...

    def call_from_thread(self, callback: Any, *args: Any, **kwargs: Any) -> Any: ...

WATCH_S = 5.0
LOG_EVERY_S = 30.0  # the watch parses a moving log's lines at most this often


@dataclass(frozen=True, slots=True)
class LiveParts:
    """The live state's snapshot and the session, taken on the UI thread."""

    snapshot: LiveSnapshot
    session: Session

    @property
    def log_total(self) -> int:
        """Lines the log has ever taken: unchanged means the log has not moved."""
        return self.snapshot.log.total if self.snapshot.log is not None else 0

    def inputs(self, facts: LogFacts | None = None) -> DiagnosisInputs:
        """`facts`: the log already read (the watch's cache), else the lines are parsed here."""
        return inputs_of(self.snapshot, self.session, facts=facts)


def live_parts(app: FindingsApp) -> LiveParts:
    return LiveParts(app.live_state.snapshot(), app.controller.session)


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
        would otherwise cost a parse of the kept lines every tick (the idle CPU budget)."""
        log = parts.snapshot.log
        if log is None or not log.lines:
            self._facts = None
            return None
        now = time.monotonic()
        moved = parts.log_total != self._log_total
        if self._facts is None or (moved and now - self._parsed_at >= LOG_EVERY_S):
            self._facts = log_facts(log.lines, log.first_line)
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
