"""Redraw of the Benchmarks chart, 10 launch profiles x 12 concurrencies, against redrawing the
plain benchmarks table of the same session in the same run.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_chart.py [--profiles 10] [--runs 50] [--size 120x40]

The session is the chart tests' (tests/ui/sweep_sessions.py: the example campaign plus the
sweeps, 120 plotted runs). In the real app at --size, on the Benchmarks tab:
  draw       the work of one redraw, synchronous: chart = series computed (bench_series),
             the Plotext figure built and read back (ChartPlot.render), legend and best
             strip rebuilt; table = rows rebuilt (BenchTable) and every visible line rendered;
  on screen  from `show(session)` until the next frame is composited and written (the
             messages it causes handled, then the screen's update: layout, render of the
             widgets that changed, compositing), as after an edit or a recorded run.
Medians of --runs, in wall time and in this process's CPU time (on a machine whose cores
are shared, wall time also counts waiting for a core; CPU time is the work). Goal: the
chart's redraw under 50 ms. Prints a table and writes benchmarks/out/chart.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests" / "ui"))

from sweep_sessions import write_sweep_session  # noqa: E402
from tui_support import make_app  # noqa: E402

from cockpit.model.bench.series import chart_data  # noqa: E402
from cockpit.model.bench.targets import score_all  # noqa: E402
from cockpit.ui.widgets.session.bench_chart import BenchChart, ChartPlot  # noqa: E402
from cockpit.ui.widgets.session.benchmarks_view import BenchmarksView, BenchTable  # noqa: E402

GOAL_MS = 50.0


def _sampled(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median wall and median CPU seconds of `fn()` over `runs` calls."""
    wall, cpu = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(wall), statistics.median(cpu)


async def measure(path: Path, size: tuple[int, int], runs: int) -> tuple[dict[str, tuple[float, float]], int, int]:
    app = make_app(path)
    results: dict[str, tuple[float, float]] = {}
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("4")
        await pilot.pause()
        view = app.screen.query_one(BenchmarksView)
        table, chart, plot = view.query_one(BenchTable), view.query_one(BenchChart), view.query_one(ChartPlot)
        session = app.editor.session
        scores = score_all(session.goal.targets, session.benchmarks)

        def table_draw() -> None:
            view._rebuild()
            for y in range(table.size.height):
                table.render_line(y)

        def chart_draw() -> None:
            chart.show(chart_data(session, view.chart_metric))
            plot.render()
            chart.query_one("#chart-legend").render()
            chart.query_one("#chart-best").render()

        def plot_only() -> None:
            plot.show(plot.data)  # new data as far as its cache knows
            plot.render()

        async def on_screen() -> tuple[float, float]:
            wall, cpu = [], []
            for _ in range(runs):
                await pilot.pause()  # settled before the clock starts
                w, c = time.perf_counter(), time.process_time()
                view.show(session, scores)
                await pilot._wait_for_screen()  # every widget's messages handled
                app.screen._on_timer_update()  # the frame: layout, render of what changed, composite
                cpu.append(time.process_time() - c)
                wall.append(time.perf_counter() - w)
            return statistics.median(wall), statistics.median(cpu)

        results["table: draw"] = _sampled(table_draw, runs)
        results["table: on screen"] = await on_screen()
        await pilot.press("v")
        await pilot.pause()
        assert view.chart_shown and plot.size.width > 0
        results["chart: draw"] = _sampled(chart_draw, runs)
        results["chart: series only (bench_series)"] = _sampled(lambda: chart_data(session, view.chart_metric), runs)
        results["chart: Plotext figure only"] = _sampled(plot_only, runs)
        results["chart: on screen"] = await on_screen()
        points = sum(len(s.points) for s in chart_data(session).series)
        return results, points, table.row_count


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profiles", type=int, default=10)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--size", default="120x40")
    args = ap.parse_args()
    width, _, height = args.size.partition("x")
    with tempfile.TemporaryDirectory() as tmp:
        path = write_sweep_session(Path(tmp) / "sweeps.toml", args.profiles)
        results, points, rows = asyncio.run(measure(path, (int(width), int(height)), args.runs))
    load = os.getloadavg()[0]
    print(f"{args.profiles} profiles, {points} points plotted, {rows} table rows; {args.size}; "
          f"median of {args.runs}; load average {load:.1f} on {os.cpu_count()} CPUs")
    print(f"{'redraw':40} {'wall ms':>9} {'CPU ms':>9}")
    for name, (wall, cpu) in results.items():
        print(f"{name:40} {wall * 1000:9.2f} {cpu * 1000:9.2f}")
    chart_wall, chart_cpu = results["chart: on screen"]
    table_wall, table_cpu = results["table: on screen"]
    print(f"{'chart / table, on screen':40} {chart_wall / table_wall:9.2f} {chart_cpu / table_cpu:9.2f}")
    met = chart_cpu * 1000 < GOAL_MS
    print(f"goal: chart redraw on screen under {GOAL_MS:.0f} ms of CPU: {'met' if met else 'NOT met'} "
          f"(wall time counts waiting for the shared cores)")
    OUT.mkdir(exist_ok=True)
    (OUT / "chart.json").write_text(json.dumps({
        "profiles": args.profiles, "points": points, "table_rows": rows, "size": args.size, "runs": args.runs,
        "load_average": round(load, 2), "cpus": os.cpu_count(),
        "median_ms": {k: {"wall": round(w * 1000, 3), "cpu": round(c * 1000, 3)} for k, (w, c) in results.items()},
        "goal_ms": GOAL_MS, "goal_met_cpu": met,
    }, indent=2) + "\n")


if __name__ == "__main__":
    main()
