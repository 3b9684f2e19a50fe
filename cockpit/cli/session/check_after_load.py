"""`cockpit check`'s second pass: values that load (one bad value must not keep a session
from opening) but would not work, each a `file:line:col` error: a `[[prometheus]] match`
Prometheus would refuse (RE2's regex rules), and a saved log filter or search the linear-time
engine refuses (the log pane matches it as literal text)."""

from __future__ import annotations

from cockpit.model.prom_match import match_problem
from cockpit.model.session import Session
from cockpit.parse.user_pattern import compile_user_pattern
from cockpit.store.errors import Problem
from cockpit.store.locate import KeyIndex


def problems_after_load(session: Session, text: str) -> list[Problem]:
    index = KeyIndex(text)
    found: list[tuple[str, str]] = []
    for i, source in enumerate(session.prometheus):
        why = match_problem(source.match)
        if why:
            found.append((f"prometheus[{i}].match", why))
    for key in ("filter", "search"):
        pattern = getattr(session.ui.log, key)
        compiled = compile_user_pattern(pattern) if pattern else None
        if compiled is not None and compiled.refused:
            found.append((f"ui.log.{key}", f"{pattern!r}: {compiled.note}"))
    return [Problem(*index.locate(path), f"{path}: {why}") for path, why in found]
