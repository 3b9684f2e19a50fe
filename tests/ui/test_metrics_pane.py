"""The metrics pane: percentiles, rates, a restart, a failing scrape, an old server's missing
names; snapshots at 80x24 and 120x40. Scrapes are the fixture texts of tests/data/metrics/
(made by us from SGLang's public format) through the real parser; time comes from the events."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui_support import OnePaneApp

from cockpit.parse.metrics.events import MetricsScraped, MetricsScrapeFailed
from cockpit.parse.metrics.prom_text import parse_exposition
from cockpit.ui.widgets.metrics.pane import MetricsPane

DATA = Path(__file__).resolve().parents[1] / "data" / "metrics"
URL = "http://127.0.0.1:30000/metrics"
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


def scraped(name: str, at: float) -> MetricsScraped:
    return MetricsScraped("lxc", URL, parse_exposition((DATA / name).read_text()), at, 0.01)


TWO = [scraped("sglang-0.4-dp2-a.txt", 1000.0), scraped("sglang-0.4-dp2-b.txt", 1010.0)]
FAILING = [*TWO, MetricsScrapeFailed("lxc", URL, f"no answer from {URL} within 4 s", 1015.0)]
OLD = [scraped("sglang-0.3-old-names.txt", 1000.0)]


def described(pane) -> None:  # noqa: ANN001
    pane.set_state(f"metrics {URL} via ssh lxc every 5 s")


def app(items) -> OnePaneApp:  # noqa: ANN001
    return OnePaneApp(lambda: MetricsPane(id="metrics"), items, described)


def text(pane: MetricsPane, cls: str) -> str:
    return pane.query_one(f".{cls}").render().plain


async def test_two_scrapes_show_rates_and_window_percentiles():
    async with app(TWO).run_test(size=(120, 40)) as pilot:
        pane = pilot.app.query_one(MetricsPane)
        assert text(pane, "metrics-state") == "ok · Qwen/Qwen3-32B"
        # the one formatter (model/figures.py): thousands separated, a unit on each, a share in %
        assert "running 35  queued 3  KV 35%  gen 1,650 tok/s" in text(pane, "metrics-figures")
        assert "in 30,000 tok/s  out 9,000 tok/s  20 req/s  (between the last 2 scrapes)" in " ".join(
            text(pane, "metrics-figures").split("\n"))  # a rate says its window
        latency = text(pane, "metrics-latency").splitlines()
        assert latency[0].endswith("last 10 s")
        assert latency[1].split() == ["TTFT", "920", "ms", "1.8", "s", "3.6", "s"]
        assert text(pane, "metrics-missing") == ""


async def test_a_0_5_server_with_a_pid_per_rank_shows_each_dp_group_once():
    """DP2 x TP4: 8 ranks, each with its own pid label; 10 running per DP group at 50 % KV."""
    pages = [scraped("sglang-0.5-dp2-tp4-pid-a.txt", 1000.0), scraped("sglang-0.5-dp2-tp4-pid-b.txt", 1010.0)]
    async with app(pages).run_test(size=(120, 40)) as pilot:
        pane = pilot.app.query_one(MetricsPane)
        assert "running 30  queued 2  KV 55%  gen 1,820 tok/s" in text(pane, "metrics-figures")


async def test_a_failing_scrape_says_why_and_keeps_the_figures():
    async with app(FAILING).run_test(size=(120, 40)) as pilot:
        pane = pilot.app.query_one(MetricsPane)
        assert text(pane, "metrics-state").startswith(f"failing: no answer from {URL} within 4 s")
        assert pane.query_one(".metrics-state").has_class("-error")
        assert pane.query_one(".metrics-figures").has_class("-stale")
        assert "running 35" in text(pane, "metrics-figures")


async def test_an_old_server_names_what_it_lacks_and_a_restart_is_said():
    restart = [*TWO, scraped("sglang-0.4-dp2-a.txt", 1020.0)]
    async with app(OLD).run_test(size=(120, 40)) as pilot:
        pane = pilot.app.query_one(MetricsPane)
        assert text(pane, "metrics-missing") == ("no sglang:num_requests_total: added in SGLang 0.4; "
                                                 "is the server older?")
        assert text(pane, "metrics-latency").splitlines()[0].endswith("since start")
        assert "rates from the second scrape on" in text(pane, "metrics-figures")
    async with app(restart).run_test(size=(120, 40)) as pilot:
        pane = pilot.app.query_one(MetricsPane)
        assert text(pane, "metrics-state") == "ok · Qwen/Qwen3-32B · restarted (1×)"


async def test_without_a_source_it_says_so():
    async with OnePaneApp(lambda: MetricsPane()).run_test(size=(80, 24)) as pilot:
        assert text(pilot.app.query_one(MetricsPane), "metrics-state") == "no metrics_url configured"


class TestSnapshots:
    @pytest.mark.parametrize("size", SIZES)
    def test_two_scrapes(self, snap_compare, size) -> None:  # noqa: ANN001
        assert snap_compare(app(TWO), terminal_size=size)

    @pytest.mark.parametrize("size", SIZES)
    def test_failing_old_server(self, snap_compare, size) -> None:  # noqa: ANN001
        items = [*OLD, MetricsScrapeFailed("lxc", URL, "HTTP 404 Not Found", 1005.0)]
        assert snap_compare(app(items), terminal_size=size)
