"""Compare on any recorded figure (issue 23, item 2): latencies pick a profile's lowest run
per concurrency and call a lower B better; tok/J and power read their own fields; a compare
the app opens for the person pairs profiles that have runs."""

from __future__ import annotations

import pytest

from cockpit.model.bench.compare import COMPARE_FIGURES, compare_rows, default_pair, figure, next_figure
from cockpit.model.enums import Metric, ProfileStatus
from cockpit.model.session import Benchmark, LaunchProfile, Session


def _p(ident: str, status: ProfileStatus = ProfileStatus.CANDIDATE) -> LaunchProfile:
    return LaunchProfile(id=ident, name=ident, command="python -m sglang.launch_server", status=status)


def _b(n: int, profile: str, c: int, **figures: float) -> Benchmark:
    return Benchmark(id=f"b{n}", label=f"run {n}", profile=profile, concurrency=c, **figures)


def test_every_figure_the_issue_names_can_be_compared():
    labels = [f.label for f in COMPARE_FIGURES]
    for wanted in ("total tok/s", "TTFT p50 ms", "TTFT p99 ms", "ITL p50 ms", "ITL p99 ms", "power W",
                   "tok/J total", "tok/J output"):
        assert wanted in labels
    seen, key = [], "total_tok_s"
    for _ in COMPARE_FIGURES:  # m walks every figure and comes back
        key = next_figure(key).key
        seen.append(key)
    assert sorted(seen) == sorted(f.key for f in COMPARE_FIGURES) and seen[-1] == "total_tok_s"
    assert figure(Metric.OUTPUT_TOK_S).label == "output tok/s"  # the chart's metric opens its figure


def test_a_latency_compares_each_profiles_median_and_a_lower_b_is_better_beyond_the_spread():
    s = Session(launch=[_p("l1"), _p("l2")], benchmarks=[
        _b(1, "l1", 8, ttft_p99_ms=900.0), _b(2, "l1", 8, ttft_p99_ms=700.0),  # a re-run: the median of the two
        _b(3, "l2", 8, ttft_p99_ms=350.0), _b(4, "l2", 16, ttft_p99_ms=2000.0)])
    rows = compare_rows(s, "l1", "l2", "ttft_p99_ms")
    assert [(r.concurrency, r.a, r.b) for r in rows] == [(8, 800.0, 350.0), (16, None, 2000.0)]
    assert rows[0].change == pytest.approx(-0.5625) and rows[0].b_is_better is True  # 450 ms > A's 200 ms spread
    assert compare_rows(s, "l2", "l1", "ttft_p99_ms")[0].b_is_better is False


def test_a_difference_inside_a_spread_is_within_noise_with_the_figures():
    s = Session(launch=[_p("l1"), _p("l2")], benchmarks=[
        _b(1, "l1", 8, total_tok_s=4211.0), _b(2, "l1", 8, total_tok_s=4427.0),
        _b(3, "l2", 8, total_tok_s=4400.0), _b(4, "l2", 8, total_tok_s=4500.0)])
    (row,) = compare_rows(s, "l1", "l2", "total_tok_s")
    assert row.b_is_better is None and row.within_noise
    assert row.verdict_text("tok/s") == ("within noise: +3.0% (4,450 vs 4,319 tok/s; spread B 100 (n=2), "
                                         "A 216 (n=2))")


def test_tok_per_joule_and_power_read_what_the_sweep_recorded():
    s = Session(launch=[_p("l1"), _p("l2")], benchmarks=[
        _b(1, "l1", 4, output_tok_per_joule=0.33, tok_per_joule=0.80, power_mean_w=650.0),
        _b(2, "l2", 4, output_tok_per_joule=0.41, tok_per_joule=0.95, power_mean_w=610.0)])
    (out,) = compare_rows(s, "l1", "l2", "output_tok_per_joule")
    assert (out.a, out.b, out.b_is_better) == (0.33, 0.41, True)
    (total,) = compare_rows(s, "l1", "l2", "tok_per_joule")
    assert (total.a, total.b) == (0.80, 0.95)
    (power,) = compare_rows(s, "l1", "l2", "power_mean_w")
    assert (power.a, power.b, power.b_is_better) == (650.0, 610.0, None)  # neither way is better alone


def test_the_pair_picked_for_the_person_has_runs_on_both_sides():
    launch = [_p("l1", ProfileStatus.WORKING), _p("l2", ProfileStatus.BROKEN), _p("l3")]
    s = Session(launch=launch, benchmarks=[_b(1, "l1", 1, total_tok_s=100.0), _b(2, "l3", 1, total_tok_s=120.0)])
    assert default_pair(s, "l1") == ("l1", "l3"), "the broken l2 has no runs: B skips it"
    assert default_pair(s, None) == ("l1", "l3")
    assert default_pair(s, "l2") == ("l1", "l2"), "a profile the person selected is kept"
    no_runs_working = Session(launch=launch, benchmarks=[_b(1, "l2", 1, total_tok_s=90.0),
                                                         _b(2, "l3", 1, total_tok_s=120.0)])
    assert default_pair(no_runs_working, None) == ("l2", "l3"), "a working profile with no runs is not A"
