"""HostDeck: one pane per host, one shown; the strip names the hosts once there are two; a
click on a name shows that host; the log view (filter, follow) carries over; a host leaves."""

from __future__ import annotations

from tui_support import OnePaneApp

from cockpit.model.log_view import LogViewState
from cockpit.ui.widgets.chrome.host_deck import HostDeck
from cockpit.ui.widgets.log.pane import LogPane


def deck() -> HostDeck:
    return HostDeck(lambda primary: LogPane(id="log" if primary else None), label="Log", key_hint="H: next host",
                    id="log-deck")


def strip(d: HostDeck) -> str:
    return d.query_one(".deck-hosts").render().plain


async def test_the_first_host_takes_the_primary_pane_and_a_second_shows_the_strip():
    async with OnePaneApp(deck).run_test(size=(100, 20)) as pilot:
        d = pilot.app.query_one(HostDeck)
        assert d.pane_for("node1") is d.primary and d.primary.id == "log"
        assert not d.query_one(".deck-hosts").display  # one host: no strip
        b = d.pane_for("node2")
        await pilot.pause()
        assert b is not d.primary and not b.display and d.current == "node1"
        assert d.query_one(".deck-hosts").display and strip(d).startswith("Log:  node1   node2")
        # a click on a name shows that host
        x = strip(d).index("node2")
        await pilot.click(".deck-hosts", offset=(x + 1, 0))
        await pilot.pause()
        assert d.current == "node2" and b.display and not d.primary.display


async def test_the_view_carries_over_and_a_removed_host_goes():
    async with OnePaneApp(deck).run_test(size=(100, 20)) as pilot:
        d = pilot.app.query_one(HostDeck)
        a, b = d.pane_for("node1"), d.pane_for("node2")
        a.apply_view_state(LogViewState(follow=False, filter="NCCL"))
        d.show("node2")  # at once, before the new pane has drawn
        await pilot.pause()
        assert b.view_state.filter == "NCCL" and not b.view_state.follow
        d.drop("node2")
        await pilot.pause()
        assert d.hosts == ["node1"] and d.current == "node1" and a.display and not b.is_attached
        d.drop("node1")  # the primary stays, told why
        assert d.hosts == [] and a.display and "node1: removed from the session" in a.state_text
