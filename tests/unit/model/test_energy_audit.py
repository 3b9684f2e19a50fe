"""Energy over a window (model/bench/energy_audit.py): power integrated over time on the
samples' own timestamps, the energy counter over the same span, coverage and its flags, and
the steady-state window by both of its definitions. Pure arithmetic: the truths here are
worked out by hand or from a closed-form power curve."""

from __future__ import annotations

import math

import pytest

from cockpit.model.bench.energy_audit import (
    MAX_DISAGREEMENT,
    PowerSample,
    audit_window,
    counter_span,
    integrate,
    replay_closed_loop,
    steady_from_first_tokens,
    steady_from_running,
    tokens_between,
)


def _with_counter(points: list[tuple[float, float]], start_j: float = 5_000.0) -> list[PowerSample]:
    """Samples whose counter is the trapezoid integral of their own draw (a counter that
    agrees with the samples exactly)."""
    out, energy = [], start_j
    for i, (t, w) in enumerate(points):
        if i:
            t0, w0 = points[i - 1]
            energy += (t - t0) * (w0 + w) / 2
        out.append(PowerSample(t, w, energy))
    return out


def test_uneven_samples_are_integrated_over_time_not_averaged():
    # 100 W for 9 s sampled once a second, then 700 W for 1 s sampled every 0.1 s: a mean
    # of samples gives the busy second 10 of 20 votes
    points = [(float(t), 100.0) for t in range(10)] + [(9.0 + k / 10, 700.0) for k in range(1, 11)]
    joules, spanned, covered = integrate([PowerSample(t, w) for t, w in points], 0.0, 10.0)
    truth = 9 * 100 + 0.1 * (100 + 700) / 2 + 0.9 * 700  # the first 0.1 s of the last second ramps
    assert joules == pytest.approx(truth)
    assert spanned == pytest.approx(10.0)
    assert joules / spanned == pytest.approx(157.0)
    assert sum(w for _, w in points) / len(points) == pytest.approx(400.0)  # what averaging samples says


def test_window_edges_are_cut_between_samples_and_nothing_is_extrapolated():
    samples = [PowerSample(0.0, 100.0), PowerSample(2.0, 300.0), PowerSample(4.0, 300.0)]
    joules, spanned, _ = integrate(samples, 1.0, 3.0)
    assert joules == pytest.approx(1.0 * (200 + 300) / 2 + 1.0 * 300)  # the draw at 1.0 s is 200 W
    assert spanned == pytest.approx(2.0)
    joules, spanned, _ = integrate(samples, 3.0, 10.0)  # past the last sample: not counted
    assert joules == pytest.approx(300.0) and spanned == pytest.approx(1.0)
    assert integrate(samples, 5.0, 6.0)[0] is None


def test_a_counter_that_agrees_gives_no_flag_and_the_check_says_so():
    samples = _with_counter([(t / 10, 300 + 200 * math.sin(t / 7)) for t in range(0, 301)])
    w = audit_window(samples, 5.0, 25.0, source="nvml every 0.1 s")
    assert w.valid and w.flags == ()
    assert w.disagreement == pytest.approx(0.0, abs=1e-9)
    assert w.counter_j == pytest.approx(samples[250].energy_j - samples[50].energy_j)
    assert w.coverage == pytest.approx(1.0)
    assert w.interval_s == pytest.approx(0.1)
    assert w.check_text() == "nvml every 0.1 s, 0.10 s interval, 100% covered, integral +0.0% vs energy counter"


def test_integral_and_counter_apart_by_more_than_two_percent_is_flagged():
    samples = _with_counter([(float(t), 400.0) for t in range(21)])
    # the counter saw 3 % more energy than the samples did (a missed spike between them)
    skewed = [PowerSample(s.t, s.watts, 5_000 + (s.energy_j - 5_000) * 1.03) for s in samples]  # type: ignore[operator]
    w = audit_window(skewed, 0.0, 20.0, source="dcgm")
    assert w.disagreement == pytest.approx(1 / 1.03 - 1)
    assert not w.valid
    assert w.flags == ("integral and energy counter differ by -2.9% (> 2%)",)
    near = [PowerSample(s.t, s.watts, 5_000 + (s.energy_j - 5_000) * 1.015) for s in samples]  # type: ignore[operator]
    assert audit_window(near, 0.0, 20.0, source="dcgm").valid  # 1.5 % is within MAX_DISAGREEMENT
    assert MAX_DISAGREEMENT == 0.02


def test_missing_samples_lower_the_coverage_and_flag_the_window():
    times = [float(t) for t in range(0, 21) if not 5 <= t <= 12]  # a 9 s hole (4 to 13) in a 1 s series
    w = audit_window([PowerSample(t, 250.0) for t in times], 0.0, 20.0, source="nvidia-smi")
    assert w.coverage == pytest.approx(11 / 20)
    assert w.mean_w == pytest.approx(250.0)  # the hole is bridged for the integral...
    assert w.flags == ("samples cover 55% of the window (< 90%)",)  # ...and said
    assert "no energy counter" in w.check_text()


