"""`SshPool.reconnect_now`: a person accepted the host key, so the pool connects now instead
of waiting out its back-off (the app's reconnect action per host)."""

import asyncio

import pytest

from cockpit.sources.transport.ssh_pool import Backoff, HostKeyRejected, SshPool


async def test_reconnect_now_ends_the_back_off_wait(sshd, tmp_path):
    known = tmp_path / "known_hosts"
    known.write_text("")
    target = sshd.target(known_hosts=str(known))
    async with SshPool(backoff=Backoff(base_s=120, cap_s=120, jitter=0.0), agent_path=None) as pool:
        with pytest.raises(HostKeyRejected):
            await pool.connection(target)
        assert pool.retry_in(target) > 60  # the next try would wait two minutes
        known.write_text(sshd.host_key_line)  # the key, checked and accepted
        waiting = asyncio.ensure_future(pool.connection(target))
        await asyncio.sleep(0.2)
        assert not waiting.done()  # held by the back-off
        pool.reconnect_now(target)
        conn = await asyncio.wait_for(waiting, 15)
        assert pool.is_connected(target) and conn is not None


async def test_reconnect_now_replaces_a_live_connection(sshd):
    target = sshd.target()
    async with SshPool(agent_path=None) as pool:
        first = await pool.connection(target)
        pool.reconnect_now(target)
        second = await asyncio.wait_for(pool.connection(target), 15)
        assert second is not first and pool.retry_in(target) == 0
