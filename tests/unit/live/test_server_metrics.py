"""Successive scrapes -> ServerMetrics: rates, windowed percentiles, restarts, failures."""

from __future__ import annotations

from pathlib import Path

import pytest

from cockpit.live.metrics.server_metrics import ServerMetricsFold
from cockpit.parse.metrics.prom_text import parse_exposition
from cockpit.parse.metrics.sglang_metrics import sglang_scrape

DATA = Path(__file__).resolve().parents[2] / "data" / "metrics"
A = sglang_scrape(parse_exposition((DATA / "sglang-0.4-dp2-a.txt").read_text()))
B = sglang_scrape(parse_exposition((DATA / "sglang-0.4-dp2-b.txt").read_text()))


def test_counters_become_rates_between_two_scrapes():
    fold = ServerMetricsFold(window_s=60)
    first = fold.add(A, 0.0)
    assert first.state == "ok" and dict(first.rates) == {}
    m = fold.add(B, 10.0)
    assert m.rates["prompt_tokens_per_s"] == pytest.approx(300_000 / 10)
    assert m.rates["generation_tokens_per_s"] == pytest.approx(90_000 / 10)
    assert m.rates["requests_per_s"] == pytest.approx(200 / 10)
    assert m.gauges["num_running_reqs"] == 35


def test_window_percentiles_come_from_the_bucket_deltas():
    fold = ServerMetricsFold(window_s=60)
    assert all(v is None for v in fold.add(A, 0.0).latency["ttft"].values())  # one scrape: no window
    m = fold.add(B, 10.0)
    # the 200 requests between the scrapes sit two buckets higher than the first 2000
    assert m.latency["ttft"]["p50"] == pytest.approx(0.92)
    assert m.latency_all["ttft"]["p50"] == pytest.approx(0.54)
    assert m.latency["ttft"]["p50"] > m.latency_all["ttft"]["p50"]
    assert m.window_span_s == 10.0


def test_the_window_slides():
    fold = ServerMetricsFold(window_s=60)
    fold.add(A, 0.0)
    fold.add(B, 10.0)
    m = fold.add(B, 80.0)  # nothing new since t=10, and t=0 left the window
    assert m.window_span_s == 70.0
    assert m.latency["ttft"]["p50"] is None and m.rates["prompt_tokens_per_s"] == 0


def test_a_counter_reset_starts_a_new_run_not_a_negative_rate():
    fold = ServerMetricsFold(window_s=60)
    fold.add(B, 0.0)
    m = fold.add(A, 10.0)  # counters went down: the server restarted
    assert m.run_index == 1
    assert dict(m.rates) == {}
    assert all(v is None for v in m.latency["ttft"].values())
    m = fold.add(B, 20.0)
    assert m.run_index == 1 and m.rates["prompt_tokens_per_s"] > 0


def test_a_failed_scrape_is_a_state_and_keeps_the_figures():
    fold = ServerMetricsFold()
    fold.add(A, 0.0)
    m = fold.failed("timed out after 2.0 s")
    m = fold.failed("timed out after 2.0 s")
    assert (m.state, m.error, m.failures) == ("failing", "timed out after 2.0 s", 2)
    assert m.gauges["num_running_reqs"] == 25 and m.at == 0.0
    m = fold.add(B, 5.0)
    assert (m.state, m.error, m.failures) == ("ok", None, 0)


def test_before_any_scrape_the_state_is_waiting():
    assert ServerMetricsFold().snapshot.state == "waiting"


def test_scraper_events_fold_and_the_snapshot_pickles():
    import pickle

    from cockpit.parse.metrics.events import MetricsScraped, MetricsScrapeFailed

    expo = parse_exposition((DATA / "sglang-0.4-dp2-b.txt").read_text())
    fold = ServerMetricsFold()
    fold.feed(MetricsScraped("gpu1", "http://x/metrics", parse_exposition((DATA / "sglang-0.4-dp2-a.txt").read_text()),
                             100.0, 0.01))
    m = fold.feed(MetricsScraped("gpu1", "http://x/metrics", expo, 110.0, 0.01))
    assert m.rates["prompt_tokens_per_s"] == 30_000 and m.at == 110.0
    assert pickle.loads(pickle.dumps(m)) == m
    event = MetricsScrapeFailed("gpu1", "http://x/metrics", "refused", 120.0)
    assert pickle.loads(pickle.dumps(event)) == event
    assert fold.feed(event).state == "failing"
