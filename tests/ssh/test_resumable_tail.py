"""ResumableTail: no line lost, none repeated, through sshd deaths, rotations and truncations.

A writer appends numbered lines at a steady pace (some in two writes, to make partial lines)
while the test kills the loopback sshd (listener and per-connection processes), rotates the
file by rename (once while the link is down), and truncates it (copytruncate). What the tail
yields, joined, must be exactly what was written.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from waits import PATIENCE_S, patience

from cockpit.sources.log.tail import ResumableTail
from cockpit.sources.log.tail_buffers import LastLines, LineJoiner, TagSplitter
from cockpit.sources.log.tail_events import (
    HostConnected,
    HostDisconnected,
    LogBytes,
    TailGap,
    TailNotice,
    TailRotated,
    TailTruncated,
)
from cockpit.sources.transport.ssh_pool import Backoff, SshPool

FAST = Backoff(base_s=0.05, cap_s=0.3)


# -- the buffers, on their own -------------------------------------------------------------
@given(st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"x") + b"\n"), max_size=30),
       st.lists(st.integers(1, 17), min_size=1))
def test_line_joiner_yields_whole_lines(lines, cuts):
    blob, j, out, pos, i = b"".join(lines), LineJoiner(1 << 20), [], 0, 0
    while pos < len(blob):
        n = cuts[i % len(cuts)]
        i += 1
        part = j.feed(blob[pos:pos + n])
        pos += n
        assert part == b"" or part.endswith(b"\n")
        out.append(part)
    assert b"".join(out) == blob and j.pending == b""


def test_line_joiner_cuts_overlong_lines():
    j = LineJoiner(10)
    assert j.feed(b"a" * 6) == b""
    assert j.feed(b"b" * 6) == b"a" * 6 + b"b" * 6 + b"\n"
    assert j.feed(b"c\n") == b"c\n"


@settings(max_examples=200)
@given(st.binary(max_size=300), st.lists(st.integers(1, 50), min_size=1), st.sampled_from([b"\n", b"x", b""]))
def test_tag_splitter_any_chunking(data, cuts, glue):
    tag = "cockpit-tail-0123abcd"
    blob = data + glue + f"{tag}: @open 5 6 7\n".encode() + data + f"{tag}: f: file truncated\n".encode() + b"end"
    sp, got, pos, i = TagSplitter(tag), [], 0, 0
    while pos < len(blob):
        n = cuts[i % len(cuts)]
        i += 1
        got.extend(sp.feed(blob[pos:pos + n]))
        pos += n
    got.extend(sp.feed(b""))
    texts = [x for is_m, x in got if is_m]
    data_out = b"".join(x for is_m, x in got if not is_m) + sp.buf
    assert texts == ["@open 5 6 7", "f: file truncated"]
    assert data_out == data + glue + data + b"end"


def test_last_lines():
    lines = b"".join(b"line %d\n" % i for i in range(100))
    ll = LastLines(3, len(lines) - 50, True)  # started mid-line, 50 bytes into the file
    assert ll.feed(lines[50:]) == b"line 97\nline 98\nline 99\n"
    assert ll.done and ll.feed(b"more\n") == b"more\n"
    ll = LastLines(0, 8, False)
    assert ll.feed(b"abc\ndef\nnext\n") == b"next\n"
    ll = LastLines(2, 10, False)
    assert ll.feed(b"a\nb\nc\ndpar") == b"b\nc\ndpar"  # the partial line goes on to the joiner


# -- a writer of numbered lines ------------------------------------------------------------
class Writer:
    def __init__(self, path: Path, pace_s: float = 0.002) -> None:
        self.path, self.pace_s, self.n = path, pace_s, 0
        self.written: list[bytes] = []
        self.ops: asyncio.Queue = asyncio.Queue()  # callables run between two whole lines
        self.stop = False
        self.rng = random.Random(7)

    def line(self) -> bytes:
        self.n += 1
        return b"%06d %s\n" % (self.n, b"x" * self.rng.randrange(0, 120))

    async def run(self, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        self.path.touch()
        os.chmod(self.path, 0o644)
        while loop.time() < end:
            while not self.ops.empty():
                await self.ops.get_nowait()()
            line = self.line()
            with open(self.path, "ab") as f:
                if self.n % 7 == 0:  # a partial line: the rest comes in a later write
                    cut = self.rng.randrange(1, len(line) - 1)
                    f.write(line[:cut])
                    f.flush()
                    await asyncio.sleep(self.pace_s)
                    f.write(line[cut:])
                else:
                    f.write(line)
            self.written.append(line)
            await asyncio.sleep(self.pace_s)

    # the operations (between whole lines, like a logger that reopens its file)
    def rotate(self, suffix: str):
        async def op():
            os.rename(self.path, f"{self.path}.{suffix}")
            self.path.touch()
            os.chmod(self.path, 0o644)
        return op

    def copytruncate(self, suffix: str):
        async def op():
            await asyncio.sleep(0.1)  # copytruncate loses what the reader had not read yet
            shutil.copy(self.path, f"{self.path}.{suffix}")
            with open(self.path, "r+b") as f:
                f.truncate(0)
        return op


async def collect(tail: ResumableTail, events: list, data: bytearray) -> None:
    async for ev in tail:
        events.append(ev)
        if isinstance(ev, LogBytes):
            assert ev.data.endswith(b"\n"), ev
            data += ev.data


async def wait_for_bytes(data: bytearray, want: bytes, timeout: float) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + patience(timeout)
    while len(data) < len(want) and loop.time() < end:
        await asyncio.sleep(0.05)


def assert_same_lines(got: bytes, want: list[bytes]) -> None:
    got_lines = got.splitlines(keepends=True)
    if got_lines != want:  # say where it went wrong, not just that it did
        for i, (a, b) in enumerate(zip(got_lines, want)):
            if a != b:
                pytest.fail(f"line {i}: got {a[:20]!r}, wrote {b[:20]!r} ({len(got_lines)} got, {len(want)} written)")
        pytest.fail(f"{len(got_lines)} lines received, {len(want)} written")


def remote_tails(tag_prefix: str = "cockpit-tail-") -> list[int]:
    pids = []
    for p in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if p.read_bytes().startswith(tag_prefix.encode()):
                pids.append(int(p.parent.name))
        except OSError:
            pass
    return pids


async def gone(find, timeout: float = 3.0) -> list[int]:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while (left := find()) and loop.time() < end:
        await asyncio.sleep(0.05)
    return left


# -- over SSH --------------------------------------------------------------------------------
async def test_ssh_tail_survives_kills_rotation_truncation(sshd):
    d = sshd.make_dir("logs")
    path = d / "server.log"
    w = Writer(path)
    events: list = []
    data = bytearray()
    async with SshPool(backoff=FAST, agent_path=None) as pool:
        tail = ResumableTail.ssh_file(pool, sshd.target(), str(path), from_start=True)
        consumer = asyncio.create_task(collect(tail, events, data))
        writing = asyncio.create_task(w.run(6.0))
        try:
            async def outage(during=None):
                await asyncio.to_thread(sshd.kill_all)
                await asyncio.sleep(0.3)
                if during:
                    await w.ops.put(during)
                    await asyncio.sleep(0.2)
                await asyncio.to_thread(sshd.start)

            await asyncio.sleep(0.6)
            await outage()                               # 1: plain drop, resume at the offset
            await asyncio.sleep(0.8)
            await w.ops.put(w.rotate("1"))               # rename + create while connected
            await asyncio.sleep(0.8)
            await outage(during=w.rotate("2"))           # 2: rotated while the link is down
            await asyncio.sleep(0.8)
            await w.ops.put(w.copytruncate("3"))         # copytruncate while connected
            await asyncio.sleep(0.8)
            await outage()                               # 3
            await writing
            await wait_for_bytes(data, b"".join(w.written), 5)
        finally:
            if sshd.proc.poll() is not None:
                sshd.start()
            consumer.cancel()  # the iterating task is cancelled: its channel closes on the way out
            await asyncio.gather(consumer, return_exceptions=True)
    assert_same_lines(bytes(data), w.written)
    kinds = [type(e) for e in events]
    assert kinds.count(HostDisconnected) >= 3 and kinds.count(HostConnected) >= 4
    assert kinds.count(TailRotated) >= 2 and kinds.count(TailTruncated) >= 1
    retry = [e.retry_in_s for e in events if isinstance(e, HostDisconnected)]
    assert all(r is not None and 0 < r <= FAST.cap_s for r in retry)
    assert w.n > 1000
    assert await gone(remote_tails) == []  # no orphan remote tail


async def test_ssh_tail_last_lines_then_follow(sshd):
    path = sshd.make_dir("logs") / "a.log"
    path.write_bytes(b"".join(b"old %d\n" % i for i in range(5000)) + b"half")
    os.chmod(path, 0o644)
    async with SshPool(backoff=FAST, agent_path=None) as pool:
        async with ResumableTail.ssh_file(pool, sshd.target(), str(path), lines=3) as tail:
            got = bytearray()
            async for ev in tail:
                if isinstance(ev, LogBytes):
                    got += ev.data
                    if got == b"old 4997\nold 4998\nold 4999\n":
                        with open(path, "ab") as f:
                            f.write(b" done\n")
                    if got.endswith(b"done\n"):
                        break
    assert bytes(got) == b"old 4997\nold 4998\nold 4999\nhalf done\n"
    assert await gone(remote_tails) == []


async def test_ssh_tail_missing_file_then_appears(sshd):
    path = sshd.make_dir("logs") / "later.log"
    async with SshPool(backoff=FAST, agent_path=None) as pool:
        async with ResumableTail.ssh_file(pool, sshd.target(), str(path)) as tail:
            seen = []
            async for ev in tail:
                seen.append(ev)
                if isinstance(ev, TailNotice) and len([e for e in seen if isinstance(e, TailNotice)]) == 1:
                    await asyncio.sleep(0.2)
                    path.write_bytes(b"first\n")
                    os.chmod(path, 0o644)
                if isinstance(ev, LogBytes):
                    break
    assert any(isinstance(e, TailNotice) and "no such file" in e.message for e in seen)
    assert seen[-1] == LogBytes(b"first\n")


# -- a local file --------------------------------------------------------------------------
async def test_local_tail_rotation_and_truncation(tmp_path):
    path = tmp_path / "server.log"
    w = Writer(path)
    events: list = []
    data = bytearray()
    tail = ResumableTail.local(path, from_start=True, poll_interval_s=0.02)
    consumer = asyncio.create_task(collect(tail, events, data))
    writing = asyncio.create_task(w.run(3.0))
    await asyncio.sleep(0.5)
    await w.ops.put(w.rotate("1"))
    await asyncio.sleep(0.7)
    await w.ops.put(w.copytruncate("2"))
    await asyncio.sleep(0.7)
    await w.ops.put(w.rotate("3"))
    await writing
    await wait_for_bytes(data, b"".join(w.written), 3)
    consumer.cancel()
    await asyncio.gather(consumer, return_exceptions=True)
    assert_same_lines(bytes(data), w.written)
    kinds = [type(e) for e in events]
    assert kinds.count(TailRotated) == 2 and kinds.count(TailTruncated) == 1


async def test_local_last_lines_and_missing_file(tmp_path):
    path = tmp_path / "a.log"
    path.write_bytes(b"".join(b"l%d\n" % i for i in range(100)))
    async with ResumableTail.local(path, lines=2, poll_interval_s=0.02) as tail:
        it = aiter(tail)
        assert await anext(it) == LogBytes(b"l98\nl99\n")
    later = tmp_path / "later.log"
    async with ResumableTail.local(later, lines=5, poll_interval_s=0.02) as tail:
        it = aiter(tail)
        assert isinstance(await anext(it), TailNotice)
        later.write_bytes(b"a\nb\n")  # a file that appears is read from its start
        assert await asyncio.wait_for(anext(it), PATIENCE_S) == LogBytes(b"a\nb\n")


# -- a command on a host -------------------------------------------------------------------
def procs_with(token: str) -> list[int]:
    pids = []
    for p in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if token.encode() in p.read_bytes():
                pids.append(int(p.parent.name))
        except OSError:
            pass
    return [p for p in pids if p != os.getpid()]


async def test_command_restart_is_a_gap(sshd):
    token = f"tok{random.randrange(10**9)}"
    cmd = f"bash -c ': {token}; for i in $(seq 1 100000); do echo $i; sleep 0.01; done'"
    events: list = []
    async with SshPool(backoff=FAST, agent_path=None) as pool:
        tail = ResumableTail.ssh_command(pool, sshd.target(), cmd)
        got = bytearray()
        try:
            async for ev in tail:
                events.append(ev)
                if isinstance(ev, LogBytes):
                    got += ev.data
                    if len(got.splitlines()) == 20:  # the server dies for ~0.3 s, beside the reader
                        async def outage():
                            await asyncio.to_thread(sshd.kill_all)
                            await asyncio.sleep(0.3)
                            await asyncio.to_thread(sshd.start)
                        down = asyncio.create_task(outage())
                if any(isinstance(e, TailGap) for e in events) and got.count(b"\n1\n") and got.endswith(b"\n5\n"):
                    break
        finally:
            await asyncio.gather(down, return_exceptions=True)
            if sshd.proc.poll() is not None:
                sshd.start()
            await tail.aclose()
    gap = next(e for e in events if isinstance(e, TailGap))
    assert "connection lost" in gap.reason and gap.lost_s > 0.25
    before, after = bytes(got).split(b"\n1\n", 1)
    assert before.split() == [str(i).encode() for i in range(1, len(before.split()) + 1)]
    assert len(before.split()) >= 20
    assert after.split() == [b"2", b"3", b"4", b"5"]
    assert await gone(lambda: procs_with(token)) == []  # neither the killed nor the closed one lingers


async def test_command_exit_is_a_gap(sshd):
    async with SshPool(backoff=FAST, agent_path=None) as pool:
        tail = ResumableTail.ssh_command(pool, sshd.target(), "echo one; printf two", restart_backoff=FAST)
        seen = []
        async with tail:
            async for ev in tail:
                seen.append(ev)
                if sum(isinstance(e, TailGap) for e in seen) == 2:
                    break
    data = [e.data for e in seen if isinstance(e, LogBytes)]
    assert data[:2] == [b"one\n", b"two\n"]  # the unfinished last line is flushed when it exits
    gaps = [e for e in seen if isinstance(e, TailGap)]
    assert gaps[0].reason == "command exited with status 0"


# -- the command line ----------------------------------------------------------------------
def _cli(*args: str, **kw):
    import signal
    import subprocess
    import sys

    return subprocess.Popen(
        [sys.executable, "-m", "cockpit", "tail", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), **kw,
    )


def test_cli_tail_over_ssh_then_ctrl_c(sshd):
    import signal
    import time

    path = sshd.make_dir("logs") / "cli.log"
    path.write_bytes(b"one\ntwo \x1b]0;owned\x07\nthree\n")
    os.chmod(path, 0o644)
    p = _cli(f"cockpit-loop:{path}", "-n", "2", "--ssh-config", sshd.ssh_config)
    deadline = time.monotonic() + PATIENCE_S
    out = b""
    os.set_blocking(p.stdout.fileno(), False)
    while time.monotonic() < deadline and b"three\n" not in out:
        time.sleep(0.05)
        out += p.stdout.read() or b""
    p.send_signal(signal.SIGINT)
    rest, err = p.communicate(timeout=10)
    assert p.returncode == 0
    assert out + rest == "two ␛]0;owned␇\nthree\n".encode()  # escapes made visible, not sent
    assert b"connected to cockpit-loop" in err


def test_cli_refuses_unknown_host_key(sshd, tmp_path):
    empty = tmp_path / "kh"
    empty.write_text("")
    p = _cli(f"ssh://{sshd.username}@127.0.0.1:{sshd.port}/etc/hostname", "--known-hosts", str(empty))
    try:
        out, err = p.communicate(timeout=20)
    finally:
        p.kill()
    assert p.returncode == 2 and out == b""
    assert f"ssh-keyscan -p {sshd.port} 127.0.0.1".encode() in err


def test_cli_local_stop_after_bytes_and_json(tmp_path):
    path = tmp_path / "x.log"
    path.write_bytes(b"a\nb\nc\n")
    p = _cli(str(path), "--from-start", "--stop-after-bytes", "6")
    assert p.communicate(timeout=10)[0] == b"a\nb\nc\n" and p.returncode == 0
    p = _cli(str(path), "--from-start", "--json", "--stop-after-bytes", "6")
    out = p.communicate(timeout=10)[0].decode().splitlines()
    assert p.returncode == 0
    import json

    assert [json.loads(x)["line"] for x in out] == ["a", "b", "c"]
