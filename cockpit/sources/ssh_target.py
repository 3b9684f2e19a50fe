"""Where to connect: `SshTarget` (`[user@]host[:port]`, ssh_config aliases, jumps) and the
scp-like `[user@]host:path` split. Plain data: no asyncssh, no I/O.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["SshTarget", "split_remote_path", "with_config"]


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
            raise ValueError("empty SSH target")
        user = None
        if "@" in s:
            user, s = s.rsplit("@", 1)
            if not user:
                raise ValueError(f"empty user in SSH target {spec!r}")
        port = None
        m = re.fullmatch(r"\[([^\]]+)\](?::(\d+))?", s)
        if m:  # [v6]:port (or [host]:port as written in known_hosts)
            s, port = m.group(1), m.group(2)
        elif s.count(":") == 1:
            s, port = s.split(":")
        if port is not None:
            if not str(port).isdigit() or not 0 < int(port) < 65536:
                raise ValueError(f"bad port in SSH target {spec!r}")
            port = int(port)
        if not s or any(c.isspace() for c in s):
            raise ValueError(f"bad host in SSH target {spec!r}")
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


def split_remote_path(spec: str) -> tuple[str, str] | None:
    """`[user@]host:path` (scp's rule: a colon before any slash) -> (host part, path), else None.

    `ssh://[user@]host[:port]/path` is accepted too (the path keeps its leading slash).
    A spec that names an existing local file is always local.
    """
    if spec.startswith("ssh://"):
        rest = spec[len("ssh://"):]
        host, slash, path = rest.partition("/")
        return (host, "/" + path) if slash and host and path else None
    if os.path.exists(spec):
        return None
    if spec.startswith("["):  # [v6]:path or [host]:port:path is not scp syntax; keep it simple
        end = spec.find("]:")
        return (spec[1:end], spec[end + 2:]) if end > 0 and spec[end + 2:] else None
    colon = spec.find(":")
    if colon <= 0 or "/" in spec[:colon]:
        return None
    path = spec[colon + 1:]
    return (spec[:colon], path) if path else None


def with_config(target: SshTarget, config: tuple[str, ...] | None, known_hosts: str | None) -> SshTarget:
    """The target with the CLI's --ssh-config / --known-hosts applied (jumps included)."""
    jump = with_config(target.jump, config, known_hosts) if target.jump else None
    return replace(
        target, jump=jump,
        config=config if config is not None else target.config,
        known_hosts=known_hosts if known_hosts is not None else target.known_hosts,
    )
