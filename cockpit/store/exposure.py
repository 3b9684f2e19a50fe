"""Secrets in a file others can read: what `cockpit` warns about when it opens or saves one.

Exports and screens mask tokens (ground/redact.py), but the session file holds them in
clear. New sessions are created 0600; one that is group- or world-readable (made before, or
chmod'ed) and holds a secret-looking value gets a warning naming where and the fix.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from cockpit.ground.redact import is_secret_name, redact_text
from cockpit.model.session import Session
from cockpit.store.toml_store import to_data


def secret_places(session: Session) -> list[str]:
    """Key paths of values that look like credentials (HF_TOKEN=..., --api-key X)."""
    found: list[str] = []
    stack: list[tuple[object, str, bool]] = [(to_data(session), "", False)]
    while stack:
        item, path, in_env = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                sub = f"{path}.{key}" if path else str(key)
                if in_env and isinstance(value, str) and value and is_secret_name(str(key)):
                    found.append(sub)
                else:
                    stack.append((value, sub, key == "env"))
        elif isinstance(item, list):
            stack.extend((value, f"{path}[{i}]", False) for i, value in enumerate(item))
        elif isinstance(item, str) and redact_text(item) != item:
            found.append(path)
    return sorted(found)


def exposure_warning(path: Path | str, session: Session) -> str | None:
    """One line when PATH is readable by its group or others and holds a secret, else None."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None
    if not mode & (stat.S_IRGRP | stat.S_IROTH):
        return None
    places = secret_places(session)
    if not places:
        return None
    shown = ", ".join(places[:3]) + (f" and {len(places) - 3} more" if len(places) > 3 else "")
    who = "anyone on this machine" if mode & stat.S_IROTH else "its group"
    return (f"warning: {path} is readable by {who} (mode {mode:04o}) and holds secret-looking values "
            f"({shown}); chmod 600 {path}")
