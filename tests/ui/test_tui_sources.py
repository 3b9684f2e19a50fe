"""Live feeds injected into the app reach the panes; a failing feed becomes a state, not a crash."""

from __future__ import annotations

import asyncio

from tui_support import make_app, until

from cockpit.demo.build import data_dir
from cockpit.live.log.items import SourceState, lines_of
from cockpit.parse.gpu.events import GpuSamplesTaken, GpuSourceUnavailable, GpuStreamInterrupted
from cockpit.parse.gpu.nvsmi_topo import parse_topology
from cockpit.parse.gpu.sample import GpuSample
from cockpit.parse.log.sglang_log import parse_text
from cockpit.sources.feeds import LiveSources
from cockpit.ui.widgets.gpu.pane import GpuPane
from cockpit.ui.widgets.gpu.topology_pane import TopologyPane
from cockpit.ui.widgets.log.pane import LogPane

LINES = lines_of(parse_text("line 1\nline 2\n"))
TICK = GpuSamplesTaken(None, (GpuSample(index=0, name="H200", power_w=300.0, power_limit_w=700.0),), 1_000.0)
TOPO = parse_topology((data_dir() / "demo" / "nvidia-smi-topo.txt").read_text())


class ListFeed:
    def __init__(self, items, description="fake feed", fail: str | None = None) -> None:  # noqa: ANN001
        self.items, self.description, self.fail = items, description, fail

    async def stream(self):  # noqa: ANN201
        for item in self.items:
            await asyncio.sleep(0)
            yield item
        if self.fail:
            raise ConnectionError(self.fail)


async def test_items_from_each_feed_reach_their_pane(session_path):
    received: dict[str, list] = {"log": [], "gpu": [], "topology": []}
    originals = {pane: pane.__dict__["feed"] for pane in (LogPane, GpuPane, TopologyPane)}
    for pane in (LogPane, GpuPane, TopologyPane):
        name = {LogPane: "log", GpuPane: "gpu", TopologyPane: "topology"}[pane]
        original = pane.feed

        def spy(self, item, original=original, name=name):  # noqa: ANN001, ANN202
            received[name].append(item)
            return original(self, item)

        pane.feed = spy  # type: ignore[method-assign]
    try:
        sources = LiveSources(log=ListFeed([LINES]), gpu=ListFeed([TICK]), topology=ListFeed([TOPO]))
        app = make_app(session_path, sources=sources)
        async with app.run_test(size=(120, 40)) as pilot:
            await until(lambda: all(received.values()), pilot)
    finally:
        for pane, feed in originals.items():  # put the real methods back for later tests
            pane.feed = feed  # type: ignore[method-assign]
    # each pane gets the items of its type; the GPU pane also the topology (NUMA nodes)
    assert received == {"log": [LINES], "gpu": [TICK, TOPO], "topology": [TOPO]}


async def test_a_failing_feed_is_shown_in_its_pane(session_path):
    seen: list[str] = []
    original = TopologyPane.set_state

    def spy(self, text):  # noqa: ANN001, ANN202
        seen.append(text)
        return original(self, text)

    TopologyPane.set_state = spy  # type: ignore[method-assign]
    try:
        app = make_app(session_path, sources=LiveSources(topology=ListFeed([], fail="host unreachable")))
        async with app.run_test(size=(120, 40)) as pilot:
            await until(lambda: any("host unreachable" in s for s in seen), pilot)
            assert app.is_running
    finally:
        TopologyPane.set_state = original  # type: ignore[method-assign]


async def test_host_state_shows_in_the_header(session_path):
    from tui_support import screen_text

    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.feeds.set_host_state("lxc", "reconnecting in 8 s")
        await pilot.pause()
        assert "lxc reconnecting in 8 s" in screen_text(app)


async def test_host_events_reach_the_header_by_their_type(session_path):
    from tui_support import screen_text

    from cockpit.sources.transport.host_events import HostConnected, HostDisconnected

    class HostConnectedLookalike:  # the same name, not the pool's event: ignored
        host = "gpu8"

    app = make_app(session_path)
    async with app.run_test(size=(220, 40)) as pilot:
        await pilot.pause()
        app.feeds.host_event(HostDisconnected("gpu9", "connection reset", 8.0))
        app.feeds.host_event(HostConnected("gpu7"))
        app.feeds.host_event(HostConnectedLookalike())
        await pilot.pause()
        text = screen_text(app)
        assert "gpu9 reconnecting in 8 s" in text and "gpu7 connected" in text
        assert "gpu8" not in text and "gpu8" not in app.host_states


class EndlessFeed:
    """Items as fast as the loop allows: some are always in flight when the app exits."""

    description = "endless fake feed"

    def __init__(self, item: object) -> None:
        self.item = item

    async def stream(self):  # noqa: ANN201
        while True:
            await asyncio.sleep(0)
            yield self.item


async def test_quitting_while_items_are_in_flight_does_not_crash(session_path):
    sources = LiveSources(gpu=EndlessFeed(GpuStreamInterrupted("lxc", "connection lost", 8)),
                          log=EndlessFeed(SourceState("tail /var/log/sglang.log")),
                          topology=EndlessFeed(GpuSourceUnavailable("no nvidia-smi on lxc", host="lxc")))
    app = make_app(session_path, sources=sources)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.3)
    # run_test re-raises an exception from a message handler on exit (it did: NoMatches '#gpu').
    assert app.return_code in (None, 0)


async def test_a_host_on_this_machine_shows_its_log_feeds_state_in_the_header(session_path, tmp_path):
    """No `ssh`, so no connection state: the header says what its log feed does instead."""
    from tui_support import screen_text

    from cockpit.model.session import Host, Session
    from cockpit.sources.session_feeds import sources_for_session
    from cockpit.store.toml_store import load_session, save_session

    log = tmp_path / "later.log"
    save_session(Session(title="here", hosts=[Host(name="here", log_path=str(log))]), session_path)
    app = make_app(session_path, sources=sources_for_session(load_session(session_path)))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: app.host_states.get("here") == "no log file yet", pilot)
        await pilot.pause()
        assert "● here no log file yet" in screen_text(app).splitlines()[0]
        assert "no such file yet; waiting for it" in app.main_screen.query_one("#log", LogPane).state_text
        log.write_text("[2026-11-29 09:00:00] The server is fired up and ready to roll!\n")
        await until(lambda: app.host_states.get("here") == "tailing", pilot)
        await pilot.pause()
        assert "● here tailing" in screen_text(app).splitlines()[0]
        assert app.main_screen.query_one("#log", LogPane).state_text == f"tail {log}"
        # gone again (deleted, not rotated): waiting for it once more
        log.unlink()
        await until(lambda: app.host_states.get("here") == "no log file yet", pilot)
        log.write_text("[2026-11-29 09:05:00] back\n")
        await until(lambda: app.host_states.get("here") == "tailing", pilot)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        header = screen_text(app).splitlines()[0]
        assert "● here" in header and "tailing" not in header, "narrow: the green dot says it"
