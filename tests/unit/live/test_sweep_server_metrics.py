"""A sweep point's server-side percentiles: the server's `/metrics` at the point's start and
end, through the real parser (prometheus-client), the TTFT / ITL bucket deltas of exactly
that window; a restart or a server without metrics gives no figures, never wrong ones."""

from __future__ import annotations

import asyncio

import pytest

from cockpit.live.experiment.sweep_server_metrics import ServerMetricsProbe, metrics_url_for, window_fields
from cockpit.live.experiment.sweep_watch import PointWatch
from cockpit.model.session import Host
from cockpit.parse.metrics.events import MetricsScraped, MetricsScrapeFailed
from cockpit.parse.metrics.prom_text import parse_exposition
from cockpit.parse.metrics.sglang_metrics import ServerScrape, sglang_scrape

BOUNDS = (0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4)  # SGLang's TTFT bounds start this way (seconds)


def _family(name: str, counts: dict[float, int], labels: str = 'model_name="m"', prefix: str = "sglang:") -> list[str]:
    """A histogram family: `counts` = observations per bucket (not cumulative), by upper bound."""
    lines = [f"# HELP {prefix}{name} {name}.", f"# TYPE {prefix}{name} histogram"]
    running = 0
    for le in BOUNDS:
        running += counts.get(le, 0)
        lines.append(f'{prefix}{name}_bucket{{{labels},le="{le}"}} {running}')
    running += counts.get(float("inf"), 0)
    total = sum(le * n for le, n in counts.items() if le != float("inf"))
    lines += [f'{prefix}{name}_bucket{{{labels},le="+Inf"}} {running}',
              f"{prefix}{name}_sum{{{labels}}} {total}", f"{prefix}{name}_count{{{labels}}} {running}"]
    return lines


def _figures(fields: dict) -> dict:
    """The p50 and p99 figures (the tests below predate p90 / p95 and the buckets)."""
    return {k: v for k, v in fields.items() if k.endswith(("p50_ms", "p99_ms"))}


def _page(*families: list[str], requests: int = 0) -> ServerScrape:
    lines = [line for fam in families for line in fam]
    lines += ["# HELP sglang:num_requests_total requests.", "# TYPE sglang:num_requests_total counter",
              f'sglang:num_requests_total{{model_name="m"}} {requests}']
    return sglang_scrape(parse_exposition("\n".join(lines) + "\n"))


def test_only_the_observations_of_the_window_count():
    # before the point: 100 slow first tokens (3.2-6.4 s) from earlier traffic
    start = _page(_family("time_to_first_token_seconds", {6.4: 100}),
                  _family("inter_token_latency_seconds", {0.8: 500}), requests=100)
    # during it: 100 first tokens in (0.1, 0.2], 1000 inter-token gaps in (0, 0.1]
    end = _page(_family("time_to_first_token_seconds", {6.4: 100, 0.2: 100}),
                _family("inter_token_latency_seconds", {0.8: 500, 0.1: 1000}), requests=200)
    fields = _figures(window_fields(start, end))
    # PromQL's histogram_quantile: linear inside the bucket holding the rank
    assert fields == {"server_ttft_p50_ms": 150.0, "server_ttft_p99_ms": 199.0,
                      "server_itl_p50_ms": 50.0, "server_itl_p99_ms": 99.0}


def test_since_start_would_differ_so_the_window_is_what_is_measured():
    start = _page(_family("time_to_first_token_seconds", {6.4: 100}))
    end = _page(_family("time_to_first_token_seconds", {6.4: 100, 0.2: 100}))
    assert window_fields(start, end)["server_ttft_p99_ms"] < 200  # the old 6 s requests are not in it
    assert end.histograms["time_to_first_token_seconds"].quantile(0.99) > 3.2


def test_replica_ranks_are_one_and_data_parallel_ranks_add_up():
    # tp ranks repeat the same figures (one kept); dp ranks are separate servers (summed)
    def page(dp1_slow: int) -> ServerScrape:
        return _page(_family("time_to_first_token_seconds", {0.2: 10}, 'model_name="m",tp_rank="0",dp_rank="0"'),
                     _family("time_to_first_token_seconds", {0.2: 10}, 'model_name="m",tp_rank="1",dp_rank="0"'),
                     _family("time_to_first_token_seconds", {0.2: 0, 1.6: dp1_slow},
                             'model_name="m",tp_rank="0",dp_rank="1"'))
    end = page(10)
    # window: dp1's 10 slow ones only (dp0 did not move); tp rank 1 is not another server
    assert window_fields(page(0), end)["server_ttft_p50_ms"] == pytest.approx(1200.0)
    assert end.histograms["time_to_first_token_seconds"].count == 20


