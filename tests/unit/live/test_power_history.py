"""PowerHistory: bounded per-GPU series, the total against the limit, headroom, tokens/J."""

from __future__ import annotations

import pytest

from cockpit.live.gpu.power_history import Headroom, PowerHistory, headroom_of, tokens_per_joule
from cockpit.parse.gpu.events import GpuSamplesTaken
from cockpit.parse.gpu.sample import GpuSample


def gpu(i: int, w: float | None, limit: float | None = 300.0, host: str | None = "h", t: float = 0.0) -> GpuSample:
    return GpuSample(index=i, power_w=w, power_limit_w=limit, host=host, timestamp=t)


def test_the_total_reads_as_draw_of_limit():
    ph = PowerHistory()
    ph.add([gpu(0, 150.4), gpu(1, 179.6)])
    assert ph.total_draw_w() == pytest.approx(330.0)
    assert ph.total_limit_w() == 600.0
    assert ph.headline() == "330 W of 600 W"


def test_the_headline_switches_to_kilowatts_for_big_fleets():
    ph = PowerHistory()
    ph.add([gpu(i, 650.0, 700.0, host=f"n{i // 8}") for i in range(16)])
    assert ph.headline() == "10.4 kW of 11.2 kW"
    assert ph.headline(host="n0") == "5200 W of 5600 W"


def test_unknown_figures_show_as_question_marks():
    ph = PowerHistory()
    ph.add([gpu(0, None, None)])
    assert ph.total_draw_w() is None and ph.headline() == "? W of ? W"


@pytest.mark.parametrize(
    ("w", "limit", "cls"),
    [(100, 300, Headroom.STARVED), (179.9, 300, Headroom.STARVED), (180, 300, Headroom.OK),
     (270, 300, Headroom.OK), (271, 300, Headroom.NEAR_LIMIT), (None, 300, Headroom.UNKNOWN),
     (100, None, Headroom.UNKNOWN), (100, 0, Headroom.UNKNOWN)],
)
def test_headroom_classes(w, limit, cls):
    assert headroom_of(w, limit) is cls


def test_headroom_per_gpu_from_the_latest_sample():
    ph = PowerHistory()
    ph.add([gpu(0, 100), gpu(1, 200), gpu(2, 290)])
    assert ph.headrooms() == {("h", 0): Headroom.STARVED, ("h", 1): Headroom.OK, ("h", 2): Headroom.NEAR_LIMIT}
    assert ph.headroom(("h", 9)) is Headroom.UNKNOWN


def test_history_is_bounded_and_keeps_the_newest():
    ph = PowerHistory(maxlen=5)
    for t in range(20):
        ph.add([gpu(0, float(t), t=float(t))])
    assert ph.series(("h", 0)) == [(float(t), float(t)) for t in range(15, 20)]
    assert len(ph.total_series()) == 5
    assert ph.mean_power_w(("h", 0), window_s=2) == 18.0


def test_hosts_are_kept_apart_and_can_be_forgotten():
    ph = PowerHistory()
    ph.add_event(GpuSamplesTaken("a", (gpu(0, 100, host="a"),), 1.0))
    ph.add_event(GpuSamplesTaken("b", (gpu(0, 200, host="b"),), 1.5))
    assert ph.gpus == [("a", 0), ("b", 0)]
    assert ph.total_draw_w() == 300 and ph.total_draw_w(host="a") == 100
    assert ph.total_series() == [(1.0, 100.0), (1.5, 300.0)]
    ph.forget("a")
    assert ph.gpus == [("b", 0)] and ph.total_draw_w() == 200


def test_tokens_per_joule_integrates_both_series_on_the_shared_span():
    power = [(0.0, 500.0), (10.0, 500.0)]  # 5 kJ over 10 s
    throughput = [(0.0, 1000.0), (10.0, 1000.0)]  # 10k tokens over 10 s
    assert tokens_per_joule(throughput, power) == pytest.approx(2.0)
    # throughput known only on 5..10 s: the span shrinks to it
    assert tokens_per_joule([(5.0, 2000.0), (10.0, 2000.0)], power) == pytest.approx(4.0)
    # a ramp: mean throughput 500 tok/s against 250 W
    assert tokens_per_joule([(0.0, 0.0), (10.0, 1000.0)], [(0.0, 250.0), (5.0, 250.0), (10.0, 250.0)]) == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("th", "pw"),
    [([], [(0.0, 1.0), (1.0, 1.0)]), ([(0.0, 1.0), (1.0, 1.0)], [(5.0, 1.0), (6.0, 1.0)]),
     ([(0.0, 1.0), (1.0, 1.0)], [(0.0, 0.0), (1.0, 0.0)])],
    ids=["no-throughput", "no-overlap", "no-power"],
)
def test_tokens_per_joule_is_none_without_an_answer(th, pw):
    assert tokens_per_joule(th, pw) is None


def test_tokens_per_joule_from_the_history_uses_the_total():
    ph = PowerHistory()
    for t in range(11):
        ph.add([gpu(0, 200.0, t=float(t)), gpu(1, 300.0, t=float(t))])
    assert ph.tokens_per_joule([(0.0, 1500.0), (10.0, 1500.0)]) == pytest.approx(3.0)
