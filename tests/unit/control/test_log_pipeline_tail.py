"""A followed log as production reads it: a LogFeed on a real local file through its LogPipeline
(control/log_pipeline.py: the bytes parsed once, in the fold's child process) to the items a
pane and the live state take. Backlog and appended lines, rotation, truncation, a command, the
preview of a big first read, a dropped host, a missing file."""

from __future__ import annotations

import asyncio
from pathlib import Path

from waits import append_lines, batch_line, cancelled, until

from cockpit.control.log_pipeline import LogPipeline
from cockpit.live.items import LogItem
from cockpit.live.log.items import ERROR_LINE, NOTE_LINE, RUN, LogLines, SourceState
from cockpit.sources.log.feed import LogFeed

line = batch_line


def rows(item: LogLines) -> list[tuple[str, str]]:
    """The rows of a LogLines in order: ("line", text) for a log line, ("note", text) for a note."""
    out: list[tuple[str, str]] = []
    for seg in item.segments:
        if seg[0] == RUN:
            out += [("line", text) for text in seg[1]]
        elif seg[0] == ERROR_LINE:
            out.append(("line", seg[1]))
        elif seg[0] == NOTE_LINE:
            out.append(("note", seg[1]))
    return out


class Collector:
    """The items of `LogPipeline(feed).stream()`, as the hub hands them on."""

    def __init__(self, feed: LogFeed) -> None:
        self.items: list[LogItem] = []
        self.task = asyncio.create_task(self._run(feed))

    async def _run(self, feed: LogFeed) -> None:
        async for item in LogPipeline(feed).stream():
            self.items.append(item)

    @property
    def batches(self) -> list[LogLines]:
        """The LogLines that hold the log (a preview's are held again by the next)."""
        return [i for i in self.items if isinstance(i, LogLines) and not i.preview]

    @property
    def rows(self) -> list[tuple[str, str]]:
        return [r for b in self.batches for r in rows(b)]

    @property
    def lines(self) -> list[str]:
        return [text for kind, text in self.rows if kind == "line"]

    @property
    def notes(self) -> list[str]:
        return [text for kind, text in self.rows if kind == "note"]

    @property
    def states(self) -> list[SourceState]:
        return [i for i in self.items if isinstance(i, SourceState)]

    async def until(self, cond, timeout: float = 10.0) -> None:  # noqa: ANN001
        await until(cond, lambda: (self.lines[-3:], self.notes), timeout)

    async def stop(self) -> None:
        await cancelled(self.task)


append = append_lines


async def test_backlog_then_appended_lines_arrive_parsed(tmp_path: Path) -> None:
    log = tmp_path / "s.log"
    append(log, [line(i) for i in range(100)], "w")
    c = Collector(LogFeed.local(str(log), lines=30))
    await c.until(lambda: len(c.lines) >= 30)
    assert c.lines[0] == line(70)
    assert c.batches[0].peaks == (3, 0)  # parsed: its batch lines' running and queued requests
    append(log, [line(100), "  partial"])
    await c.until(lambda: len(c.lines) >= 32)
    assert c.lines[-2:] == [line(100), "  partial"]
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
    rotated = next(i for i, (kind, text) in enumerate(c.rows) if kind == "note" and text.startswith("── rotated"))
    assert c.rows.index(("line", line(2))) < rotated < c.rows.index(("line", line(3)))  # said where it happened
    await c.stop()


async def test_truncation_reads_again_from_the_start(tmp_path: Path) -> None:
    log = tmp_path / "s.log"
    append(log, [line(i) for i in range(5)], "w")
    c = Collector(LogFeed.local(str(log), lines=10))
    await c.until(lambda: len(c.lines) >= 5)
    append(log, ["[2025-03-01 12:01:00 TP0] after truncate"], "w")
    await c.until(lambda: "after truncate" in c.lines[-1])
    assert any(n.startswith("── truncated") for n in c.notes)
    await c.stop()


async def test_a_local_command_is_followed_and_ends_when_cancelled(tmp_path: Path) -> None:
    c = Collector(LogFeed.command(f"printf '{line(5)}\\nplain\\n'; sleep 30"))
    await c.until(lambda: len(c.lines) >= 2)
    assert c.lines == [line(5), "plain"]
    await c.stop()


async def test_a_big_backlog_comes_first_as_a_preview_of_its_last_lines(tmp_path: Path) -> None:
    log = tmp_path / "s.log"
    append(log, [line(i) for i in range(6_000)], "w")  # ~1 MB, over 4 previews of 16 kB: worth one
    c = Collector(LogFeed.local(str(log), lines=5_000, scan_prefix=False, preview_bytes=16 << 10))
    await c.until(lambda: len(c.lines) >= 5_000)
    await c.stop()
    first = next(i for i in c.items if isinstance(i, LogLines))
    assert first.preview  # before the whole backlog is parsed
    shown = [text for _kind, text in rows(first)]
    assert 50 < len(shown) < 200  # a screenful or so (16 kB), parsed at once
    assert c.lines == [line(i) for i in range(1_000, 6_000)]  # the whole backlog, once
    assert c.lines[-len(shown):] == shown  # the preview is its end


async def test_a_small_backlog_has_no_preview(tmp_path: Path) -> None:
    log = tmp_path / "s.log"
    append(log, [line(i) for i in range(1000)], "w")
    c = Collector(LogFeed.local(str(log), lines=1000))
    await c.until(lambda: len(c.lines) >= 1000)
    await c.stop()
    assert not any(isinstance(i, LogLines) and i.preview for i in c.items)
    assert c.lines == [line(i) for i in range(1000)]


async def test_a_dropped_host_is_said_and_so_is_the_reconnect() -> None:
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
    assert [s.connected for s in c.states if s.connected is not None] == [True, False, True]
    assert c.lines == [line(1), line(2), line(3)]
    await c.stop()


async def test_a_missing_file_is_a_waiting_state_until_its_first_lines(tmp_path: Path) -> None:
    path = tmp_path / "later.log"
    c = Collector(LogFeed.local(str(path), max_delay_s=0.01))
    await c.until(lambda: any(s.waiting for s in c.states))
    first = next(s for s in c.states if s.waiting)
    assert first.text == f"{path}: no such file yet; waiting for it"
    append(path, [line(1)])
    await c.until(lambda: c.lines)
    back = [s for s in c.states if s.waiting is False]
    assert len(back) == 1 and back[0].text == f"tail {path}"
    append(path, [line(2)])
    await c.until(lambda: len(c.lines) == 2)
    assert [s.waiting for s in c.states] == [True, False], "said once each"
    await c.stop()
