"""A target over a concurrency range holds at every run of a profile in it; throughput floors take the best run."""

from __future__ import annotations

from cockpit.model.bench.targets import score_target
from cockpit.model.enums import Comparator
from cockpit.model.session import Benchmark, LaunchProfile, Session, Target
from cockpit.store.handoff.markdown import render_handoff


def _bench(ident: str, concurrency: int, profile: str | None = "l1", **figures: float) -> Benchmark:
    return Benchmark(id=ident, label=f"c={concurrency}", concurrency=concurrency, profile=profile, **figures)


TTFT = Target(id="g1", metric="ttft_ms", comparator=Comparator.LE, value=2000, concurrency_min=1, concurrency_max=64)


def test_a_latency_ceiling_is_broken_by_any_run_in_range():
    score = score_target(TTFT, [_bench("b1", 2, ttft_ms=400), _bench("b2", 32, ttft_ms=5000)])
    assert not score.met
    assert score.breaking is not None and score.breaking.id == "b2" and score.best_value == 5000
    assert score.breaking_text() == "b2 at c=32: 5,000 ms (one run, no spread)"


def test_a_run_outside_the_range_does_not_break_it():
    score = score_target(TTFT, [_bench("b1", 2, ttft_ms=400), _bench("b2", 128, ttft_ms=9000),
                                _bench("b3", 16, ttft_ms=1500)])
    assert score.met and score.breaking is None
    assert (score.best.id, score.best_value, score.runs) == ("b3", 1500, 2), "the worst run in range stands"


def test_a_profile_whose_every_run_meets_it_meets_the_target():
    benches = [_bench("b1", 2, "l1", ttft_ms=400), _bench("b2", 32, "l1", ttft_ms=5000),
               _bench("b3", 2, "l2", ttft_ms=900), _bench("b4", 32, "l2", ttft_ms=1900)]
    score = score_target(TTFT, benches)
    assert score.met and score.best.id == "b4" and score.best_value == 1900


def test_when_no_profile_meets_it_the_closest_profile_names_its_breaking_run():
    benches = [_bench("b1", 8, "l1", ttft_ms=4000), _bench("b2", 8, "l2", ttft_ms=2500),
               _bench("b3", 4, "l2", ttft_ms=300)]
    score = score_target(TTFT, benches)
    assert not score.met and score.breaking.id == "b2"


def test_a_per_stream_speed_floor_holds_per_run():
    target = Target(id="g2", metric="output_tok_s_per_stream", value=30, concurrency_min=1, concurrency_max=64)
    score = score_target(target, [_bench("b1", 1, output_tok_s=120), _bench("b2", 32, output_tok_s=320)])
    assert not score.met and score.breaking.id == "b2" and score.best_value == 10


def test_a_throughput_floor_keeps_the_best_run():
    target = Target(id="g3", metric="total_tok_s", value=5000, concurrency_min=1, concurrency_max=64)
    score = score_target(target, [_bench("b1", 1, total_tok_s=300), _bench("b2", 64, total_tok_s=6000)])
    assert score.met and score.best.id == "b2" and score.breaking is None


def test_a_target_without_a_range_keeps_the_best_run():
    target = Target(id="g4", metric="ttft_ms", comparator=Comparator.LE, value=2000)
    score = score_target(target, [_bench("b1", 2, ttft_ms=400), _bench("b2", 32, ttft_ms=5000)])
    assert score.met and score.best.id == "b1"


def test_the_handoff_names_the_run_that_breaks_it():
    session = Session(launch=[LaunchProfile(id="l1", name="tp8", command="python -m sglang.launch_server")],
                      benchmarks=[_bench("b1", 2, ttft_ms=400), _bench("b2", 32, ttft_ms=5000)])
    session.goal.targets = [TTFT]
    text = render_handoff(session)
    row = next(line for line in text.splitlines() if line.startswith("| TTFT mean"))
    assert "not met: b2 at concurrency 32 breaks it" in row and "| 5,000 ms (one run, no spread) |" in row
