"""The Fleet tab: snapshots of 1, 3 and 8 hosts at 80x24 and 120x40, from PromQL answers
RECORDED FROM A REAL PROMETHEUS (tests/data/fleet/record_fleet.py: Debian's prometheus
scraping the stand-in fleet of tests/fleet_exporter.py), replayed so the pictures are the
same every run; the "how to add one" text without [[prometheus]]; a failing Prometheus; the
demo's replay of those answers (cockpit --demo, F); and enter on a host row focusing that
host's panes in the app."""

from __future__ import annotations

import asyncio
import json
import re
from argparse import Namespace

import pytest

from fleet_recorded import recorded_snapshot, recorded_snapshot_async, recording_path
from tui_support import OnePaneApp, make_app, screen_text, until

from cockpit.demo.fleet import demo_fleet_feed
from cockpit.parse.metrics.fleet_snapshot import FleetSnapshot
from cockpit.sources.metrics.fleet_feed import FleetFeed
from cockpit.sources.metrics.prometheus_api import PrometheusError
from cockpit.ui.widgets.fleet.pane import FleetPane

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
STATE = "Prometheus lab · http://prometheus.lab:9090 every 1 s"


def fleet_app(*items: object, state: str | None = STATE) -> OnePaneApp:
    at = next((i.at for i in items if isinstance(i, FleetSnapshot)), 0.0)

    def after(pane) -> None:  # noqa: ANN001
        if state:
            pane.set_state(state)

    return OnePaneApp(lambda: FleetPane(id="fleet", clock=lambda: at), items, after)


class TestFleetSnapshots:
    @pytest.mark.parametrize("size", SIZES)
    @pytest.mark.parametrize("hosts", [1, 3, 8])
    def test_fleet(self, snap_compare, hosts: int, size: tuple[int, int]) -> None:
        """A row per host (a block per GPU: its power of its limit; the host's kW of its limit;
        util; power over the last minute) and per server (gen tok/s, TTFT and ITL p50/p99,
        throughput over the minute). 3 hosts: node-b's dcgm-exporter lacks the power limit
        (said), node-c's exporter is down (said, not zeros). 8 hosts x 8 GPUs."""
        assert snap_compare(fleet_app(recorded_snapshot(hosts)), terminal_size=size)

    def test_without_prometheus_it_says_how_to_add_one(self, snap_compare) -> None:
        assert snap_compare(fleet_app(state=None), terminal_size=(80, 24))

    def test_a_failing_prometheus_keeps_the_last_figures_and_says_why(self, snap_compare) -> None:
        snap = recorded_snapshot(3)
        failing = FleetSnapshot(snap.source, snap.url, snap.at + 5, snap.hosts, "failing",
                                "no answer from http://prometheus.lab:9090 within 2 s", "timeout", snap.history_s)
        assert snap_compare(fleet_app(failing), terminal_size=(120, 40))

    @pytest.mark.parametrize("size", SIZES)
    def test_the_demo_replay(self, snap_compare, size: tuple[int, int]) -> None:
        """The demo's Fleet tab at a fixed time: "demo replay" in the title, the state line says
        the answers are recorded from a real Prometheus; node-a and node-b each at their own
        point of the load swell, a 15 min power and tok/s history that rises and falls; node-b
        without a power limit (said), node-c's exporter down (said)."""
        feed = demo_fleet_feed(clock=lambda: 1_800_000_000.0)
        assert snap_compare(fleet_app(first_snapshot(feed), state=feed.description), terminal_size=size)


def first_snapshot(feed: FleetFeed) -> FleetSnapshot:
    async def go() -> FleetSnapshot:
        await feed.load_history()
        return await feed.refresh()

    return asyncio.run(go())


async def test_the_demo_fleet_tab_shows_the_replay(monkeypatch) -> None:
    """`cockpit --demo` as run_tui builds it (its session has no [[prometheus]]): Fleet is in the
    tab bar, and `F` shows host rows with power figures, labelled as a replay."""
    from cockpit.cli import open_tui
    from cockpit.ui.app import CockpitApp
    from cockpit.ui.widgets.chrome.tab_bar import TabBar

    opened: list[CockpitApp] = []
    monkeypatch.setattr(CockpitApp, "run", lambda self, *a, **k: opened.append(self))
    assert open_tui.run_tui(Namespace(session=None, demo=True, theme=None, fresh=True)) == 0
    app = opened[0]
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert not app.main_screen.query_one(TabBar).hidden and "Handoff F Fleet" in screen_text(app)
        await pilot.press("F")
        rows = re.compile(r"node-a +\S+ +[\d.]+/5\.6 kW \d+% +\d+%.*\n.*node-a:30000 +[\d,]+ ")
        await until(lambda: rows.search(screen_text(app)) is not None and "answered" in screen_text(app), pilot)
        text = screen_text(app)
        assert "Fleet · demo replay · 2/3 hosts" in text
        assert "replay: PromQL answers recorded from a real Prometheus, every 2 s (demo)" in text
        assert re.search(r"node-b +\S+ +[\d.]+ kW no limit", text) and "cannot scrape node-c:9400" in text


