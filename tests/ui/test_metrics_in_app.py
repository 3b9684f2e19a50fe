"""The metrics pane in the app: a host's /metrics routed to its own pane under the GPUs (alone
with `w` when narrow), its charts ending where the power sparklines end; the demo's replayed
/metrics shows latency percentiles. Scrapes are the demo's pages through the real parser."""

from __future__ import annotations

import asyncio

import pytest

from tui_support import make_app, screen_text, until

from cockpit.demo.build import data_dir
from cockpit.demo.metrics import DEMO_URL, DemoMetricsFeed, DemoMetricsPages
from cockpit.parse.gpu.events import GpuSamplesTaken
from cockpit.parse.gpu.sample import GpuSample
from cockpit.parse.metrics.events import MetricsScraped
from cockpit.parse.metrics.prom_text import parse_exposition
from cockpit.sources.feeds import LiveSources
from cockpit.ui.render.metrics import chart_lines
from cockpit.ui.widgets.chrome.host_deck import HostDeck
from cockpit.ui.widgets.metrics.pane import MetricsPane

DEMO = data_dir() / "demo"
SCRAPES = 40
T0 = 1_000_000.0


class ListFeed:
    def __init__(self, items, description: str) -> None:  # noqa: ANN001
        self.items, self.description = items, description

    async def stream(self):  # noqa: ANN201
        for item in self.items:
            await asyncio.sleep(0)
            yield item


def scrapes() -> list[MetricsScraped]:
    pages = DemoMetricsPages((DEMO / "sglang-metrics-a.txt").read_text(), (DEMO / "sglang-metrics-b.txt").read_text(),
                             scale=0.08)
    return [MetricsScraped("lxc", DEMO_URL, parse_exposition(pages.page(n)), T0 + 5 * n, 0.01) for n in range(SCRAPES)]


def gpu_ticks() -> list[GpuSamplesTaken]:
    """Two GPUs sampled every 5 s over the same span, the last one 10 s after the last scrape."""
    out = []
    for n in range(SCRAPES + 2):
        samples = tuple(GpuSample(index=i, name="NVIDIA RTX PRO 6000", power_w=400 + 10 * ((n + i) % 7),
                                  power_limit_w=600, util_gpu_pct=90, mem_used_mib=90_000, mem_total_mib=97_887,
                                  temp_c=60, host="lxc") for i in range(2))
        out.append(GpuSamplesTaken("lxc", samples, T0 + 5 * n))
    return out


def sources() -> LiveSources:
    return LiveSources(metrics=ListFeed(scrapes(), f"metrics {DEMO_URL} via ssh lxc every 5 s"),
                       gpu=ListFeed(gpu_ticks(), "nvidia-smi on lxc every 5 s"))


def metrics_pane(app) -> MetricsPane:  # noqa: ANN001
    return app.main_screen.query_one("#metrics-deck", HostDeck).shown


def fed(app) -> bool:  # noqa: ANN001
    from cockpit.ui.widgets.gpu.pane import GpuPane

    gpu = app.main_screen.query_one(GpuPane)
    return metrics_pane(app).metrics.scrapes == SCRAPES and len(gpu.history.total_series()) == SCRAPES + 2


async def test_a_metrics_feed_gets_its_pane_with_percentiles_and_a_chart_on_the_power_axis(example_path):
    app = make_app(example_path, sources=sources())
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: fed(app), pilot)
        metrics_pane(app).follow_axis()  # what the screen's one-second tick does
        await pilot.pause(0.1)
        pane = metrics_pane(app)
        assert pane.display and app.main_screen.query_one("#metrics-deck").display
        latency = pane.query_one(".metrics-latency").render().plain.splitlines()
        assert latency[1].split()[0] == "TTFT" and latency[0].endswith("last 60 s")
        chart = pane.query_one(".metrics-chart").render().plain.splitlines()
        assert chart[0].strip().startswith("last 5 min") and [line.split()[0] for line in chart[1:]] == [
            "TTFT", "ITL", "out", "req/s"]
        # the charts end where the power sparklines end (the last GPU tick, 10 s after the last
        # scrape), not at the last scrape
        power_end = T0 + 5 * (SCRAPES + 1)
        assert pane.axis_end is not None and pane.axis_end() == power_end
        width = max(20, pane.scrollable_content_region.width - 1)
        assert chart == chart_lines(pane.series, width, t_end=power_end)
        assert chart != chart_lines(pane.series, width, t_end=T0 + 5 * (SCRAPES - 1))
        assert app.main_screen.main_panes == ("board", "log", "gpu", "metrics")


async def test_without_a_metrics_feed_the_pane_is_not_there(example_path):
    app = make_app(example_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert not app.main_screen.query_one("#metrics-deck").display
        assert app.main_screen.main_panes == ("board", "log", "gpu")
        assert "Server metrics" not in screen_text(app)


async def test_the_demo_replay_shows_latency_percentiles(example_path):
    feed = DemoMetricsFeed(DEMO / "sglang-metrics-a.txt", DEMO / "sglang-metrics-b.txt", interval_s=0.05)
    app = make_app(example_path, sources=LiveSources(metrics=feed))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: metrics_pane(app).metrics.window_span_s > 0 and metrics_pane(app).metrics.scrapes > 3,
                    pilot)
        await pilot.pause(0.1)
        text = screen_text(app)
        assert "TTFT" in text and "ITL" in text and "lukealonso/GLM-5-NVFP4" in text
        assert metrics_pane(app).metrics.latency["ttft"]["p99"] is not None


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_of_the_metrics_pane_in_the_app(snap_compare, example_path, size):
    """120x40: the server metrics under the GPU pane (state, figures, TTFT/ITL/E2E percentiles of
    the last 60 s, sparklines of the last 5 min ending with the power chart). 80x24: `w` three
    times shows the metrics pane alone (pane bar: Board Log GPUs Metrics)."""

    async def run_before(pilot) -> None:  # noqa: ANN001
        await until(lambda: fed(pilot.app), pilot)
        metrics_pane(pilot.app).follow_axis()
        if size == (80, 24):
            await pilot.press("w", "w", "w")
        await pilot.pause(0.2)

    assert snap_compare(make_app(example_path, sources=sources()), terminal_size=size, run_before=run_before)
