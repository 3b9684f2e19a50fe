"""What the Benchmarks chart and the compare screen compute: series per profile, best per
concurrency, target levels, axis ticks, A/B rows with the change in %."""

from __future__ import annotations

import math

import pytest

from cockpit.model.bench.compare import compare_rows, default_pair, step
from cockpit.model.bench.series import (
    CHART_METRICS,
    NO_PROFILE,
    Best,
    chart_data,
    next_metric,
    short_number,
    value_ticks,
    x_of,
)
from cockpit.model.enums import Comparator, Metric, ProfileStatus
from cockpit.model.session import Benchmark, Goal, LaunchProfile, Session, Target


def _profile(ident: str, name: str = "", status: ProfileStatus = ProfileStatus.CANDIDATE) -> LaunchProfile:
    return LaunchProfile(id=ident, name=name or f"profile {ident}", command="python -m sglang.launch_server",
                         status=status)


def _session(*benches: tuple[str | None, int | None, float | None], targets: list[Target] | None = None,
             profiles: tuple[str, ...] = ("l1", "l2", "l3")) -> Session:
    """`benches`: (profile, concurrency, total tok/s); output tok/s is half the total."""
    return Session(
        goal=Goal(targets=targets or []),
        launch=[_profile(p) for p in profiles],
        benchmarks=[Benchmark(id=f"b{i}", label=f"run {i}", profile=p, concurrency=c, total_tok_s=t,
                              output_tok_s=None if t is None else t / 2)
                    for i, (p, c, t) in enumerate(benches, start=1)],
    )


def test_a_line_per_profile_in_the_sessions_order_with_points_by_concurrency():
    s = _session(("l2", 8, 800.0), ("l1", 4, 300.0), ("l2", 1, 100.0), ("l1", 1, 90.0))
    data = chart_data(s, Metric.TOTAL_TOK_S)
    assert [line.key for line in data.series] == ["l1", "l2"]  # l3 has no runs: no line
    assert [(p.concurrency, p.value) for p in data.series[1].points] == [(1, 100.0), (8, 800.0)]
    assert data.concurrencies == (1, 4, 8)
    assert data.series[0].name == "profile l1"


def test_reruns_make_one_point_at_their_median_with_the_spread_never_the_best_run():
    s = _session(("l1", 4, 300.0), ("l1", 4, 350.0), ("l1", 4, 320.0))
    (line,) = chart_data(s).series
    (point,) = line.points
    assert (point.value, point.bench_id, point.n) == (320.0, "b3", 3)  # b2's 350 is one lucky run
    assert 300.0 <= point.low <= 320.0 <= point.high <= 350.0  # the bootstrap interval of the median


def test_runs_without_a_concurrency_or_a_value_are_counted_not_plotted():
    s = _session(("l1", None, 300.0), ("l1", 2, None), ("l1", 2, 50.0))
    data = chart_data(s)
    assert data.unplotted == 2
    assert [p.value for p in data.series[0].points] == [50.0]


def test_runs_without_a_profile_make_one_more_line_at_the_end():
    s = _session((None, 2, 10.0), ("l1", 2, 5.0))
    data = chart_data(s)
    assert [line.key for line in data.series] == ["l1", NO_PROFILE]
    assert data.series[1].name == "(no profile)"


def test_the_metric_changes_what_is_plotted_and_per_stream_follows_from_output():
    s = _session(("l1", 4, 400.0))
    assert chart_data(s, Metric.TOTAL_TOK_S).series[0].points[0].value == 400.0
    assert chart_data(s, Metric.OUTPUT_TOK_S).series[0].points[0].value == 200.0
    assert chart_data(s, Metric.OUTPUT_TOK_S_PER_STREAM).series[0].points[0].value == 50.0


def test_the_metric_cycles_total_output_per_stream():
    assert [next_metric(m) for m in CHART_METRICS] == [Metric.OUTPUT_TOK_S, Metric.OUTPUT_TOK_S_PER_STREAM,
                                                      Metric.TOTAL_TOK_S]
    assert next_metric(Metric.TTFT_MS) == Metric.TOTAL_TOK_S


def test_the_best_profile_per_concurrency_and_its_runs():
    s = _session(("l1", 1, 100.0), ("l2", 1, 90.0), ("l1", 2, 150.0), ("l2", 2, 180.0),
                 ("l3", 4, 10.0), ("l2", 4, 200.0), ("l1", 8, 400.0))
    data = chart_data(s)
    assert data.best == (Best(1, "l1", 100.0), Best(2, "l2", 180.0), Best(4, "l2", 200.0), Best(8, "l1", 400.0))
    assert data.best_runs() == ((1, 1, "l1"), (2, 4, "l2"), (8, 8, "l1"))
    assert data.best_count("l2") == 2 and data.best_count("l3") == 0


def test_a_tie_goes_to_the_profile_listed_first():
    s = _session(("l2", 1, 100.0), ("l1", 1, 100.0))
    assert chart_data(s).best == (Best(1, "l1", 100.0),)


def test_targets_on_the_shown_metric_become_levels_over_their_range():
    targets = [
        Target(id="g1", metric=Metric.TOTAL_TOK_S, value=1000.0, unit="tok/s"),
        Target(id="g2", metric=Metric.OUTPUT_TOK_S_PER_STREAM, value=100.0, concurrency_min=1, concurrency_max=2),
        Target(id="g3", metric=Metric.TTFT_MS, comparator=Comparator.LE, value=200.0),
    ]
    s = _session(("l1", 1, 1200.0), targets=targets)
    total = chart_data(s, Metric.TOTAL_TOK_S)
    assert [(t.target_id, t.value, t.low, t.high, t.met) for t in total.targets] == [("g1", 1000.0, None, None, True)]
    assert total.targets[0].text == "≥ 1,000 tok/s"
    per_stream = chart_data(s, Metric.OUTPUT_TOK_S_PER_STREAM)
    (g2,) = per_stream.targets
    assert (g2.low, g2.high, g2.met, g2.text) == (1, 2, True, "≥ 100 tok/s at 1..2")  # 600 tok/s at 1 stream
    assert chart_data(s, Metric.OUTPUT_TOK_S).targets == ()


