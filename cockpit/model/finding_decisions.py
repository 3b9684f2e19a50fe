"""A person's answer to a diagnosis finding, as one undoable edit each.

Accepting makes a discovery (status hypothesis: a finding is never confirmed by the
machine) with the finding's evidence and its benchmarks linked, and remembers the
evidence key; dismissing only remembers the key. Either way the diagnosis does not propose
the same evidence again. The finding itself is plain values here (the model knows no rule).
"""

from __future__ import annotations

from cockpit.model.edit.edits import PERSON, SessionEditor
from cockpit.model.enums import DiscoveryStatus
from cockpit.model.session import FindingDecision, Session, now


class DecisionError(ValueError):
    """The finding was decided already (by its key)."""


def decided(session: Session, key: str) -> FindingDecision | None:
    return next((d for d in session.findings if d.key == key), None)


def _check_new(editor: SessionEditor, key: str) -> None:
    before = decided(editor.session, key)
    if before is not None:
        raise DecisionError(f"finding {key} was {before.decision} already")


def accept_finding(editor: SessionEditor, *, key: str, kind: str, claim: str, evidence: str,
                   benchmarks: list[str] | None = None) -> str:
    """The finding becomes a discovery (hypothesis); returns the discovery's id. Links to
    benchmarks the session no longer has are left out."""
    _check_new(editor, key)
    known = {b.id for b in editor.session.benchmarks}
    links = [b for b in (benchmarks or []) if b in known]
    by = None if editor.actor == PERSON else editor.actor
    ident = editor.new_id(editor.session, "discoveries")
    tags = ["diagnosis", kind] + ([f"via {by}"] if by else [])

    def change(s: Session) -> str:
        from cockpit.model.session import Discovery

        stamp = now()
        s.discoveries.append(Discovery(id=ident, claim=claim, evidence=evidence, status=DiscoveryStatus.HYPOTHESIS,
                                       tags=tags, benchmarks=links, created=stamp, updated=stamp))
        s.findings.append(FindingDecision(key=key, kind=kind, decision="accepted", claim=claim, discovery=ident,
                                          by=by, when=stamp))
        return ident
    return editor.apply(f"finding accepted as discovery {ident}: {claim}", change, kind="finding.accepted", ref=ident)


def dismiss_finding(editor: SessionEditor, *, key: str, kind: str, claim: str) -> None:
    _check_new(editor, key)
    by = None if editor.actor == PERSON else editor.actor

    def change(s: Session) -> None:
        s.findings.append(FindingDecision(key=key, kind=kind, decision="dismissed", claim=claim, by=by, when=now()))
    editor.apply(f"finding dismissed ({kind}): {claim}", change, kind="finding.dismissed")
