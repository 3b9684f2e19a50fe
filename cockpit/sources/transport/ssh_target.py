"""Where to connect: `SshTarget` (`[user@]host[:port]`, ssh_config aliases, jumps) and the
scp-like `[user@]host:path` split. Plain data: no asyncssh, no I/O.
"""

from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass, replace
from typing import Any, TypedDict

__all__ = ["HOST_FORMS", "PATH_FORMS", "SshOptions", "SshTarget", "split_remote_path", "with_config"]

# Named in every refusal, so that the message says what would have been understood.
HOST_FORMS = "[user@]host[:port], [user@][ipv6]:port, ssh://[user@]host[:port] or an ssh_config alias"
PATH_FORMS = "[user@]host[:port]:/path, ssh://[user@]host[:port]/path, or a local path"


@dataclass(frozen=True, slots=True)
class SshTarget:
    """Where to connect. Fields left None come from ssh_config (aliases), then SSH defaults.

    `config`: None reads ~/.ssh/config like ssh does; () reads no config file; else those files.
    `client_keys`: None uses the agent and ~/.ssh/id_* (or the config's IdentityFile).
    `known_hosts`: None uses the config's UserKnownHostsFile, else ~/.ssh/known_hosts.
    `jump`: an explicit ProxyJump host; otherwise the config's ProxyJump (if any) is honoured.
    """

    host: str
    port: int | None = None
    user: str | None = None
    jump: SshTarget | None = None
    known_hosts: str | None = None
    client_keys: tuple[str, ...] | None = None
    config: tuple[str, ...] | None = None

    @classmethod
    def parse(cls, spec: str, **fields: Any) -> SshTarget:
        """`[user@]host[:port]`, `[user@][v6addr]:port` or `ssh://[user@]host[:port]`.

        A bare name may be an ssh_config alias: it is resolved when connecting, like ssh does.
        Extra keyword fields (known_hosts, config, jump, ...) are passed through.
        """
        s = spec.strip()
        if s.startswith("ssh://"):
            s = s[len("ssh://"):].rstrip("/")
        if not s:
            raise ValueError(f"empty SSH target; accepted: {HOST_FORMS}")
        user = None
        if "@" in s:
            user, s = s.rsplit("@", 1)
            if not user:
                raise ValueError(f"empty user in SSH target {spec!r}; accepted: {HOST_FORMS}")
        port = None
        m = re.fullmatch(r"\[([^\]]+)\](?::(\d+))?", s)
        if m:  # [v6]:port (or [host]:port as written in known_hosts)
            s, port = m.group(1), m.group(2)
        elif s.count(":") == 1:
            s, port = s.split(":")
        if port is not None:
            if not str(port).isdigit() or not 0 < int(port) < 65536:
                raise ValueError(f"bad port in SSH target {spec!r} (1 to 65535); accepted: {HOST_FORMS}")
            port = int(port)
        if not s or any(c.isspace() for c in s) or (":" in s and not _is_ipv6(s)):
            raise ValueError(f"bad host in SSH target {spec!r}; accepted: {HOST_FORMS}")
        return cls(host=s, port=port, user=user, **fields)

    @property
    def label(self) -> str:
        """How the target is shown: `user@host:port` with only the parts that were given."""
        host = f"[{self.host}]" if ":" in self.host and self.port else self.host
        text = (f"{self.user}@" if self.user else "") + host + (f":{self.port}" if self.port else "")
        return text + (f" via {self.jump.label}" if self.jump else "")

    def __str__(self) -> str:
        return self.label

    def connect_kwargs(self) -> dict[str, Any]:
        """The asyncssh.connect() keywords for this target (only what was given)."""
        kw: dict[str, Any] = {"host": self.host}
        if self.port is not None:
            kw["port"] = self.port
        if self.user is not None:
            kw["username"] = self.user
        if self.client_keys is not None:
            kw["client_keys"] = list(self.client_keys)
        if self.config is not None:  # asyncssh: () = default ~/.ssh/config, None = no file
            kw["config"] = list(self.config) if self.config else None
        return kw


def _is_ipv6(host: str) -> bool:
    try:
        ipaddress.IPv6Address(host)
    except ValueError:
        return False
    return True


def split_remote_path(spec: str) -> tuple[str, str] | None:
    """`[user@]host[:port]:path` -> (host part, path); None for a local path.

    scp's rule decides remote or local: a colon before any slash. The part after it is a
    port when it is digits followed by a colon and an absolute (or ~) path. A spec that
    could be read two ways (`host:2299` a port or a file? `host:2299:logs` a port and a
    relative path? `host:x:/p`) raises ValueError naming the accepted forms, rather than
    guess. `ssh://[user@]host[:port]/path` is accepted (the path keeps its leading slash),
    and `[v6addr][:port]:path`. A spec that names an existing local file is always local.
    """
    if spec.startswith("ssh://"):
        rest = spec[len("ssh://"):]
        host, slash, path = rest.partition("/")
        if not (slash and host and path):
            raise ValueError(f"{spec!r} names no file; accepted: {PATH_FORMS}")
        return host, "/" + path
    if os.path.exists(spec):
        return None
    bracketed = re.match(r"((?:[^@/\[]+@)?\[[^\]/]+\]):", spec)  # [user@][v6addr]:
    if bracketed:
        host, rest = bracketed.group(1), spec[bracketed.end():]
    else:
        colon = spec.find(":")
        if colon <= 0 or "/" in spec[:colon]:
            return None
        host, rest = spec[:colon], spec[colon + 1:]
    if not rest:
        return None  # `gpu1:` is a local name, as for scp
    first, sep, path = rest.partition(":")
    if not sep or "/" in first:  # `host:path`, `host:/a:b` (a colon inside the path)
        if rest.isdigit():
            raise ValueError(f"{spec!r}: port {rest} with no path, or the file {rest!r}? accepted: {PATH_FORMS}")
        return host, rest
    port = first.isdigit() and 0 < int(first) < 65536
    if port and path.startswith(("/", "~")):
        return f"{host}:{first}", path
    if port and not path:
        why = f"port {first} and no path"
    elif port:
        why = f"port {first} and the relative path {path!r}, or the file {rest!r}? Start the path with / or ~"
    else:
        why = f"{first!r} is not a port (1 to 65535)"
    raise ValueError(f"{spec!r}: {why}; accepted: {PATH_FORMS}")


class SshOptions(TypedDict):
    """The person's SSH options a command passes on (`--ssh-config`, `--known-hosts`)."""

    ssh_config: tuple[str, ...] | None
    known_hosts: str | None


def with_config(target: SshTarget, config: tuple[str, ...] | None, known_hosts: str | None) -> SshTarget:
    """The target with the CLI's --ssh-config / --known-hosts applied (jumps included)."""
    jump = with_config(target.jump, config, known_hosts) if target.jump else None
    return replace(
        target, jump=jump,
        config=config if config is not None else target.config,
        known_hosts=known_hosts if known_hosts is not None else target.known_hosts,
    )
