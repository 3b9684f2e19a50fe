"""Take the versions a drift check read as the record (the TUI's `R`, `cockpit drift --record`)."""

from __future__ import annotations

from collections.abc import Iterable

from cockpit.model.edit.edits import SessionEditor
from cockpit.model.package_drift import DriftRow
from cockpit.model.session import now


def why_nothing_recorded(rows: Iterable[DriftRow]) -> str | None:
    """Why `record_changed` would record nothing (every version as recorded, or none read
    and why), or None when some changed version would be recorded."""
    rows = list(rows)
    if any(r.status == "changed" for r in rows):
        return None
    same = sum(1 for r in rows if r.status == "same")
    unread = [f"{r.package.name} on {r.host}: {r.why or r.status}" for r in rows if r.status in ("unknown", "missing")]
    parts = ([f"{same} already as recorded"] if same else []) + unread
    return "; ".join(parts) or "no package was checked"


def record_changed(editor: SessionEditor, rows: Iterable[DriftRow]) -> str:
    """Each changed package's version becomes the one read now (one stamp for all); says which."""
    changed = [r for r in rows if r.status == "changed"]
    stamp = now()
    for row in changed:
        editor.edit_record("packages", row.package.id, version=row.now, captured=stamp)
    return ", ".join(f"{r.package.id} {r.package.name} {r.now}" for r in changed) or "nothing changed"