def test_a_family_first_seen_at_the_end_counts_from_zero():
    # a fresh server: labelled histograms appear with their first observation
    start = _page(requests=0)
    end = _page(_family("time_to_first_token_seconds", {0.2: 4}), requests=4)
    assert _figures(window_fields(start, end)) == {"server_ttft_p50_ms": 150.0, "server_ttft_p99_ms": 199.0}


def test_itl_falls_back_to_time_per_output_token_of_0_3():
    start = _page(_family("time_per_output_token_seconds", {}))
    end = _page(_family("time_per_output_token_seconds", {0.2: 4}))
    assert _figures(window_fields(start, end)) == {"server_itl_p50_ms": 150.0, "server_itl_p99_ms": 199.0}


def test_the_routers_sglang_underscore_spelling_reads_the_same():
    start = _page(_family("time_to_first_token_seconds", {}, prefix="sglang_"))
    end = _page(_family("time_to_first_token_seconds", {0.4: 2}, prefix="sglang_"))
    assert _figures(window_fields(start, end)) == {"server_ttft_p50_ms": 300.0, "server_ttft_p99_ms": 398.0}


def test_a_restart_between_start_and_end_gives_no_figures():
    start = _page(_family("time_to_first_token_seconds", {0.2: 50}), requests=50)
    # the server restarted mid-point and served 10 requests since: counts went down
    end = _page(_family("time_to_first_token_seconds", {0.2: 10}), requests=10)
    assert window_fields(start, end) == {}
    # a restart caught by a counter only (histogram counts happen to have grown past the old)
    start = _page(_family("time_to_first_token_seconds", {0.2: 5}), requests=500)
    end = _page(_family("time_to_first_token_seconds", {0.2: 9}), requests=9)
    assert window_fields(start, end) == {}


def test_the_main_run_scrape_starts_the_window_and_a_restart_before_it_still_gives_none():
    start = _page(_family("time_to_first_token_seconds", {}), requests=0)
    # the client's warm-up: one first token after 5 s, answered before it said "main run"
    main = _page(_family("time_to_first_token_seconds", {6.4: 1}), requests=1)
    end = _page(_family("time_to_first_token_seconds", {6.4: 1, 0.2: 8}), requests=9)
    assert window_fields(start, end)["server_ttft_p99_ms"] > 3200  # the warm-up is the p99
    assert _figures(window_fields(start, end, main=main)) == {"server_ttft_p50_ms": 150.0, "server_ttft_p99_ms": 199.0}
    assert window_fields(None, end, main=main) == window_fields(main, end)  # the first read failed
    # the server restarted during the warm-up: the point gets none, as for a restart later
    before = _page(_family("time_to_first_token_seconds", {0.2: 50}), requests=50)
    assert window_fields(before, end, main=main) == {}


def test_missing_families_or_scrapes_leave_fields_unset():
    only_itl = _page(_family("inter_token_latency_seconds", {0.1: 3}))
    later = _page(_family("inter_token_latency_seconds", {0.1: 6}))
    assert set(_figures(window_fields(only_itl, later))) == {"server_itl_p50_ms", "server_itl_p99_ms"}
    assert window_fields(None, later) == {} and window_fields(only_itl, None) == {}
    # no request finished in the window: nothing to say, not zero
    assert window_fields(later, later) == {}


def test_the_point_watch_carries_them_into_the_benchmark_fields():
    watch = PointWatch()
    watch.server_start = _page(_family("time_to_first_token_seconds", {}))
    watch.server_end = _page(_family("time_to_first_token_seconds", {0.2: 4}))
    fields = watch.fields(total_tokens=None, duration_s=None)
    # four first tokens, all in (100, 200] ms: every percentile is that bucket, interpolated in it,
    # and the record says so (199 ms is the bucket's 99 %, not a measurement of 199 ms)
    bucket = [100.0, 200.0]
    assert fields == {"server_ttft_p50_ms": 150.0, "server_ttft_p90_ms": 190.0, "server_ttft_p95_ms": 195.0,
                      "server_ttft_p99_ms": 199.0,
                      "server_buckets": {f"server_ttft_{q}_ms": bucket for q in ("p50", "p90", "p95", "p99")}}


