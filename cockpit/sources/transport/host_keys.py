"""Host keys: known_hosts loaded so that verification can never be off, and the message
that says how to accept a key after checking it.

asyncssh turns verification off for `known_hosts=None`, which it also makes of an
ssh_config `UserKnownHostsFile none`; `load_known_hosts` never returns None.
"""

from __future__ import annotations

import asyncio
import os
import shlex
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncssh

    from cockpit.sources.transport.ssh_target import SshTarget

__all__ = ["DEFAULT_KNOWN_HOSTS", "KnownHostsError", "key_howto", "load_known_hosts"]

DEFAULT_KNOWN_HOSTS = "~/.ssh/known_hosts"


class KnownHostsError(Exception):
    """A known_hosts file that cannot be used ("FILE:LINE: why"): unreadable, not UTF-8, or a
    line asyncssh refuses. Retrying reads the same file: a person has to fix it."""


def load_known_hosts(target: SshTarget, resolved: object) -> tuple[asyncssh.SSHKnownHosts, list[str]]:
    """known_hosts as a loaded object, never None; plus the files it came from.

    resolved: what asyncssh made of the target and its config: None means the config said
    `UserKnownHostsFile none` (verification off), which cockpit does not allow.
    """
    import asyncssh

    if target.known_hosts is not None:
        files = [target.known_hosts]
    elif isinstance(resolved, str):
        files = [resolved]
    elif isinstance(resolved, (list, tuple)) and resolved and all(isinstance(f, str) for f in resolved):
        files = list(resolved)
    else:
        files = [DEFAULT_KNOWN_HOSTS]
    files = [os.path.expanduser(f) for f in files]
    existing = [f for f in files if os.path.isfile(f)]
    try:
        kh = asyncssh.read_known_hosts(existing) if existing else asyncssh.import_known_hosts("")
    except (ValueError, OSError) as exc:  # UnicodeDecodeError is a ValueError
        raise _which_line(existing, exc) from None
    if (dead := _dead_line(existing)) is not None:
        raise dead
    return kh, files


_NOT_A_LINE = "not a known_hosts line (host patterns, a key type, then the key in base64)"


def _dead_line(files: list[str]) -> KnownHostsError | None:
    """The first line asyncssh skips without a word although it is no key of a type it does
    not know: garbage, or a key cut short or pasted over. Skipped silently, the host's key
    would read as unknown (or a CHANGED key as new) instead of this line being fixed."""
    import asyncssh

    for f in files:
        try:
            with open(f, encoding="utf-8") as handle:
                lines = handle.read().splitlines()
        except (OSError, ValueError):
            continue  # read_known_hosts read it a moment ago; a race is not this check's business
        for n, line in enumerate(lines, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            try:
                loaded = asyncssh.import_known_hosts(text)
            except ValueError:
                return KnownHostsError(f"{_shown(f)}:{n}: {_NOT_A_LINE}")
            if getattr(loaded, "_exact_entries", True) or getattr(loaded, "_pattern_entries", True):
                continue
            if not _unknown_key_type(text):
                return KnownHostsError(f"{_shown(f)}:{n}: {_NOT_A_LINE}")
    return None


def _unknown_key_type(text: str) -> bool:
    """A well-formed key whose type asyncssh does not support (a newer algorithm): skipped,
    as OpenSSH skips what it does not know. Its base64 holds its own type name first."""
    import base64
    import binascii
    import re

    fields = text[1:].split()[1:] if text.startswith("@") else text.split()
    if len(fields) < 3 or not re.fullmatch(r"[a-z0-9][a-z0-9@.+-]*", fields[1]):
        return False
    try:
        blob = base64.b64decode(fields[2], validate=True)
    except (binascii.Error, ValueError):
        return False
    name = fields[1].encode()
    return len(blob) > 4 + len(name) and blob[:4] == len(name).to_bytes(4, "big") and blob[4:4 + len(name)] == name


def _which_line(files: list[str], exc: Exception) -> KnownHostsError:
    """Where asyncssh's refusal comes from; it does not say (its message quotes the line,
    which may hold anything, so only its first words are kept)."""
    import asyncssh

    for f in files:
        shown = _shown(f)
        try:
            with open(f, "rb") as handle:
                raw = handle.read()
        except OSError as err:
            return KnownHostsError(f"{shown}: {err.strerror or err}")
        for n, line in enumerate(raw.split(b"\n"), 1):
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError:
                return KnownHostsError(f"{shown}:{n}: not UTF-8 text")
            try:
                asyncssh.import_known_hosts(text)
            except ValueError as err:
                why = str(err).split(":", 1)[0].lower() or "not a known_hosts line"
                if text.lstrip().startswith("@"):
                    why += " (a @cert-authority or @revoked line is: the marker, host patterns, a key)"
                return KnownHostsError(f"{shown}:{n}: {why}")
    return KnownHostsError(f"{', '.join(map(_shown, files))}: {str(exc).split(':', 1)[0]}")


def _shown(path: str) -> str:
    """The path as a person writes it: ~ for the home folder."""
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if home != "~" and path.startswith(home + os.sep) else path


async def key_howto(opts: asyncssh.SSHClientConnectionOptions, known_hosts: asyncssh.SSHKnownHosts, files: list[str],
                    tunnel: object) -> str:
    """The HostKeyRejected message: what is wrong and the commands that fix it."""
    import asyncssh

    host, port = opts.host, opts.port or 22
    shown = f"[{host}]:{port}" if port != 22 else host
    file = files[0] if files else os.path.expanduser(DEFAULT_KNOWN_HOSTS)
    try:
        recorded = asyncssh.match_known_hosts(known_hosts, host, host, port if port != 22 else None)[0]
    except (ValueError, OSError):
        recorded = []
    offered = ""
    if not tunnel:  # best effort: the fingerprint the server offers now, to compare out of band
        try:
            key = await asyncio.wait_for(asyncssh.get_server_host_key(host, port), 5)
            if key is not None:
                offered = f" The server offers {key.get_algorithm()} {key.get_fingerprint()}."
        except (TimeoutError, OSError, asyncssh.Error):
            pass
    user = f"{opts.username}@" if opts.username else ""
    scan = f"ssh-keyscan -p {port} {shlex.quote(host)} >> {shlex.quote(file)}"
    once = f"ssh {'-p %d ' % port if port != 22 else ''}{user}{host}"
    if recorded:
        return (
            f"Host key for {shown} has CHANGED: it does not match {file}.{offered} Someone may be "
            "intercepting the connection, or the host was reinstalled. After checking the new "
            f"fingerprint with the host's owner: ssh-keygen -R {shlex.quote(shown)} -f {shlex.quote(file)}"
            f" && {scan}"
        )
    return (
        f"Host key for {shown} is unknown (not in {', '.join(files)}); cockpit never accepts a key by "
        f"itself.{offered} Check the fingerprint (on the host: ssh-keygen -lf "
        f"/etc/ssh/ssh_host_ed25519_key.pub), then accept it with: {scan}  (or connect once with "
        f"`{once}` and answer yes)."
    )
