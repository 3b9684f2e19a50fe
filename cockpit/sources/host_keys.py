"""Host keys: known_hosts loaded so that verification can never be off, and the message
that says how to accept a key after checking it.

asyncssh turns verification off for `known_hosts=None`, which it also makes of an
ssh_config `UserKnownHostsFile none`; `load_known_hosts` never returns None.
"""

from __future__ import annotations

import asyncio
import os
import shlex
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cockpit.sources.ssh_target import SshTarget

__all__ = ["DEFAULT_KNOWN_HOSTS", "key_howto", "load_known_hosts"]

DEFAULT_KNOWN_HOSTS = "~/.ssh/known_hosts"


def load_known_hosts(target: SshTarget, resolved: Any) -> tuple[Any, list[str]]:
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
    kh = asyncssh.read_known_hosts(existing) if existing else asyncssh.import_known_hosts("")
    return kh, files


async def key_howto(opts: Any, known_hosts: Any, files: list[str], tunnel: Any) -> str:
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
        except (OSError, asyncssh.Error, asyncio.TimeoutError):
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
