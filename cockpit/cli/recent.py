"""The most recently used session, remembered under $XDG_STATE_HOME/cockpit/, and the session a
CLI target such as `host:NAME` or `prom:NAME` reads (`--session FILE`, else that one)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cockpit.model.session import Session


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "cockpit"


def _recent_file() -> Path:
    return state_dir() / "last-session"


def remember(path: Path) -> None:
    try:
        folder = state_dir()
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".last-session.{os.getpid()}"
        tmp.write_text(str(path.resolve()) + "\n", encoding="utf-8")
        os.replace(tmp, _recent_file())
    except OSError:
        pass  # remembering is a convenience; never fail the open over it


def most_recent() -> Path | None:
    try:
        text = _recent_file().read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return Path(text) if text else None


def session_for_target(args: argparse.Namespace, target: str) -> tuple[str | Path, Session] | int:
    """(path, session) for a `host:NAME` / `prom:NAME` target: `--session FILE`, else the session
    opened last; an exit status (the reason said) when there is none or it does not load."""
    import sys

    from cockpit.ground.sanitize import sanitize
    from cockpit.store.cli_load import load_or_report

    path = args.session or most_recent()
    if path is None:
        print(sanitize(f"cockpit: {target} needs --session FILE (no session was opened before)"), file=sys.stderr)
        return 2
    session = load_or_report(path)
    if session is None:
        return 1
    return path, session


def named_in_session(args: argparse.Namespace, collection: str, what: str,
                     none_hint: str = "none") -> tuple[str | Path, Session, Any] | int:
    """(path, session, record) for a `host:NAME` / `prom:NAME` target: the record called NAME in
    the session's `collection`; an exit status (the reason said) when there is none."""
    import sys

    from cockpit.ground.sanitize import sanitize

    prefix, _, name = args.target.partition(":")
    found = session_for_target(args, f"{prefix}:NAME")
    if isinstance(found, int):
        return found
    path, session = found
    records = getattr(session, collection)
    record = next((r for r in records if r.name == name), None)
    if record is None:
        names = ", ".join(r.name for r in records) or none_hint
        print(sanitize(f"cockpit: {path}: no {what} {name!r} ({names})"), file=sys.stderr)
        return 2
    return path, session, record
