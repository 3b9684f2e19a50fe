"""The most recently used session, remembered under $XDG_STATE_HOME/cockpit/."""

from __future__ import annotations

import os
from pathlib import Path


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
