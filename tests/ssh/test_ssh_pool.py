"""SshPool against a real OpenSSH on loopback: aliases, ProxyJump, host keys, state events."""

from __future__ import annotations

import asyncio
import os

import asyncssh
import pytest

from sshd_fixture import ALIAS, JUMP_ALIAS
from waits import PATIENCE_S

from cockpit.sources.transport.host_events import HostConnected, HostConnecting, HostDisconnected
from cockpit.sources.transport.ssh_pool import (
    Backoff,
    HostKeyRejected,
    HostUnavailable,
    SshPool,
    SshTarget,
    split_remote_path,
)

FAST = Backoff(base_s=0.05, cap_s=0.4)


def pool_with_events(**kw):
    events: list = []
    return SshPool(events.append, backoff=FAST, agent_path=None, **kw), events


# -- parsing --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "host", "port", "user"),
    [
        ("gpu1", "gpu1", None, None),
        ("me@gpu1", "gpu1", None, "me"),
        ("me@gpu1:2222", "gpu1", 2222, "me"),
        ("10.0.0.5:22", "10.0.0.5", 22, None),
        ("[::1]:2200", "::1", 2200, None),
        ("ssh://a.b@h.example:2022", "h.example", 2022, "a.b"),
    ],
)
def test_target_parse(spec, host, port, user):
    t = SshTarget.parse(spec)
    assert (t.host, t.port, t.user) == (host, port, user)


@pytest.mark.parametrize("bad", ["", "me@", "@h", "h:0", "h:99999", "h:x", "a b"])
def test_target_parse_rejects(bad):
    with pytest.raises(ValueError):
        SshTarget.parse(bad)


def test_label_and_hashable():
    t = SshTarget.parse("me@gpu1:2222", jump=SshTarget.parse("bastion"))
    assert t.label == "me@gpu1:2222 via bastion"
    assert {t: 1}[SshTarget.parse("me@gpu1:2222", jump=SshTarget.parse("bastion"))] == 1


def test_split_remote_path(tmp_path):
    assert split_remote_path("gpu1:/var/log/sglang.log") == ("gpu1", "/var/log/sglang.log")
    assert split_remote_path("me@gpu1:logs/x.log") == ("me@gpu1", "logs/x.log")
    assert split_remote_path("ssh://me@gpu1:2222/var/x.log") == ("me@gpu1:2222", "/var/x.log")
    assert split_remote_path("./a:b") is None and split_remote_path("/var/log/x") is None
    assert split_remote_path("gpu1:") is None
    odd = tmp_path / "h:x"
    odd.write_text("")
    assert split_remote_path(str(odd)) is None


# -- connecting -----------------------------------------------------------------------------
async def test_alias_from_config_shared_connection(sshd):
    pool, events = pool_with_events()
    async with pool:
        target = sshd.alias_target()
        conn = await pool.connection(target)
        assert (await conn.run("id -un", check=True)).stdout.strip() == sshd.username
        assert await pool.connection(target) is conn  # one connection per host
        again = await asyncio.gather(*(pool.connection(SshTarget(ALIAS, config=(sshd.ssh_config,))) for _ in range(5)))
        assert all(c is conn for c in again)
    assert [type(e) for e in events] == [HostConnecting, HostConnected, HostDisconnected]
    assert events[0].host == ALIAS and events[2].retry_in_s is None


async def test_an_alias_in_the_users_own_ssh_config_brings_its_known_hosts_file(sshd, tmp_path, monkeypatch):
    """A session host's `ssh = "alias"` reads ~/.ssh/config (no config named): the alias's
    UserKnownHostsFile checks the key, as `ssh alias` would."""
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "config").write_text(open(sshd.ssh_config).read())
    monkeypatch.setenv("HOME", str(tmp_path))
    pool, _ = pool_with_events()
    async with pool:
        conn = await pool.connection(SshTarget.parse(ALIAS))
        assert (await conn.run("id -un", check=True)).stdout.strip() == sshd.username


async def test_concurrent_callers_share_one_connect(sshd):
    pool, events = pool_with_events()
    async with pool:
        conns = await asyncio.gather(*(pool.connection(sshd.target()) for _ in range(6)))
        assert len({id(c) for c in conns}) == 1
    assert sum(isinstance(e, HostConnecting) for e in events) == 1


async def test_proxyjump_from_config(sshd):
    pool, events = pool_with_events()
    async with pool:
        conn = await pool.connection(SshTarget(JUMP_ALIAS, config=(sshd.ssh_config,)))
        out = (await conn.run("echo $SSH_CONNECTION", check=True)).stdout.split()
        assert out[0] == "127.0.0.1"
        # the hop went through the pool: it is shared and reported like any host
        assert pool.is_connected(SshTarget(ALIAS, config=(sshd.ssh_config,)))
    hosts = [e.host for e in events if isinstance(e, HostConnected)]
    assert hosts == [ALIAS, JUMP_ALIAS]


