"""LogFeed against a real local file: batches, append, rotation, truncation, host selection."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from waits import patience

from cockpit.model.session import Host
from cockpit.parse.log.events import DecodeBatch, ErrorBlock
from cockpit.sources.log.batch import LogBatch
from cockpit.sources.log.feed import LogFeed


def line(i: int) -> str:
    return (f"[2025-03-01 12:00:{i % 60:02d} TP0] Decode batch. #running-req: 3, #token: 100, "
            f"token usage: 0.10, gen throughput (token/s): {100 + i}.00, #queue-req: 0")


class Collector:
    def __init__(self, feed: LogFeed) -> None:
        self.batches: list[LogBatch] = []
        self.task = asyncio.create_task(self._run(feed))

    async def _run(self, feed: LogFeed) -> None:
        async for batch in feed.stream(parse=True):
            self.batches.append(batch)

    @property
    def lines(self) -> list[str]:
        return [e.line for b in self.batches for e in b.events if not isinstance(e, ErrorBlock)]

    @property
    def notes(self) -> list[str]:
        return [n for b in self.batches for n in b.notes]

    async def until(self, cond, timeout: float = 10.0) -> None:
        end = asyncio.get_running_loop().time() + patience(timeout)
        while not cond():
            assert asyncio.get_running_loop().time() < end, (self.lines[-3:], self.notes)
            await asyncio.sleep(0.02)

    async def stop(self) -> None:
        self.task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await self.task


def append(path: Path, lines: list[str], mode: str = "a") -> None:
    with path.open(mode, encoding="utf-8") as f:
        f.write("".join(x + "\n" for x in lines))


async def test_backlog_then_appended_lines_arrive_parsed(tmp_path: Path) -> None:
    log = tmp_path / "s.log"
    append(log, [line(i) for i in range(100)], "w")
    c = Collector(LogFeed.local(str(log), lines=30))
    await c.until(lambda: len(c.lines) >= 30)
    assert c.lines[0] == line(70)
    append(log, [line(100), "  partial"])
    await c.until(lambda: len(c.lines) >= 32)
    assert c.lines[-2:] == [line(100), "  partial"]
    assert all(isinstance(e, DecodeBatch) for e in c.batches[0].events)
    await c.stop()


async def test_a_burst_comes_as_few_batches_not_one_per_line(tmp_path: Path) -> None:
    log = tmp_path / "s.log"
    log.write_text("")
    c = Collector(LogFeed.local(str(log), lines=0, max_delay_s=0.1, max_lines=5000))
    await asyncio.sleep(0.2)
    for _ in range(10):  # 20k lines in ~0.5 s
        append(log, [line(i) for i in range(2000)])
        await asyncio.sleep(0.05)
    await c.until(lambda: len(c.lines) >= 20_000)
    assert len(c.lines) == 20_000
    assert len(c.batches) <= 20, len(c.batches)
    await c.stop()


async def test_rotation_is_a_note_and_the_new_file_is_followed(tmp_path: Path) -> None:
    log = tmp_path / "s.log"
    append(log, [line(1)], "w")
    c = Collector(LogFeed.local(str(log), lines=10))
    await c.until(lambda: len(c.lines) >= 1)
    append(log, [line(2)])
    log.rename(tmp_path / "s.log.1")
    append(log, [line(3)], "w")
    await c.until(lambda: line(3) in c.lines)
    assert c.lines == [line(1), line(2), line(3)]
    assert any(n.startswith("rotated") for n in c.notes)
    # the note is in the batch that holds the new file's first line, before it
    batch = next(b for b in c.batches if b.notes and b.notes[0].startswith("rotated"))
    assert [e.line for e in batch.events][:1] in ([], [line(3)])
    await c.stop()


async def test_truncation_reads_again_from_the_start(tmp_path: Path) -> None:
    log = tmp_path / "s.log"
    append(log, [line(i) for i in range(5)], "w")
    c = Collector(LogFeed.local(str(log), lines=10))
    await c.until(lambda: len(c.lines) >= 5)
    append(log, ["[2025-03-01 12:01:00 TP0] after truncate"], "w")
    await c.until(lambda: "after truncate" in c.lines[-1])
    assert any(n.startswith("truncated") for n in c.notes)
    await c.stop()


async def test_a_local_command_is_followed_and_ends_when_cancelled(tmp_path: Path) -> None:
    c = Collector(LogFeed.command(f"printf '{line(5)}\\nplain\\n'; sleep 30"))
    await c.until(lambda: len(c.lines) >= 2)
    assert c.lines == [line(5), "plain"]
    await c.stop()


def test_the_feed_for_a_host_follows_its_settings() -> None:
    assert LogFeed.for_host(Host(name="here", log_path="/var/log/s.log")).description == "tail /var/log/s.log"
    remote = LogFeed.for_host(Host(name="gpu1", ssh="me@gpu1", log_path="/var/log/s.log"))
    assert remote.description == "tail me@gpu1:/var/log/s.log"
    inline = LogFeed.for_host(Host(name="gpu2", log_path="root@gpu2:/x.log"))
    assert inline.description == "tail root@gpu2:/x.log"
    from cockpit.model.launch.confirm import log_fingerprint
    from cockpit.sources.server.confirm_key import LogCommandNotConfirmed, confirmation

    def confirmed(host: Host) -> Host:  # as the TUI's dialog seals it when the person says yes
        return host.model_copy(update={"log_confirmed": confirmation("log", log_fingerprint(host))})

    gpu3 = Host(name="gpu3", ssh="gpu3", log_command="docker logs -f sglang")
    with pytest.raises(LogCommandNotConfirmed, match="log_command not confirmed"):
        LogFeed.for_host(gpu3)  # a command from the session runs only once a person confirmed it
    cmd = LogFeed.for_host(confirmed(gpu3))
    assert cmd.description == "tail gpu3: docker logs -f sglang"
    assert LogFeed.for_host(confirmed(Host(name="l", log_command="journalctl -f"))).description == "run journalctl -f"
    with pytest.raises(ValueError):
        LogFeed.for_host(Host(name="none"))


def test_log_feed_imports_no_textual() -> None:
    import subprocess
    import sys

    code = "import sys, cockpit.sources.log.feed; assert 'textual' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


async def test_a_big_backlog_comes_first_as_a_preview_of_its_last_lines(tmp_path: Path) -> None:
    log = tmp_path / "s.log"
    append(log, [line(i) for i in range(60_000)], "w")  # ~9 MB: the preview is worth it
    c = Collector(LogFeed.local(str(log), lines=50_000, scan_prefix=False))
    await c.until(lambda: sum(not b.preview for b in c.batches if b.events) >= 1)
    await c.stop()
    preview, full = c.batches[0], next(b for b in c.batches if b.events and not b.preview)
    assert preview.preview and not full.preview
    shown = [e.line for e in preview.events]
    everything = [e.line for e in full.events]
    assert 100 < len(shown) < 2000  # a screenful or so, parsed at once
    assert everything == [line(i) for i in range(10_000, 60_000)]  # the whole backlog, once
    assert everything[-len(shown):] == shown  # the preview is its end


async def test_a_small_backlog_has_no_preview(tmp_path: Path) -> None:
    log = tmp_path / "s.log"
    append(log, [line(i) for i in range(1000)], "w")
    c = Collector(LogFeed.local(str(log), lines=1000))
    await c.until(lambda: len(c.lines) >= 1000)
    await c.stop()
    assert not any(b.preview for b in c.batches)
    assert c.lines == [line(i) for i in range(1000)]


async def test_a_dropped_host_is_said_in_the_batch_and_so_is_the_reconnect() -> None:
    from cockpit.sources.log.tail_events import LogBytes
    from cockpit.sources.transport.host_events import HostConnected, HostDisconnected

    async def tail(on_host):  # noqa: ANN001, ANN202
        for n, event in enumerate([HostConnected("gpu1"), HostDisconnected("gpu1", "connection reset", 8.0),
                                   HostConnected("gpu1")], 1):
            await asyncio.sleep(0.1)  # each event and its line taken on their own
            on_host(event)
            yield LogBytes((line(n) + "\n").encode())
        await asyncio.sleep(3600)

    c = Collector(LogFeed(tail, "tail gpu1:/x.log", max_delay_s=0.0))
    await c.until(lambda: len(c.lines) >= 3)
    assert [b.connected for b in c.batches if b.connected is not None] == [True, False, True]
    assert [b.connected for b in c.batches if b.events and b.events[0].line == line(2)] == [False]
    await c.stop()


async def test_a_missing_file_is_a_waiting_state_until_its_first_lines(tmp_path: Path) -> None:
    path = tmp_path / "later.log"
    feed = LogFeed.local(str(path), max_delay_s=0.01)
    c = Collector(feed)
    await c.until(lambda: any(b.waiting for b in c.batches))
    first = next(b for b in c.batches if b.waiting)
    assert first.state == f"{path}: no such file yet; waiting for it"
    append(path, [line(1)])
    await c.until(lambda: c.lines)
    back = c.batches[-1]
    assert back.waiting is False and back.state == f"tail {path}" and back.events
    append(path, [line(2)])
    await c.until(lambda: len(c.lines) == 2)
    assert c.batches[-1].waiting is None and c.batches[-1].state is None, "said once"
    await c.stop()
