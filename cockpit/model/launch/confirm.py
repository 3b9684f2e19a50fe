"""What a person confirmed before cockpit ran something: a fingerprint of what would run
(a launch profile's command, env and host; a host's `log_command`), sealed with a key only
this user holds. Nothing runs that the user has not seen: a start whose seal does not
verify asks again (or needs `--yes` typed on the command line).

Why a seal and not the bare fingerprint: anyone can compute a fingerprint, so an
assistant over MCP, `cockpit add` or an editor could write one into the session and make
`cockpit run` start the command unasked. The seal is an HMAC of the fingerprint with the
per-user key (sources/server/confirm_key.py), written only where a person answered at a terminal;
a seal from another user's session, or a bare fingerprint from an older file, does not
verify and simply asks again. Pure functions here; the key's file is a source's business.
"""

from __future__ import annotations

import hashlib
import hmac
import json

from cockpit.model.session import Host, LaunchProfile

__all__ = ["fingerprint", "host_link", "launch_stamp", "log_fingerprint", "needs_confirmation", "seal", "sealed"]

SEAL_PREFIX = "hmac1:"


def fingerprint(profile: LaunchProfile) -> str:
    """A short stable digest of what would run: command, env (values included: a changed
    value is a different run), host and interpreter."""
    payload = json.dumps(
        {"command": profile.command, "env": dict(sorted(profile.env.items())),
         "host": profile.host, "python": profile.python},
        sort_keys=True, ensure_ascii=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def host_link(host: Host | None) -> dict[str, str | None]:
    """Where a host's runs go: its SSH target (user, address and port), jump host, run folder
    and log file. A changed target is a different run, so every seal of a run covers it."""
    if host is None:
        return {}
    return {"name": host.name, "ssh": host.ssh, "jump": host.jump, "run_dir": host.run_dir, "log_path": host.log_path}


def launch_stamp(profile: LaunchProfile, host: Host | None) -> str:
    """What a person confirms before a launch: the profile's `fingerprint` (the command with
    its interpreter, env, interpreter field) and where it runs (`host_link`)."""
    payload = json.dumps({"profile": fingerprint(profile), "link": host_link(host)}, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def log_fingerprint(host: Host) -> str:
    """What a host's `log_command` runs and where: the command and the host's link."""
    payload = json.dumps({"log_command": host.log_command, "name": host.name, "ssh": host.ssh, "jump": host.jump},
                         sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def seal(key: bytes, kind: str, stamp: str) -> str:
    """The confirmation of `stamp` (a fingerprint) for `kind` ("launch", "sweep", "log")."""
    mac = hmac.new(key, f"{kind}\0{stamp}".encode(), hashlib.sha256).hexdigest()[:32]
    return SEAL_PREFIX + mac


def sealed(key: bytes | None, kind: str, stamp: str, value: str | None) -> bool:
    """Whether `value` (what the session holds) is this user's seal of `stamp`."""
    if key is None or not value or not value.startswith(SEAL_PREFIX):
        return False
    return hmac.compare_digest(value, seal(key, kind, stamp))


def needs_confirmation(profile: LaunchProfile, key: bytes | None, host: Host | None = None) -> bool:
    return not sealed(key, "launch", launch_stamp(profile, host), profile.confirmed)
