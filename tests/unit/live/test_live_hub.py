"""The live hub (control/live_hub.py): one feed per key, fanned out to every subscriber; a key the
panes run is never opened again; a feed the hub opened for a subscriber stops with it. And
a sweep point folds the log pipeline's rows (LogLines, with their batch peaks and error
labels) to the same figures as the parsed events it folded before."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest

import cockpit
from cockpit.control.live_hub import FeedEnded, LiveHub
from cockpit.live.experiment.sweep_watch import PointWatch
from cockpit.live.log.items import SourceState, lines_of
from cockpit.parse.log.sglang_log import LogParser

PACKAGE = Path(cockpit.__file__).parent


def tick(i: int) -> SourceState:
    """A numbered live item (a log source's state: the smallest there is)."""
    return SourceState(f"tick {i}")


class Ticks:
    """A feed of `n` numbered items, `gap_s` apart; counts how often it was streamed."""

    description = "ticks"

    def __init__(self, n: int = 3, gap_s: float = 0.01) -> None:
        self.n, self.gap_s, self.streams = n, gap_s, 0

    async def stream(self):  # noqa: ANN201
        self.streams += 1
        for i in range(self.n):
            await asyncio.sleep(self.gap_s)
            yield tick(i)


async def test_one_feed_reaches_every_subscriber_in_order() -> None:
    hub, feed = LiveHub(), Ticks()
    a: list = []
    b: list = []
    routed: list = []
    hub.subscribe("gpu@box", a.append)
    hub.subscribe("gpu@box", b.append)
    hub.subscribe("gpu@other", lambda item: routed.append(("other", item)))
    hub.subscribe_all(lambda key, item: routed.append((key, item)))
    await hub.run("gpu@box", feed)
    assert a[:3] == b[:3] == [tick(0), tick(1), tick(2)] and isinstance(a[3], FeedEnded) and a[3].error is None
    assert routed == [("gpu@box", tick(n)) for n in range(3)]  # the router: items, not the end
    assert feed.streams == 1 and hub.opened["gpu@box"] == 1 and not hub.running("gpu@box")


async def test_open_leaves_a_running_key_alone_and_stops_its_own_feed_with_its_last_subscriber() -> None:
    hub, panes = LiveHub(), Ticks(n=1000)
    pane_run = asyncio.create_task(hub.run("log@box", panes))
    await asyncio.sleep(0.05)
    made: list = []
    seen: list = []
    leave = hub.subscribe("log@box", seen.append)
    assert hub.open("log@box", lambda: made.append(1) or Ticks())  # the panes' feed: not built again
    await asyncio.sleep(0.05)
    assert made == [] and panes.streams == 1 and hub.opened["log@box"] == 1 and seen
    leave()
    pane_run.cancel()

    own = Ticks(n=1000)
    leave = hub.subscribe("gpu@box", seen.append)
    assert hub.open("gpu@box", lambda: own)
    await asyncio.sleep(0.05)
    assert hub.running("gpu@box") and own.streams == 1
    leave()  # the last subscriber: the hub's own feed stops
    await asyncio.sleep(0.05)
    assert not hub.running("gpu@box")
    assert not hub.open("metrics@box", lambda: None)  # nothing to build: said, nothing runs


async def test_a_failing_feed_tells_its_subscribers_why() -> None:
    class Broken:
        description = "broken"

        async def stream(self):  # noqa: ANN201
            yield tick(1)
            raise OSError("gone")

    hub, seen = LiveHub(), list[object]()
    hub.subscribe("gpu@box", seen.append)
    hub.open("gpu@box", Broken)
    await asyncio.sleep(0.05)
    assert seen[0] == tick(1) and isinstance(seen[1], FeedEnded) and str(seen[1].error) == "gone"


async def test_an_item_outside_the_union_ends_its_feed_saying_what_it_was() -> None:
    class Stray:
        description = "stray"

        async def stream(self):  # noqa: ANN201
            yield tick(1)
            yield {"gpu": 0}  # not a live item (live/items.py): no view would take it

    hub, seen, routed = LiveHub(), list[object](), list[object]()
    hub.subscribe("gpu@box", seen.append)
    hub.subscribe_all(lambda key, item: routed.append(item))
    with pytest.raises(TypeError, match="feed gpu@box yields a dict, not a live item"):
        await hub.run("gpu@box", Stray())
    assert routed == [tick(1)] and seen[0] == tick(1) and isinstance(seen[1], FeedEnded)
    assert isinstance(seen[1].error, TypeError)


LOG = "\n".join([
    "[2025-01-01 10:00:00 TP0] Prefill batch. #new-seq: 1, #new-token: 8, #cached-token: 0, token usage: 0.00, "
    "#running-req: 3, #queue-req: 9",
    *(f"[2025-01-01 10:00:0{i} TP0] Decode batch. #running-req: {r}, #token: 5000, token usage: 0.10, "
      f"gen throughput (token/s): 800.00, #queue-req: {q}" for i, (r, q) in enumerate([(5, 1), (17, 0), (4, 2)])),
    "[2025-01-01 10:00:05 TP0] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
]) + "\n"


def test_the_pipeline_rows_fold_to_the_same_point_figures_as_the_events() -> None:
    events = LogParser().feed(LOG.encode())
    by_events, by_rows = PointWatch(), PointWatch()
    for watch in (by_events, by_rows):
        watch.open_window()
    for event in events:
        by_events.log_event(event)
    half = len(events) // 2  # two rounds of the pipeline, as a tail delivers them
    by_rows.log_lines(lines_of(events[:half]))
    by_rows.log_lines(lines_of(events[half:]))
    by_rows.log_lines(lines_of(events, preview=True))  # a first read's preview: before the point
    fields = by_events.fields(total_tokens=None, duration_s=None)
    assert fields["peak_running"] == 17 and fields["peak_queued"] == 9 and fields["error_labels"]
    assert by_rows.fields(total_tokens=None, duration_s=None) == fields


def test_the_live_room_does_no_io_of_its_own_and_the_tui_glue_builds_no_source() -> None:
    def imports(path: Path) -> set[str]:
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
        return found

    for path in (PACKAGE / "live").rglob("*.py"):  # every room of live (rooms by feature, #22)
        assert not {m for m in imports(path) if m.split(".")[0] in ("asyncssh", "pynvml")}, path.name
    glue = imports(PACKAGE / "ui" / "live" / "experiment.py")
    assert not {m for m in glue if m.startswith("cockpit.sources")}, glue
