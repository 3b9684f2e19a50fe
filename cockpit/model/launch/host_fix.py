"""The parts of a host's failure text a person acts on: the fingerprint the server offers
and the command that fixes it (the texts sources/transport/host_keys.key_howto writes)."""

from __future__ import annotations

import re

_FINGERPRINT = re.compile(r"The server offers (\S+ SHA256:[A-Za-z0-9+/=]+)")
_ACCEPT = re.compile(r"accept it with: (ssh-keyscan .+?)(?:  \(or |$)")
_CHANGED = re.compile(r"host's owner: (ssh-keygen -R .+? && ssh-keyscan .+?)$")


def offered_fingerprint(text: str) -> str | None:
    found = _FINGERPRINT.search(text)
    return found.group(1) if found else None


def fix_command(text: str) -> str | None:
    """The one shell line that fixes it (`ssh-keyscan ... >> known_hosts`), or None."""
    found = _ACCEPT.search(text) or _CHANGED.search(text)
    return found.group(1).strip() if found else None
