"""The per-user key that seals a person's confirmations (model/launch/confirm.py).

It lives outside every session, in `$XDG_STATE_HOME/cockpit/confirm.key` (else
`~/.local/state/cockpit/confirm.key`): 32 random bytes, 0600 in a 0700 folder, made on
the first confirmation. Only the places where a person answers call `confirmation`: the
TUI's confirm dialog, the CLI prompt on a terminal, `--yes` typed on the command line.
Checking (`is_confirmed`) never creates the key, and a key file that others could read
or that another user owns is not trusted (nothing verifies; confirming says why).
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from cockpit.model.launch.confirm import log_fingerprint, seal, sealed
from cockpit.model.session import Host

__all__ = ["ConfirmKeyError", "LOG_NOT_CONFIRMED", "LogCommandNotConfirmed", "confirmation", "is_confirmed",
           "key_path", "log_command_confirmed", "read_key", "require_log_confirmed"]

_KEY_BYTES = 32


class ConfirmKeyError(OSError):
    """The key cannot be made or is not safe to trust; str() says which file and why."""


def key_path() -> Path:
    state = os.environ.get("XDG_STATE_HOME")
    base = Path(state) if state and os.path.isabs(state) else Path.home() / ".local" / "state"
    return base / "cockpit" / "confirm.key"


def _checked(fd: int, path: Path) -> bytes:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
        raise ConfirmKeyError(f"{path}: not a file of this user; not trusted to seal confirmations")
    if st.st_mode & 0o077:
        raise ConfirmKeyError(f"{path}: others can read it (chmod 600 {path}, or delete it to make a new one)")
    data = os.read(fd, 4096)
    if len(data) < _KEY_BYTES:
        raise ConfirmKeyError(f"{path}: too short to be a key (delete it to make a new one)")
    return data


def read_key(*, create: bool = False) -> bytes | None:
    """The key; None when there is none yet (and `create` is false) or it is not trusted."""
    path = key_path()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        if not create:
            return None
        return _create(path)
    except OSError:
        if create:
            raise ConfirmKeyError(f"{path}: cannot be read (a link, or no permission)") from None
        return None
    try:
        return _checked(fd, path)
    except ConfirmKeyError:
        if create:
            raise
        return None
    finally:
        os.close(fd)


def _create(path: Path) -> bytes:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    key = secrets.token_bytes(_KEY_BYTES)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:  # another cockpit made it meanwhile: use that one
        found = read_key()
        if found is None:
            raise ConfirmKeyError(f"{path}: exists but is not a key this user can trust") from None
        return found
    try:
        os.write(fd, key)
        os.fsync(fd)
    finally:
        os.close(fd)
    return key


def confirmation(kind: str, stamp: str) -> str:
    """A person's confirmation of `stamp`: call only where a person answered at a terminal."""
    key = read_key(create=True)
    assert key is not None
    return seal(key, kind, stamp)


def is_confirmed(kind: str, stamp: str, value: str | None) -> bool:
    """Whether the session's `value` is this user's confirmation of `stamp`."""
    return sealed(read_key(), kind, stamp, value)


# ----- a host's log_command: a shell command from the session, so a person confirms it ----------
LOG_NOT_CONFIRMED = "log_command not confirmed: confirm in the TUI"


class LogCommandNotConfirmed(ValueError):
    """A host's `log_command` that no person confirmed: it is not run (said in the pane)."""

    def __init__(self, host: str) -> None:
        super().__init__(f"{LOG_NOT_CONFIRMED} (ctrl+l there shows the command and asks)")
        self.host = host


def log_command_confirmed(host: Host) -> bool:
    """Whether `host.log_command` carries this user's seal for this command on this host."""
    return bool(host.log_command) and is_confirmed("log", log_fingerprint(host), getattr(host, "log_confirmed", None))


def require_log_confirmed(host: Host) -> None:
    """Raise LogCommandNotConfirmed unless the host's `log_command` may run."""
    if host.log_command and not log_command_confirmed(host):
        raise LogCommandNotConfirmed(host.name)