def test_the_value_axis_fits_points_and_targets():
    s = _session(("l1", 1, 300.0), targets=[Target(id="g1", metric=Metric.TOTAL_TOK_S, value=1000.0)])
    assert chart_data(s).y_max() == 1000.0
    assert chart_data(_session()).empty


def test_concurrency_sits_on_a_log2_axis():
    assert [x_of(c) for c in (1, 2, 1024)] == [0.0, 1.0, 10.0]
    assert math.isclose(x_of(3), math.log2(3))


@pytest.mark.parametrize("most", [2, 3, 5, 7, 12, 20])
def test_x_ticks_keep_the_first_and_last_and_never_exceed_the_room(most):
    conc = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048)
    data = chart_data(_session(*(("l1", c, float(c)) for c in conc)))
    ticks = data.ticks(most)
    assert len(ticks) <= most
    assert ticks[0] == 1 and ticks[-1] == 2048
    assert list(ticks) == sorted(set(ticks))
    if most >= len(conc):
        assert ticks == conc
    else:  # evenly spaced from the high end; only the gap after the first may be shorter
        gaps = {conc.index(b) - conc.index(a) for a, b in zip(ticks[1:], ticks[2:])}
        assert len(gaps) <= 1


@pytest.mark.parametrize("top", [0.3, 1.0, 8.0, 99.0, 100.0, 3740.0, 49152.0, 1e6])
def test_value_ticks_are_round_start_at_zero_and_reach_the_top(top):
    ticks = value_ticks(top, 5)
    assert ticks[0] == 0 and ticks[-1] >= top and 2 <= len(ticks) <= 5
    step_ = ticks[1]
    assert all(math.isclose(b - a, step_) for a, b in zip(ticks, ticks[1:]))
    mantissa = step_ / 10 ** math.floor(math.log10(step_))
    assert any(math.isclose(mantissa, m) for m in (1, 2, 2.5, 5))


def test_axis_numbers_are_short():
    assert [short_number(v) for v in (0, 12.5, 999, 1500, 20000, 2_500_000)] == [
        "0", "12.5", "999", "1.5k", "20k", "2.5M"]


# ----- compare ------------------------------------------------------------------------------------
def test_compare_rows_give_a_b_and_the_change_per_concurrency():
    s = _session(("l1", 1, 100.0), ("l2", 1, 110.0), ("l1", 4, 400.0), ("l2", 8, 700.0), ("l1", 4, 380.0))
    rows = compare_rows(s, "l1", "l2", Metric.TOTAL_TOK_S)
    # l1's two runs at c=4 make one point at their median (390), not the better run
    assert [(r.concurrency, r.a, r.b) for r in rows] == [(1, 100.0, 110.0), (4, 390.0, None), (8, None, 700.0)]
    assert rows[0].change == pytest.approx(0.10)
    assert rows[1].change is None and rows[2].change is None
    worse = compare_rows(s, "l2", "l1", Metric.TOTAL_TOK_S)[0]
    assert worse.change == pytest.approx(-10 / 110)


def test_compare_follows_the_metric_and_a_profile_without_runs_is_all_gaps():
    s = _session(("l1", 2, 100.0))
    (row,) = compare_rows(s, "l1", "l3", Metric.OUTPUT_TOK_S_PER_STREAM)
    assert (row.a, row.b, row.change) == (25.0, None, None)


def test_the_pair_a_compare_opens_on():
    s = Session(launch=[_profile("l1"), _profile("l2", status=ProfileStatus.WORKING), _profile("l3")])
    assert default_pair(s, "l3") == ("l2", "l3")  # the working profile against the selected one
    assert default_pair(s, "l3", base="l1") == ("l1", "l3")  # the diff base wins
    assert default_pair(s, "l2") == ("l2", "l3")  # selected is A: B is the next one
    assert default_pair(s, None) == ("l2", "l3")
    assert default_pair(Session(launch=[_profile("l1")]), "l1") is None


def test_stepping_a_profile_wraps_and_passes_over_the_other_side():
    ids = ["l1", "l2", "l3"]
    assert step(ids, "l1", 1, skip="l2") == "l3"
    assert step(ids, "l3", 1, skip="l2") == "l1"
    assert step(ids, "l1", -1) == "l3"
    assert step(ids, "gone", 1) == "l1"
    assert step(ids, "gone", 1, skip="l1") == "l2", "a gone side never lands on the other one"
    assert step([], "gone", 1) == "gone"


@pytest.mark.parametrize(("low", "high", "most", "want"), [
    (2981.2, 4547.2, 5, (3000.0, 3500.0, 4000.0, 4500.0)),
    (9.84, 11.89, 4, (10.0, 11.0)),
    (0.44, 0.502, 3, (0.45, 0.5)),
    (7.0, 7.0, 5, (7.0,)),
])
def test_span_ticks_are_round_levels_inside_the_values(low, high, most, want):
    """The Search view's scatter: its axes read 3k 3.5k 4k 4.5k, not plotext's 2981.2 3372.7."""
    from cockpit.model.bench.series import span_ticks

    ticks = span_ticks(low, high, most)
    assert ticks == want
    assert all(low <= t <= high for t in ticks) and len(ticks) <= most
    assert [short_number(t) for t in span_ticks(2981.2, 4547.2)] == ["3k", "3.5k", "4k", "4.5k"]
