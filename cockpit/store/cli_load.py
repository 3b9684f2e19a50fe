"""Load a session for a command: on failure print why (file:line:col for a broken file,
"path: reason" for one that cannot be read) and return None; the caller exits 1."""

from __future__ import annotations

import sys
from pathlib import Path

from cockpit.model.session import Session
from cockpit.store.errors import SessionFileError
from cockpit.store.signature import DiskSignature
from cockpit.store.toml_store import load_session_with_signature


def load_or_report(path: str | Path) -> Session | None:
    loaded = load_or_report_signed(path)
    return None if loaded is None else loaded[0]


def load_or_report_signed(path: str | Path) -> tuple[Session, DiskSignature] | None:
    """The session and the signature of its read (for a writer that saves later)."""
    try:
        return load_session_with_signature(path)
    except SessionFileError as exc:
        print(exc.render(), file=sys.stderr)
    except OSError as exc:
        print(f"{path}: {exc.strerror or exc}", file=sys.stderr)
    return None
