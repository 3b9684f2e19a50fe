"""What a person confirmed before cockpit ran a launch profile: a fingerprint of the
command, its env and its host. Nothing runs that the user has not seen: a start whose
fingerprint differs from the profile's `confirmed` asks again (or needs `--yes`)."""

from __future__ import annotations

import hashlib
import json

from cockpit.model.session import LaunchProfile

__all__ = ["fingerprint", "needs_confirmation"]


def fingerprint(profile: LaunchProfile) -> str:
    """A short stable digest of what would run: command, env (values included: a changed
    value is a different run), host and interpreter."""
    payload = json.dumps(
        {"command": profile.command, "env": dict(sorted(profile.env.items())),
         "host": profile.host, "python": profile.python},
        sort_keys=True, ensure_ascii=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def needs_confirmation(profile: LaunchProfile) -> bool:
    return profile.confirmed != fingerprint(profile)
