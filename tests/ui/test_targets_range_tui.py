"""The targets strip and the Goal tab name the run that breaks a target held over a range."""

from __future__ import annotations

from tui_campaign import build_session
from tui_support import make_app, screen_text

from cockpit.model.enums import Comparator, Metric
from cockpit.model.search.scoring import score_trial
from cockpit.model.search.search import Search, SearchTrial, TrialStatus
from cockpit.model.session import Benchmark, Sweep, Target
from cockpit.store.handoff.markdown import render_handoff
from cockpit.store.toml_store import load_session, save_session


async def test_a_latency_ceiling_broken_at_c32_shows_a_cross_naming_that_run(tmp_path):
    session = build_session()
    session.goal.targets = [Target(id="g1", metric="ttft_ms", comparator=Comparator.LE, value=2000,
                                   concurrency_min=1, concurrency_max=64, label="TTFT")]
    session.benchmarks = [
        Benchmark(id="b1", label="c=2 chat", profile="l1", concurrency=2, ttft_ms=400),
        Benchmark(id="b2", label="c=32 chat", profile="l1", concurrency=32, ttft_ms=5000),
    ]
    path = tmp_path / "campaign.toml"
    save_session(session, path)
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        # the label, then the figure with its statistic: an old `ttft_ms` target reads as the mean it is
        assert "✗ TTFT (TTFT mean) ≤2,000 ms: 5,000 ms" in text and "b2 at c=32 breaks it" in text, text
        await pilot.press("2")
        await pilot.pause()
        app.screen.query_one("#setup-list").highlighted = 1 + 1  # goal, heading, g1
        await pilot.pause()
        text = screen_text(app)
        assert "Broken by b2 c=32 chat (profile l1) at concurrency 32: 5,000" in text, text
        assert "judged on each run's TTFT mean (the bench client)" in text, text
        assert "Estimate 5,000 ms (one run, no spread)" in text, text
        await pilot.press("4")
        await pilot.pause()
        row = next(line for line in screen_text(app).splitlines() if "c=32 chat" in line)
        assert "✗ g1" in row, row


async def test_a_p99_target_is_judged_on_p99_in_the_strip_goal_tab_handoff_and_search(tmp_path):
    """The issue's case: a run whose TTFT mean (30.75 ms) meets 40 ms and whose p99 (46.6 ms)
    does not, re-run once (p99 47.0). "TTFT p99 ≤ 40" is broken wherever it is read: the strip,
    the Goal tab, the handoff's targets and the search held to it; the same figures under an old
    mean target meet it, labelled "mean"."""
    session = build_session()
    session.goal.targets = [Target(id="g1", metric=Metric.TTFT_P99_MS, comparator=Comparator.LE, value=40),
                            Target(id="g2", metric="ttft_ms", comparator=Comparator.LE, value=40)]
    session.benchmarks = [
        Benchmark(id="b1", label="c=4 chat", profile="l1", concurrency=4, ttft_ms=30.75, ttft_p99_ms=46.6,
                  output_tok_s=900.0),
        Benchmark(id="b2", label="c=4 chat again", profile="l1", concurrency=4, ttft_ms=31.0, ttft_p99_ms=47.0,
                  output_tok_s=920.0),
    ]
    session.sweeps = [Sweep(id="s1", name="c4", concurrencies=[4])]
    search = Search(id="q1", name="q", profile="l1", sweep="s1", constraints=["g1"], space={"--a": [1, 2]})
    score = score_trial(session, search, ["b1", "b2"])
    session.searches = [search.model_copy(update={"trial": [SearchTrial(
        number=0, params={"--a": 1}, status=TrialStatus.OK, value=score.value, constraints=score.constraints,
        profile="l1", benchmarks=["b1", "b2"])]})]
    path = tmp_path / "campaign.toml"
    save_session(session, path)
    app = make_app(path)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "✗ TTFT p99 ≤40 ms: 46.8 ms median of 2 [46.6–47]" in text, text  # the strip, on p99
        assert "✓ TTFT mean ≤40 ms: 30.88 ms median of 2 [30.75–31]" in text, text  # the old target: the mean, said
        await pilot.press("2")
        await pilot.pause()
        app.screen.query_one("#setup-list").highlighted = 2  # goal, heading, g1
        await pilot.pause()
        text = screen_text(app)
        assert "judged on each run's TTFT p99 (the bench client)" in text, text
        assert "Estimate 46.8 ms median (n=2, 46.6–47)" in text, text
    handoff = render_handoff(load_session(path))
    p99_row = next(line for line in handoff.splitlines() if line.startswith("| TTFT p99 ≤ 40 ms"))
    assert "| 46.8 ms median (n=2, 46.6–47) |" in p99_row and "| not met |" in p99_row, p99_row
    mean_row = next(line for line in handoff.splitlines() if line.startswith("| TTFT mean ≤ 40 ms"))
    assert "| met |" in mean_row, mean_row
    # the search held to g1: its constraint is judged on the median p99, so nothing is "best"
    assert score.constraints[0] > 0
    assert "No configuration has met the constraints yet." in handoff