def test_a_counter_that_goes_back_is_not_used():
    samples = [PowerSample(0.0, 100.0, 900.0), PowerSample(1.0, 100.0, 1000.0), PowerSample(2.0, 100.0, 50.0)]
    assert counter_span(samples, 0.0, 2.0) is None
    w = audit_window(samples, 0.0, 2.0, source="nvml")
    assert w.counter_j is None and not w.valid
    assert "energy counter unusable" in w.flags[0]


def test_a_counter_that_stands_still_under_load_is_flagged():
    samples = [PowerSample(float(t), 500.0, 1234.0) for t in range(5)]  # a replayed exporter page, say
    w = audit_window(samples, 0.0, 4.0, source="dcgm")
    assert w.counter_j == 0.0 and w.disagreement is None
    assert w.flags == ("energy counter did not move while power was drawn",)


def test_window_energy_and_tokens_per_joule_cover_the_whole_window():
    w = audit_window([PowerSample(0.5, 200.0), PowerSample(9.5, 200.0)], 0.0, 10.0, source="nvml")
    assert w.joules == pytest.approx(1800.0) and w.window_j == pytest.approx(2000.0)
    assert w.tok_per_joule(4000) == pytest.approx(2.0)


def test_steady_window_from_first_tokens_is_the_b_th_to_the_n_minus_b_th():
    firsts = [0.9, 0.1, 0.2, 0.5, 0.7, 0.3, 0.4, 0.8, 0.6, 1.0]  # N = 10, any order
    assert steady_from_first_tokens(firsts, 2) == (0.2, 0.8)
    assert steady_from_first_tokens(firsts, 5) is None  # B-th and (N-B)-th cross
    assert steady_from_first_tokens(firsts[:3], 1) == (0.1, 0.2)


def test_closed_loop_replay_places_each_request_after_the_one_it_waited_for():
    # concurrency 2: requests 0 and 1 start at once; 2 takes 1's slot (free at 0.3), 3 takes 2's
    # (free at 0.45, before 0 ends at 0.5)
    ttfts = [0.1, 0.1, 0.05, 0.05]
    itls = [[0.2, 0.2], [0.1, 0.1], [0.1], [0.1]]
    reqs = replay_closed_loop(ttfts, itls, 2, output_lens=[6, 3, 2, 2])
    assert [round(r.start, 3) for r in reqs] == [0.0, 0.0, 0.3, 0.45]
    assert [round(r.first_token, 3) for r in reqs] == [0.1, 0.1, 0.35, 0.5]
    assert reqs[0].tokens_per_chunk == 2.0  # 6 tokens in 3 chunks
    # tokens that arrived in [0.25, 0.46]: request 0's at 0.3 (a chunk of 2), 1's at 0.3, 2's at 0.35 and 0.45
    assert tokens_between(reqs, 0.25, 0.46) == pytest.approx(2 + 1 + 2)


def test_steady_window_from_running_count_is_the_full_batch_span():
    points = [(0.0, 1), (1.0, 4), (2.0, 8), (3.0, 8), (4.0, 7), (5.0, 8), (6.0, 3), (7.0, 0)]
    assert steady_from_running(points, 8) == (2.0, 5.0)
    assert steady_from_running(points, 16) == (2.0, 5.0)  # a server that never ran 16: its most
    assert steady_from_running(points) == (2.0, 5.0)
    assert steady_from_running([(0.0, 8)], 8) is None
    assert steady_from_running([], 8) is None


def test_a_coverage_just_under_the_line_reads_under_it():
    """89.6 % covered is flagged (< 90 %) and says 89 %, never the 90 % that rounding would show."""
    samples = [PowerSample(float(t), 300.0) for t in range(21) if t != 5]  # a 2 s hole over [4, 6]
    w = audit_window(samples, 0.0, 19.25, source="nvml")
    assert w.coverage == pytest.approx(17.25 / 19.25)
    assert w.check_text() == ("nvml, 1.00 s interval, 89% covered, no energy counter; "
                              "flagged: samples cover 89% of the window (< 90%)")


def test_an_averaged_draw_placed_at_the_middle_of_its_second_agrees_with_the_counter() -> None:
    """A GPU that steps from 100 W to 700 W at t = 12 s (a ramp's worth of change), read as
    NVML reads it on Ampere and later: the mean of the second before each 0.1 s tick. Its
    counter is exact. At its timestamp the averaged draw trails the counter by half a second
    of the step; at the middle of its second (`watts_at`) it agrees."""

    def energy(t: float) -> float:  # closed form of the step's integral from 0
        return 100.0 * min(t, 12.0) + 700.0 * max(0.0, t - 12.0)

    def trailing_mean(t: float) -> float:
        return (energy(t) - energy(t - 1.0)) / 1.0

    ticks = [round(5.0 + 0.1 * i, 1) for i in range(150)]
    at_stamp = [PowerSample(t, trailing_mean(t), energy(t)) for t in ticks]
    centred = [PowerSample(t, trailing_mean(t), energy(t), watts_at=t - 0.5) for t in ticks]
    lagged = audit_window(at_stamp, 10.0, 15.0, source="nvml")
    placed = audit_window(centred, 10.0, 15.0, source="nvml")
    assert lagged.disagreement is not None and lagged.disagreement < -0.05
    assert placed.disagreement is not None and abs(placed.disagreement) < 0.002
    assert placed.valid and not lagged.valid
