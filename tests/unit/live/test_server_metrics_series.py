"""The metrics pane's series: one point per good scrape, on the scrape's clock."""

from pathlib import Path

from cockpit.live.metrics.server_metrics import ServerMetricsFold
from cockpit.live.metrics.server_metrics_series import ServerMetricsSeries
from cockpit.parse.metrics.events import MetricsScraped, MetricsScrapeFailed
from cockpit.parse.metrics.prom_text import parse_exposition

DATA = Path(__file__).resolve().parents[2] / "data" / "metrics"
URL = "http://127.0.0.1:30000/metrics"


def scraped(name: str, at: float) -> MetricsScraped:
    return MetricsScraped("h", URL, parse_exposition((DATA / name).read_text()), at, 0.01)


def test_points_come_from_good_scrapes_with_a_window():
    fold, series = ServerMetricsFold(60), ServerMetricsSeries()
    series.add(fold.feed(scraped("sglang-0.4-dp2-a.txt", 1000.0)))
    assert not series  # one scrape: no rate, no window yet
    m = fold.feed(scraped("sglang-0.4-dp2-b.txt", 1010.0))
    series.add(m)
    series.add(m)  # the same snapshot again (a redraw) adds nothing
    assert series.series("out_tok_s") == [(1010.0, 9000.0)] and series.series("req_s") == [(1010.0, 20.0)]
    assert series.series("ttft_p50") == [(1010.0, m.latency["ttft"]["p50"])]
    series.add(fold.feed(MetricsScrapeFailed("h", URL, "refused", 1015.0)))
    assert len(series.series("out_tok_s")) == 1  # a failed scrape is a gap, not a zero


def test_an_older_clock_starts_over():
    fold, series = ServerMetricsFold(60), ServerMetricsSeries()
    for t in (1000.0, 1010.0):
        series.add(fold.feed(scraped("sglang-0.4-dp2-a.txt" if t == 1000 else "sglang-0.4-dp2-b.txt", t)))
    other = ServerMetricsFold(60)
    other.feed(scraped("sglang-0.4-dp2-a.txt", 10.0))
    series.add(other.feed(scraped("sglang-0.4-dp2-b.txt", 20.0)))
    assert series.series("out_tok_s") == [(20.0, 9000.0)]