def test_the_recorded_answers_are_labelled_as_recorded_from_a_real_prometheus() -> None:
    for n in (1, 3, 8):
        doc = json.loads(recording_path(n).read_text())
        assert "real Prometheus" in doc["recorded"]


def test_a_session_host_prometheus_lacks_is_a_row_that_says_so() -> None:
    snap = recorded_snapshot(3, expected={"gpu9": (), "node-a": ()})
    rows = {h.name: h for h in snap.hosts}
    assert rows["gpu9"].state == "missing" and "no series" in rows["gpu9"].note
    assert rows["node-a"].state == "ok" and rows["node-a"].session_host == "node-a"
    assert rows["node-c"].state == "down" and "node-c:9400" in rows["node-c"].note
    assert rows["node-b"].missing == ("DCGM_FI_DEV_POWER_MGMT_LIMIT",) and rows["node-b"].limit_w is None


async def test_keys_move_between_hosts_and_enter_asks_for_the_host() -> None:
    snap = await recorded_snapshot_async(3, expected={"node-b": ()})
    app = fleet_app(snap)
    got: list[FleetPane.HostSelected] = []
    def hook(m: object) -> None:
        if isinstance(m, FleetPane.HostSelected) and all(m is not g for g in got):  # once, not per bubble
            got.append(m)

    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        app.query_one(FleetPane).focus()
        await pilot.press("down", "enter")
        await pilot.pause()
    assert [(m.host, m.session_host) for m in got] == [("node-b", "node-b")]


async def test_enter_on_a_session_host_shows_its_log_pane(example_path) -> None:
    from cockpit.store.toml_store import load_session

    session = load_session(example_path)
    host = session.hosts[0].name
    app = make_app(example_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("F")
        await pilot.pause()
        assert app.main_screen.active_tab == "fleet"
        app.main_screen.query_one(FleetPane).post_message(FleetPane.HostSelected(host, host))
        await pilot.pause()
        assert app.main_screen.active_tab == "main"
        assert app.main_screen.main_pane == "log"


async def test_a_failed_query_is_a_state_with_the_reason() -> None:
    from cockpit.sources.metrics.fleet_model import FleetModel

    model = FleetModel("lab", "http://x")
    snap = model.failed(PrometheusError("unauthorized", "Prometheus refused the credentials in $P (HTTP 401)"), 1.0)
    assert snap.state == "failing" and snap.error_kind == "unauthorized" and "$P" in (snap.error or "")


async def test_the_figures_carry_units_and_sensible_precision_and_the_history_its_window() -> None:
    """The one formatter (model/figures.py) on the Fleet tab: power with kW and its share of the
    limit, utilisation in %, gen tok/s thousands-separated, latencies in ms or s with a decimal at
    most, and both sparkline columns say the history they cover."""
    snap = await recorded_snapshot_async(3)
    async with fleet_app(snap).run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        text = screen_text(pilot.app)
    assert re.search(r"node-a +\S+ +\d+(\.\d)?/\d+(\.\d)? kW \d+% +\d+% ", text), text
    assert re.search(r"node-b +\S+ +\d+(\.\d)? kW no limit", text), text
    row = next(line for line in text.splitlines() if "node-a:30000" in line)
    gen, ttft, itl = row.split()[2:5]  # past the border and the instance
    assert re.fullmatch(r"\d{1,3}(,\d{3})*", gen), row  # 1,500: no stray decimals
    unit = r"\d+(\.\d)?(ms|s)"
    assert re.fullmatch(f"{unit}/{unit}", ttft) and re.fullmatch(f"{unit}/{unit}", itl), row
    assert "power, last 1 min" in text and "tok/s, last 1 min" in text, text  # the history's window
    assert "rate over 4 s, percentiles over 60 s" in re.sub(r"[\s┃]+", " ", text), text  # wrapped
    assert not re.search(r"\d\.\d\d", text), text  # never two decimals on a narrow table
