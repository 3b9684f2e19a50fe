"""LogPipeline: one log target's bytes read once, parsed once, folded once (no Textual).

    channel -> tail (LogFeed, sources/) -> pipeline -> items -> the log view

The pipeline takes its LogFeed's batches unparsed and hands the bytes to a ChildFold
(control/fold_process.py: one LogParser and one LogMetrics in a child process, off the UI's
GIL), and yields typed items (live/log/items.py): `LogLines` (display rows made by the
child), `MetricsSnapshot`, `SourceState`, `SummaryBefore`. The only parse in this
process is a big first read's preview (its last 64 kB, shown before the child is done).
One pipeline per log target: several hosts' logs are several pipelines.

    async for item in LogPipeline(LogFeed.local(path)).stream(): view.feed(item)
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from cockpit.control.fold_process import ChildFold
from cockpit.control.fold_process import Item as FoldItem
from cockpit.live.items import LogItem
from cockpit.live.log.items import SourceState, SummaryBefore, lines_of

if TYPE_CHECKING:  # the feed module imports asyncssh lazily; its types cost nothing here
    from cockpit.sources.live_feed import LiveFeed
    from cockpit.sources.log.feed import LogFeed



class LogPipeline:
    """A LiveFeed (`description`, async `stream()`) of LogItem for one LogFeed."""

    max_pending_bytes = 32 << 20
    """Beyond this many bytes given to the child and not yet taken, the tail waits."""
    preview_head_start_s = 0.1
    """A preview is drawn before the backlog goes to the child (whose parse would compete
    with the first frames for the CPU on a busy machine)."""

    def __init__(self, feed: LogFeed, *, use_process: bool = True) -> None:
        self.feed = feed
        self.description: str = feed.description
        self.use_process = use_process
        self.fold: ChildFold | None = None

    @property
    def idle(self) -> bool:
        """Everything read so far is parsed, folded and handed over."""
        return self.fold is None or self.fold.idle

    async def stream(self) -> AsyncIterator[LogItem]:
        loop = asyncio.get_running_loop()
        out: asyncio.Queue[LogItem | None] = asyncio.Queue()  # None: the fold is done

        def from_fold(item: FoldItem | None) -> None:  # the fold's reader thread
            with contextlib.suppress(RuntimeError):  # the loop closed under us: nobody listens
                loop.call_soon_threadsafe(out.put_nowait, item)

        self.fold = fold = ChildFold(from_fold, use_process=self.use_process)
        fold.start()  # its start-up (niced) overlaps the tail's opening
        failed: list[BaseException] = []
        reader = asyncio.create_task(self._read(fold, out, failed))
        try:
            while (item := await out.get()) is not None:
                yield item
            if failed:  # after the lines read before the failure
                raise failed[0]
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader
            fold.stop()

    async def _read(self, fold: ChildFold, out: asyncio.Queue[LogItem | None], failed: list[BaseException]) -> None:
        try:
            async for batch in self.feed.stream():
                if batch.state is not None or batch.connected is not None or batch.waiting is not None:
                    out.put_nowait(SourceState(batch.state, batch.connected, batch.waiting))
                if batch.summary is not None:
                    fold.seed(batch.summary)
                    out.put_nowait(SummaryBefore(batch.summary))  # shown now, not after the fold
                if batch.preview:
                    out.put_nowait(lines_of(batch.events, preview=True))
                    await asyncio.sleep(self.preview_head_start_s)
                    continue
                fold.send(list(batch.notes), batch.data, batch.ended)
                while fold.pending_bytes > self.max_pending_bytes:
                    await asyncio.sleep(0.02)  # the child is behind: hold the tail back
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - raised by stream() in the consumer
            failed.append(exc)
        fold.close()  # the last lines, then None from the fold


def pipeline_for(feed: LiveFeed) -> LiveFeed:
    """A LogFeed's pipeline; any other feed (one that yields LogItem already) as it is."""
    from cockpit.sources.log.feed import LogFeed

    return LogPipeline(feed) if isinstance(feed, LogFeed) else feed