def test_the_url_is_the_hosts_metrics_url_else_the_servers_port():
    assert metrics_url_for(Host(name="h", metrics_url="http://10.0.0.5:9000/metrics"), "127.0.0.1", 30000) \
        == "http://10.0.0.5:9000/metrics"
    assert metrics_url_for(Host(name="h"), "127.0.0.1", 30001) == "http://127.0.0.1:30001/metrics"
    assert metrics_url_for(None, "::1", 30000) == "http://[::1]:30000/metrics"


class _Scripted:
    """Scrape results in order (a fake endpoint): text, or a failure reason."""

    def __init__(self, *answers: str | Exception) -> None:
        self.answers = list(answers)
        self.calls = 0

    async def __call__(self, cache):
        self.calls += 1
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            return MetricsScrapeFailed(None, "u", str(answer), 0.0)
        return MetricsScraped(None, "u", cache.parse(answer), 0.0, 0.0)


def _read_all(probe: ServerMetricsProbe, times: int) -> tuple[list, list]:
    async def go():
        scrapes, notices = [], []
        for _ in range(times):
            scrapes.append(await probe.read())
            notices.append(probe.notice())
        return scrapes, notices
    return asyncio.run(go())


def test_a_server_without_metrics_is_said_once_and_not_asked_again():
    fake = _Scripted(Exception("HTTP 404 Not Found"))
    probe = ServerMetricsProbe("http://127.0.0.1:30000/metrics", fake)
    scrapes, notices = _read_all(probe, 4)
    assert scrapes == [None] * 4 and fake.calls == 1
    assert notices[0] is not None and "--enable-metrics" in notices[0] and "HTTP 404" in notices[0]
    assert notices[1:] == [None] * 3


def test_text_without_sglang_families_is_no_metrics_too():
    fake = _Scripted("# TYPE up gauge\nup 1\n")
    probe = ServerMetricsProbe("u", fake)
    scrapes, notices = _read_all(probe, 2)
    assert scrapes == [None, None] and fake.calls == 1 and "no sglang: metrics" in (notices[0] or "")


def test_a_timeout_skips_that_read_and_the_next_one_asks_again():
    page = "\n".join(_family("time_to_first_token_seconds", {0.2: 1})) + "\n"
    fake = _Scripted(Exception("no answer from u within 5 s"), page, Exception("no answer again"), page)
    probe = ServerMetricsProbe("u", fake)
    scrapes, notices = _read_all(probe, 4)
    assert scrapes[0] is None and scrapes[2] is None
    assert scrapes[1] is not None and scrapes[1].histograms["time_to_first_token_seconds"].count == 1
    assert fake.calls == 4 and probe.absent is None
    assert [n is not None for n in notices] == [True, False, False, False]  # said once per sweep


@pytest.mark.parametrize("pair", ["sglang-0.4-dp2", "router-sglang_"])
def test_the_figures_are_the_metrics_panes_for_the_same_two_scrapes(pair: str):
    # two successive pages in SGLang's shapes (tests/data/metrics, bounds of collector.py;
    # dp 2 x tp 2 ranks, or the router's sglang_ re-export): the point's figures are what the
    # metrics pane (live/metrics/server_metrics.py) shows over the window between the same scrapes
    from pathlib import Path

    from cockpit.live.metrics.server_metrics import ServerMetricsFold

    data = Path(__file__).resolve().parents[2] / "data" / "metrics"
    a, b = (sglang_scrape(parse_exposition((data / f"{pair}-{x}.txt").read_text())) for x in "ab")
    fold = ServerMetricsFold(window_s=60)
    fold.add(a, 0.0)
    pane = fold.add(b, 10.0).latency
    fields = _figures(window_fields(a, b))
    assert set(fields) == {"server_ttft_p50_ms", "server_ttft_p99_ms", "server_itl_p50_ms", "server_itl_p99_ms"}
    for short in ("ttft", "itl"):
        for q in ("p50", "p99"):
            assert fields[f"server_{short}_{q}_ms"] == pytest.approx(pane[short][q] * 1000, abs=1e-3)
    assert fields["server_ttft_p50_ms"] < fields["server_ttft_p99_ms"]
