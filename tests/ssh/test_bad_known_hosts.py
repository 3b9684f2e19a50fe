"""A known_hosts file that does not parse is refused with its file and line, once: a
person has to fix it, so no source retries (it used to loop "reconnecting" for ever).
Against the real loopback sshd, through the pool and through the commands."""

from __future__ import annotations

import pytest

from sshd_fixture import ALIAS

from cockpit.sources.transport.host_events import HostConnecting, HostDisconnected
from cockpit.sources.transport.ssh_pool import Backoff, KnownHostsUnusable, SshPool

CASES = {
    # a @cert-authority marker with host patterns but no key
    "cert-authority": (b"@cert-authority *.example.com\n", "invalid known hosts entry (a @cert-authority"),
    "bad-marker": (b"@trusted 127.0.0.1 ssh-ed25519 AAAA\n", "invalid known hosts marker"),
    "not-utf8": (b"h\xff\xfe\x1b]0;x\x07 ssh-ed25519 AAAA\n", "not UTF-8 text"),
    # lines asyncssh skips without a word: garbage of three words, a key that is no base64
    "garbage": (b"this line is garbage\n", "not a known_hosts line"),
    "not-base64": (b"127.0.0.1 ssh-ed25519 AAAA!!notbase64\n", "not a known_hosts line"),
}


def bad_known_hosts(sshd, tmp_path, case: str):
    """The fixture's good line 1, a comment on line 2, the bad line 3."""
    path = tmp_path / "known_hosts"
    path.write_bytes(sshd.host_key_line.encode() + b"# the lab's CA\n" + CASES[case][0])
    return path


@pytest.mark.parametrize("case", CASES)
async def test_the_pool_refuses_with_file_and_line_and_does_not_retry(sshd, tmp_path, case):
    path = bad_known_hosts(sshd, tmp_path, case)
    events: list = []
    async with SshPool(events.append, backoff=Backoff(base_s=0.01, cap_s=0.01), agent_path=None) as pool:
        with pytest.raises(KnownHostsUnusable) as info:
            await pool.connection(sshd.target(known_hosts=str(path)))
    assert str(info.value).startswith(f"{sshd.target().label}: not connecting: {path}:3: {CASES[case][1]}")
    assert "\x1b" not in str(info.value)  # the line itself is not echoed
    said = [e for e in events if isinstance(e, HostDisconnected)]
    assert said[0].retry_in_s is None  # a final state, not "reconnecting in ..."
    assert len([e for e in events if isinstance(e, HostConnecting)]) == 1


@pytest.mark.parametrize("argv", [("tail", f"{ALIAS}:/etc/hostname"), ("gpus", ALIAS)], ids=["tail", "gpus"])
def test_commands_stop_with_the_line_instead_of_reconnecting(sshd, tmp_path, argv):
    path = bad_known_hosts(sshd, tmp_path, "cert-authority")
    done = sshd.cockpit(*argv, "--known-hosts", str(path), timeout=60)
    assert done.returncode in (1, 2), done.stderr
    assert f"{path}:3: invalid known hosts entry" in done.stderr
    assert "reconnecting" not in done.stderr and "retrying" not in done.stderr
    assert done.stdout == ""


async def test_a_damaged_key_line_is_named_not_reported_as_an_unknown_key(sshd, tmp_path):
    """The host's only line, cut short (a bad paste): its FILE:LINE, not "Host key ... is unknown"."""
    path = tmp_path / "known_hosts"
    good = sshd.host_key_line.rstrip("\n")
    path.write_text(good[: len(good) - 9] + "\n", encoding="utf-8")
    async with SshPool(lambda e: None, backoff=Backoff(base_s=0.01, cap_s=0.01), agent_path=None) as pool:
        with pytest.raises(KnownHostsUnusable) as info:
            await pool.connection(sshd.target(known_hosts=str(path)))
    assert f"{path}:1: not a known_hosts line" in str(info.value)
    assert "unknown" not in str(info.value).lower()
