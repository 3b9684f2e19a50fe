"""Load a session for a command: on failure print why (file:line:col for a broken file,
"path: reason" for one that cannot be read) and return None; the caller exits 1."""

from __future__ import annotations

import sys
from pathlib import Path

from cockpit.model.session import Session
from cockpit.parse.sanitize import sanitize
from cockpit.store.errors import SessionFileError
from cockpit.store.toml_store import load_session


def load_or_report(path: str | Path) -> Session | None:
    try:
        return load_session(path)
    except SessionFileError as exc:
        print(exc.render(), file=sys.stderr)
    except OSError as exc:
        print(sanitize(f"{path}: {exc.strerror or exc}"), file=sys.stderr)  # a path may hold escapes
    return None