async def test_explicit_jump(sshd):
    pool, events = pool_with_events()
    async with pool:
        conn = await pool.connection(sshd.target(jump=sshd.target()))
        assert (await conn.run("echo ok", check=True)).stdout == "ok\n"
    assert len([e for e in events if isinstance(e, HostConnected)]) == 2


async def test_unknown_host_key_is_refused_with_howto(sshd, tmp_path):
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    pool, events = pool_with_events()
    async with pool:
        with pytest.raises(HostKeyRejected) as info:
            await pool.connection(sshd.target(known_hosts=str(empty)))
    msg = str(info.value)
    assert "unknown" in msg and f"ssh-keyscan -p {sshd.port} 127.0.0.1 >> {empty}" in msg
    assert "SHA256:" in msg  # the offered fingerprint, to check out of band
    assert isinstance(events[-1], HostDisconnected) and events[-1].retry_in_s is None


async def test_missing_known_hosts_file_is_refused(sshd, tmp_path):
    async with SshPool(backoff=FAST, agent_path=None) as pool:
        with pytest.raises(HostKeyRejected, match="unknown"):
            await pool.connection(sshd.target(known_hosts=str(tmp_path / "nope")))


async def test_changed_host_key_is_refused(sshd, tmp_path):
    other = asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().strip()
    kh = tmp_path / "known_hosts"
    kh.write_text(f"[127.0.0.1]:{sshd.port} {other}\n")
    async with SshPool(backoff=FAST, agent_path=None) as pool:
        with pytest.raises(HostKeyRejected) as info:
            await pool.connection(sshd.target(known_hosts=str(kh)))
    msg = str(info.value)
    assert "CHANGED" in msg and f"ssh-keygen -R '[127.0.0.1]:{sshd.port}'" in msg


async def test_config_cannot_turn_verification_off(sshd, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.ssh/known_hosts to fall back on
    cfg = tmp_path / "cfg"
    cfg.write_text(
        f"Host noverify\n  HostName 127.0.0.1\n  Port {sshd.port}\n  User {sshd.username}\n"
        f"  IdentityFile {sshd.client_key}\n  UserKnownHostsFile none\n  StrictHostKeyChecking no\n"
    )
    async with SshPool(backoff=FAST, agent_path=None) as pool:
        with pytest.raises(HostKeyRejected):
            await pool.connection(SshTarget("noverify", config=(str(cfg),)))


async def test_state_events_through_an_outage(sshd):
    pool, events = pool_with_events()
    q = pool.events()
    target = sshd.target()
    try:
        async with pool:
            conn = await pool.connection(target)
            sshd.kill_all()
            await asyncio.wait_for(conn.wait_closed(), PATIENCE_S)
            lost = [e for e in events if isinstance(e, HostDisconnected)]
            assert lost and lost[0].retry_in_s is not None and lost[0].retry_in_s > 0
            for _ in range(2):  # down: each try fails, with a back-off in the event
                with pytest.raises(HostUnavailable) as info:
                    await pool.connection(target)
                assert "refused" in info.value.reason.lower()
            sshd.start()
            conn2 = await pool.connection(target)
            assert conn2 is not conn and (await conn2.run("echo back")).stdout == "back\n"
            # invalidating a stale connection keeps the live one
            pool.invalidate(target, conn)
            assert await pool.connection(target) is conn2
    finally:
        if sshd.proc.poll() is not None:
            sshd.start()
    kinds = [type(e).__name__ for e in events]
    assert kinds[:3] == ["HostConnecting", "HostConnected", "HostDisconnected"]
    assert kinds.count("HostConnected") == 2 and kinds[-1] == "HostDisconnected"
    attempts = [e.attempt for e in events if isinstance(e, HostConnecting)]
    assert attempts == sorted(attempts) and attempts[-1] >= 3
    assert q.qsize() == len(events)


async def test_invalidate_reconnects(sshd):
    pool, events = pool_with_events()
    async with pool:
        t = sshd.target()
        c1 = await pool.connection(t)
        pool.invalidate(t, c1, reason="channel open failed")
        c2 = await pool.connection(t)
        assert c2 is not c1
    reasons = [e.reason for e in events if isinstance(e, HostDisconnected)]
    assert reasons[0] == "channel open failed"


def test_no_asyncssh_import_for_events():
    import subprocess
    import sys

    code = ("import cockpit.sources.transport.host_events, cockpit.sources.log.tail_events, "
            "cockpit.sources.log.tail, cockpit.sources.transport.ssh_pool, cockpit.cli.watch.tail_cmd, sys; "
            "print('asyncssh' in sys.modules, 'textual' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env={**os.environ})
    assert out.stdout.split() == ["False", "False"]
