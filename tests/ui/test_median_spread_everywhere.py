"""No view or decision takes a best-of-N: one profile swept twice, on two launches of the
STAND-IN SGLang server with different noise (tests/standin/sglang_server.py `--standin-noise`,
drawn once per launch), each sweep repeating every point (`repeats = 2`), then every consumer
read as a person sees it: the targets strip, the Goal tab, compare, the Benchmarks table, the
chart, the handoff and the search's best each show a point's median over its four runs with
the spread.

The expected figures are computed here from the recorded runs with `statistics.median`,
min and max; only the bootstrap interval's ends are read from the estimate module."""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from sweep_support import StandinServer, make_bench_python
from tui_support import make_app, screen_text, until

from cockpit.model.bench.estimate import estimate
from cockpit.model.bench.figures import format_value
from cockpit.model.enums import Comparator, Metric
from cockpit.model.search.scoring import certainty, objective_at
from cockpit.model.search.search import Search, SearchTrial, TrialStatus
from cockpit.model.session import Host, LaunchProfile, Session, Sweep, Target
from cockpit.store.handoff.markdown import render_handoff
from cockpit.store.toml_store import load_session, save_session
from cockpit.ui.screens.compare import CompareScreen
from cockpit.ui.screens.search import SearchScreen
from cockpit.ui.widgets.session.bench_chart import BenchChart

ROOT = Path(__file__).resolve().parents[2]
NOISE = "0.06"


