"""Load a session for a command: on failure print why (file:line:col for a broken file,
"path: reason" for one that cannot be read) and return None; the caller exits 1."""

from __future__ import annotations

import sys
from pathlib import Path

from cockpit.ground.sanitize import sanitize
from cockpit.model.session import Session
from cockpit.store.errors import SessionFileError
from cockpit.store.exposure import exposure_warning
from cockpit.store.signature import DiskSignature
from cockpit.store.toml_store import load_session_with_signature


def load_or_report(path: str | Path) -> Session | None:
    loaded = load_or_report_signed(path)
    return None if loaded is None else loaded[0]


def load_or_report_signed(path: str | Path, *, warn: bool = True) -> tuple[Session, DiskSignature] | None:
    """The session and the signature of its read (for a writer that saves later). `warn`:
    say on stderr when others can read the file and it holds a secret (the TUI shows it instead)."""
    try:
        loaded = load_session_with_signature(path)
        if warn:
            warn_if_exposed(path, loaded[0])
        return loaded
    except SessionFileError as exc:
        print(exc.render(), file=sys.stderr)
    except OSError as exc:
        print(sanitize(f"{path}: {exc.strerror or exc}"), file=sys.stderr)  # a path may hold escapes
    return None


def warn_if_exposed(path: str | Path, session: Session) -> None:
    warning = exposure_warning(path, session)
    if warning:
        print(sanitize(warning), file=sys.stderr)  # the path is the user's, maybe hostile
