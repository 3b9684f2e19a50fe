"""A person's (or an assistant's) answer to a finding, as one session change: through the
SessionController in the TUI, through the one transaction (`edit`) for the CLI and MCP."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cockpit.control.transaction import edit
from cockpit.live.diagnosis.findings import Finding
from cockpit.live.diagnosis.inputs import DiagnosisInputs
from cockpit.live.diagnosis.load import inputs_from_files
from cockpit.model.edit.edits import SessionEditor
from cockpit.model.finding_decisions import accept_finding, dismiss_finding


def accepting(finding: Finding) -> Callable[[SessionEditor], str]:
    """The change that makes `finding` a discovery (hypothesis, evidence attached, benchmarks linked)."""
    return lambda editor: accept_finding(editor, key=finding.key, kind=finding.kind, claim=finding.claim,
                                         evidence=finding.evidence_text(), benchmarks=list(finding.benchmarks))


def dismissing(finding: Finding) -> Callable[[SessionEditor], None]:
    return lambda editor: dismiss_finding(editor, key=finding.key, kind=finding.kind, claim=finding.claim)


def accept_in_file(path: Path | str, finding: Finding, actor: str, *, timeout: float | None = None) -> str:
    return edit(path, accepting(finding), actor, timeout=timeout)


def dismiss_in_file(path: Path | str, finding: Finding, actor: str, *, timeout: float | None = None) -> None:
    edit(path, dismissing(finding), actor, timeout=timeout)


def inputs_from_folder(folder: Path) -> DiagnosisInputs:
    """A folder of pasted files named as `cockpit diagnose` takes them: server.log,
    metrics-*.txt (in name order), gpus.txt (CSV or table), topo.txt, session.toml."""
    from cockpit.store.toml_store import load_session  # live reads no session file: this room may

    def maybe(name: str) -> Path | None:
        path = folder / name
        return path if path.exists() else None

    session_path = maybe("session.toml")
    session = load_session(session_path) if session_path is not None else None
    return inputs_from_files(session, log=maybe("server.log"), metrics=sorted(folder.glob("metrics-*.txt")),
                             gpus=maybe("gpus.txt"), topo=maybe("topo.txt"))
