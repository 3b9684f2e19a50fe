"""The targets strip and the Goal tab name the run that breaks a target held over a range."""

from __future__ import annotations

from tui_campaign import build_session
from tui_support import make_app, screen_text

from cockpit.model.enums import Comparator
from cockpit.model.session import Benchmark, Target
from cockpit.store.toml_store import save_session


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