def _sweep(path: Path, profile: str, seed: int, tok_s: float = 400) -> None:
    """One launch of the STAND-IN server (its own noise draw) and `cockpit sweep` on it."""
    srv = StandinServer(tok_s=tok_s, extra=("--standin-surface", "--standin-noise", NOISE, "--standin-seed", str(seed)))
    try:
        session = load_session(path)
        for p in session.launch:  # the profile names this launch's port, as a person's would
            if p.id == profile:
                p.command = f"python -m sglang.launch_server --model-path m --port {srv.port}"
        save_session(session, path)
        done = subprocess.run([sys.executable, "-m", "cockpit", "sweep", str(path), "s1", "--profile", profile,
                               "--yes"], capture_output=True, text=True, cwd=ROOT, stdin=subprocess.DEVNULL,
                              timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
    finally:
        srv.close()


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("spread")
    path = folder / "s.toml"
    python = make_bench_python(folder)
    session = Session(
        hosts=[Host(name="local", run_dir=str(folder / "runs"))],
        launch=[LaunchProfile(id="l1", name="base", host="local", python=python, command="x"),
                LaunchProfile(id="l2", name="other", host="local", python=python, command="x")],
        sweeps=[Sweep(id="s1", name="ramp", input_len=16, output_len=48, concurrencies=[1, 2],
                      prompts_per_concurrency=2, repeats=2)])
    session.goal.targets = [Target(id="g1", metric=Metric.TOTAL_TOK_S, value=10),
                            Target(id="g2", metric=Metric.TTFT_P99_MS, comparator=Comparator.LE, value=100_000,
                                   concurrency_min=1, concurrency_max=2)]
    save_session(session, path)
    _sweep(path, "l1", seed=1)
    _sweep(path, "l1", seed=2)  # the same profile again: another launch, another noise draw
    _sweep(path, "l2", seed=3, tok_s=250)  # another profile, slower: compare's B
    return path


def _runs(path: Path, profile: str, conc: int, metric: Metric) -> list[float]:
    return [v for b in load_session(path).benchmarks if b.profile == profile and b.concurrency == conc
            and (v := b.metric(metric)) is not None]


def _best_point(path: Path) -> tuple[str, int, list[float]]:
    """The (profile, concurrency) with the highest median total tok/s, and its runs."""
    points = [(p, c, _runs(path, p, c, Metric.TOTAL_TOK_S)) for p in ("l1", "l2") for c in (1, 2)]
    best = max(points, key=lambda pt: statistics.median(pt[2]))
    assert best[0] == "l1", points  # the profile swept twice (four runs a point) at 400 tok/s against 250
    return best


def test_the_sweeps_recorded_every_repeat_as_its_own_grouped_benchmark(swept: Path):
    session = load_session(swept)
    l1 = [b for b in session.benchmarks if b.profile == "l1"]
    assert len(l1) == 8 and len({b.sweep_run for b in l1}) == 2
    assert sorted((b.concurrency, b.repeat) for b in l1 if b.sweep_run == l1[0].sweep_run) == \
        [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert all(b.label.endswith((" r1", " r2")) for b in l1)
    values = _runs(swept, "l1", 2, Metric.TOTAL_TOK_S)
    assert len(values) == 4 and max(values) > min(values)  # the noise is there to see


async def test_strip_goal_tab_compare_and_table_show_the_median_and_spread(swept: Path):
    profile, conc, runs = _best_point(swept)
    median, low, high = statistics.median(runs), min(runs), max(runs)
    ci = estimate(runs).ci
    assert ci is not None and low <= ci[0] <= median <= ci[1] <= high
    said = f"{format_value(median, 'tok/s')} median of 4 [{format_value(ci[0])}–{format_value(ci[1])}]"
    app = make_app(swept)
    async with app.run_test(size=(220, 50)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert f"total tok/s ≥10 tok/s: {said}" in text, text  # the strip, never the best run
        assert format_value(max(runs), "tok/s") + " (" not in text

        await pilot.press("2")  # the Goal tab, target g1's detail
        await pilot.pause()
        app.screen.query_one("#setup-list").highlighted = 2
        await pilot.pause()
        text = screen_text(app)
        assert f"Estimate {format_value(median, 'tok/s')} median (n=4, {format_value(low)}–{format_value(high)}, " \
               f"95% CI {format_value(ci[0])}–{format_value(ci[1])})" in text, text

        await pilot.press("4")  # the Benchmarks table: each run beside its point's median and spread
        await pilot.pause()
        text = screen_text(app)
        assert "point: total tok/s median [spread] n" in text, text
        l1_c2 = _runs(swept, "l1", 2, Metric.TOTAL_TOK_S)
        est = estimate(l1_c2)
        cell = f"{format_value(statistics.median(l1_c2))} [{format_value(est.low)}–{format_value(est.high)}] n=4"
        rows = [line for line in text.splitlines() if "ramp c2 r" in line and " l1 " in line]
        assert len(rows) == 4 and all(cell in row for row in rows), (cell, rows)

        await pilot.press("v")  # the chart: each profile's point at its median, its spread as a bar
        await pilot.pause()
        text = screen_text(app)
        assert "a point is the median of its runs (up to 4), │ its spread" in text, text
        drawn = app.screen.query_one(BenchChart).data
        assert drawn is not None
        point = next(p for s in drawn.series if s.key == "l1" for p in s.points if p.concurrency == 2)
        assert (point.value, point.low, point.high, point.n) == (statistics.median(l1_c2), est.low, est.high, 4)
        assert point.value != max(l1_c2)  # never the luckiest run
        star = next(b for b in drawn.best if b.concurrency == 2)
        assert (star.key, star.value) == ("l1", statistics.median(l1_c2))  # the best profile by its median

        await pilot.press("c")  # compare l1 with l2 from the chart
        await until(lambda: isinstance(app.screen, CompareScreen), pilot)
        await pilot.pause()
        text = screen_text(app)
        assert "Compare total tok/s (median)" in text
        a = _runs(swept, app.screen.a, 2, Metric.TOTAL_TOK_S)
        ea = estimate(a)
        assert f"{format_value(statistics.median(a))} [{format_value(ea.low)}–{format_value(ea.high)}] n=4" in text, text
        b = _runs(swept, app.screen.b, 2, Metric.TOTAL_TOK_S)
        eb = estimate(b)
        row = next(line for line in text.splitlines() if line.lstrip("│ ").startswith("2 "))
        beyond = abs(statistics.median(b) - statistics.median(a)) > max(ea.width, eb.width)
        assert ("within noise" in row) is not beyond, row  # better only beyond both spreads


async def test_compare_at_80_columns_shows_each_points_spread_and_the_change_whole(swept: Path):
    """At 80x24 the launch diff goes under the table: beside it, `B vs A` was cut to `B v`
    once a point's runs were repeated (`21,934 [21,133–22,736] n=2`)."""
    app = make_app(swept)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("4", "c")
        await until(lambda: isinstance(app.screen, CompareScreen), pilot)
        await pilot.pause()
        text = screen_text(app)
        assert "B vs A" in text and "Launch diff A → B" in text, text
        a, b = (_runs(swept, who, 2, Metric.TOTAL_TOK_S) for who in (app.screen.a, app.screen.b))
        ea, eb = estimate(a), estimate(b)
        row = next(line for line in text.splitlines() if line.lstrip("│ ").startswith("2 "))
        for runs, est in ((a, ea), (b, eb)):
            assert f"{format_value(statistics.median(runs))} [{format_value(est.low)}–{format_value(est.high)}] n={est.n}" in row
        assert "%" in row, row  # the change, whole


def test_the_handoff_shows_each_points_median_and_spread(swept: Path):
    session = load_session(swept)
    text = render_handoff(session)
    profile, conc, runs = _best_point(swept)
    ci = estimate(runs).ci
    assert ci is not None
    row = next(line for line in text.splitlines() if line.startswith("| total tok/s ≥ 10 tok/s"))
    assert (f"| {format_value(statistics.median(runs), 'tok/s')} median (n=4, {format_value(min(runs))}–"
            f"{format_value(max(runs))}, 95% CI {format_value(ci[0])}–{format_value(ci[1])}) |") in row, row
    assert "Per point, over all its runs (median; n, min–max, 95% CI from 3 runs):" in text
    # TTFT p99 is judged on each run's p99: the target's row names the statistic
    assert "| TTFT p99 ≤ 100,000 ms at concurrency 1..2 (" in text


async def test_the_searchs_best_is_the_median_of_its_launches_with_the_spread(swept: Path, tmp_path: Path):
    # the two sweeps of l1 as two launches of one configuration (a trial and its relaunch)
    session = load_session(swept)
    search = Search(id="q1", name="q", profile="l1", sweep="s1", objective="total_tok_s", at_concurrency=2,
                    space={"--a": [1, 2]})
    launches = sorted({b.sweep_run for b in session.benchmarks if b.profile == "l1"})
    trials = []
    for number, run in enumerate(launches):
        benches = [b for b in session.benchmarks if b.sweep_run == run]
        value = objective_at(search, benches)
        # a trial's figure is its point's median over the sweep's repeats, not the better repeat
        assert value == statistics.median([b.total_tok_s for b in benches if b.concurrency == 2])
        trials.append(SearchTrial(number=number, params={"--a": 1}, status=TrialStatus.OK, value=value,
                                  profile="l1", benchmarks=[b.id for b in benches],
                                  repeat_of=0 if number else None))
    session.searches = [search.model_copy(update={"trial": trials})]
    values = [t.value for t in trials]
    text = render_handoff(session)
    line = next(line for line in text.splitlines() if line.startswith("**Best**"))
    est = estimate(values)
    assert est is not None and f"total_tok_s median {est.shown('tok/s')}" in line, line
    assert (est.median, est.low, est.high, est.n) == (statistics.median(values), min(values), max(values), 2)
    # the Search view (`Q`) says the same best: the median over its two launches with their range
    copy = tmp_path / "searched.toml"
    save_session(session, copy)
    app = make_app(copy)
    async with app.run_test(size=(160, 44)) as pilot:
        await pilot.press("Q")
        await until(lambda: isinstance(app.screen, SearchScreen), pilot)
        await pilot.pause()
        text = screen_text(app)
        assert f"best: trial 0 (l1) {est.text('tok/s')} · " in text and "n=2" in est.text(), text
        # and how sure, as the handoff says it: here no runner-up, the noise its two launches measured
        sure = certainty(session.searches[0])
        assert sure is not None and sure.against() in line and sure.against() in text, text
        assert "no runner-up; noise" in sure.against() and "measured between relaunches" in sure.against()
        await pilot.resize_terminal(80, 24)  # below 120 columns the table needs the line: the best alone
        await until(lambda: sure.against() not in screen_text(app) and "best: trial 0" in screen_text(app), pilot)
