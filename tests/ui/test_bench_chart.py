"""The Benchmarks chart (`v`, `m`) and the compare screen (`c` from Benchmarks or Launch),
driven by keys and the palette as a person would."""

from __future__ import annotations

import subprocess
import sys

from textual.widgets import DataTable

from sweep_sessions import sweep_session, write_sweep_session
from tui_support import make_app, screen_text, until

from cockpit.control.session_port import ControllerPort, PortSink
from cockpit.model.enums import Metric
from cockpit.model.session import LaunchProfile
from cockpit.store.toml_store import load_session, save_session
from cockpit.ui.keys.commands import CockpitCommands
from cockpit.ui.screens.compare import CompareScreen
from cockpit.ui.screens.main.screen import MainScreen
from cockpit.ui.widgets.session.bench_chart import ChartPlot
from cockpit.ui.widgets.session.benchmarks_view import BenchmarksView, BenchTable


def _footer(app) -> str:  # noqa: ANN001
    return screen_text(app).splitlines()[-1]


async def test_v_shows_the_chart_and_m_cycles_total_output_per_stream(tmp_path):
    app = make_app(write_sweep_session(tmp_path / "s.toml", 3))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("4")
        assert "total tok/s · 3 profile(s)" not in screen_text(app)
        await pilot.press("v")
        await pilot.pause()
        view = app.screen.query_one(BenchmarksView)
        assert view.chart_shown and not app.screen.query_one("#bench-table").display
        assert isinstance(app.focused, ChartPlot)
        text = screen_text(app)
        assert "total tok/s · 3 profile(s), 36 point(s)" in text
        for line in ("━━ l1 flashinfer_cutlass", "━━ l2 flashinfer_trtllm", "━━ l3 tp8 variant 3",
                     "── g1 ≥ 1,000 tok/s"):
            assert line in text, line
        assert "★ best at 1–32 l1 · 64–128 l2 · 256–2048 l3" in text
        assert "concurrency (log2)" in text and "2048" in text and "10k" in text  # axes and ticks drawn
        assert "★" in app.screen.query_one(ChartPlot).render().plain  # best points called out

        await pilot.press("m")
        await pilot.pause()
        text = screen_text(app)
        assert "output tok/s · 3 profile(s)" in text and "g1 >=" not in text  # g1 is on total tok/s
        plot = app.screen.query_one(ChartPlot).render().plain
        assert "4k┤" in plot and "10k" not in plot  # the value axis follows: output is half the total

        await pilot.press("m")
        await pilot.pause()
        text = screen_text(app)
        assert "per-stream tok/s · 3 profile(s)" in text and "── g2 ≥ 100 tok/s at 1..2" in text

        await pilot.press("m")
        await pilot.pause()
        assert "total tok/s · 3 profile(s)" in screen_text(app)
        await pilot.press("v")
        await pilot.pause()
        assert not view.chart_shown and "39 benchmarks · sorted by id" in screen_text(app)


async def test_the_footer_shows_the_keys_of_the_view_on_screen(tmp_path):
    app = make_app(write_sweep_session(tmp_path / "s.toml", 3))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("4")
        footer = _footer(app)
        assert "s Sort" in footer and "v Chart" in footer and "c Compare" in footer and "? Keys" in footer
        assert "m Metric" not in footer
        await pilot.press("v")
        await pilot.pause()
        footer = _footer(app)
        assert "m Metric" in footer and "c Compare" in footer and "? Keys" in footer
        assert "d Delete" not in footer and "s Sort" not in footer
        count = len(app.editor.session.benchmarks)
        await pilot.press("d")  # the table's row keys do nothing while the chart is shown
        await pilot.pause()
        assert len(app.editor.session.benchmarks) == count and app.screen is app.screen_stack[-1]


async def test_the_palette_brings_up_the_view_its_command_works_on(tmp_path):
    app = make_app(write_sweep_session(tmp_path / "s.toml", 3))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        view = app.screen.query_one(BenchmarksView)
        await app.screen.run_registry_action("benchmarks.metric")
        await pilot.pause()
        assert view.chart_shown and view.chart_metric is Metric.OUTPUT_TOK_S
        assert "output tok/s · 3 profile(s)" in screen_text(app)
        await app.screen.run_registry_action("benchmarks.sort")
        await pilot.pause()
        assert not view.chart_shown and view.sort_key == "label"


async def test_a_run_recorded_while_the_chart_is_up_shows_in_both_views(tmp_path):
    app = make_app(write_sweep_session(tmp_path / "s.toml", 3))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("4", "v")
        await pilot.pause()
        ident = app.controller.apply(lambda ed: ed.add_benchmark(
            label="l2 again at 4096", profile="l2", concurrency=4096, total_tok_s=99000.0))
        await pilot.pause()
        text = screen_text(app)
        assert "total tok/s · 3 profile(s), 37 point(s)" in text and "· 4096 l2" in text
        await pilot.press("v")
        await pilot.pause()
        table = app.screen.query_one(BenchTable)
        assert "40 benchmarks · sorted by id" in screen_text(app) and ident in [k.value for k in table.rows]


async def test_the_chart_and_its_metric_are_saved_with_the_view(tmp_path):
    path = write_sweep_session(tmp_path / "s.toml", 3)
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("4", "v", "m", "ctrl+s")
        await pilot.pause()
    assert load_session(path).ui.selection["benchmarks.chart"] == "output_tok_s"
    again = make_app(path)
    async with again.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert "output tok/s · 3 profile(s)" in screen_text(again)


async def test_an_empty_chart_says_so(tmp_path):
    session = sweep_session(1)
    path = tmp_path / "s.toml"
    save_session(session.model_copy(update={
        "benchmarks": [b.model_copy(update={"concurrency": None}) for b in session.benchmarks]}), path)
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("4", "v")
        await pilot.pause()
        assert "No benchmark has a concurrency and total tok/s: nothing to plot yet." in screen_text(app)
        assert not app.screen.query_one("#chart-row").display


async def test_a_hostile_profile_name_reaches_the_legend_inert(tmp_path):
    session = sweep_session(3)
    launch = [p.model_copy(update={"name": "\x1b[2J\x1b[31mred [bold]x[/]"}) if p.id == "l3" else p
              for p in session.launch]
    path = tmp_path / "s.toml"
    save_session(session.model_copy(update={"launch": launch}), path)
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("4", "v")
        await pilot.pause()
        text = screen_text(app)
        assert "━━ l3 ␛[2J␛[31mred [bold]x[/]" in text  # escape shown, not run; markup as text
        assert "\x1b" not in app.screen.query_one("#chart-legend").render().plain


# ----- compare ------------------------------------------------------------------------------------
async def test_c_compares_two_profiles_per_concurrency_beside_their_launch_diff(tmp_path):
    app = make_app(write_sweep_session(tmp_path / "s.toml", 3))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("4", "v", "c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        assert (screen.a, screen.b) == ("l1", "l2")  # the working profile, then the next
        text = screen_text(app)
        assert "Compare total tok/s" in text
        assert " A l1 flashinfer_cutlass" in text and " B l2 flashinfer_trtllm" in text
        flat = " ".join(text.split())  # column widths follow the values (the one formatter's numbers)
        assert "│ 1 140 106 -23.9% │" in flat and "│ 2048 4,537 6,702 +47.7% │" in flat
        assert "~ --moe-runner-backend: flashinfer_cutlass -> flashinfer_trtllm" in text

        await pilot.press("b")  # next B
        await pilot.pause()
        text = screen_text(app)
        assert screen.b == "l3" and "B l3 tp8 variant 3" in text and "+ --chunked-prefill-size 3072" in text
        await pilot.press("x")  # swap
        await pilot.pause()
        assert (screen.a, screen.b) == ("l3", "l1")
        await pilot.press("a")  # next A passes over B
        await pilot.pause()
        assert (screen.a, screen.b) == ("l2", "l1")
        await pilot.press("m")
        await pilot.pause()
        assert "Compare output tok/s" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and app.screen.active_tab == "benchmarks"


async def test_c_from_the_table_compares_with_the_selected_runs_profile(tmp_path):
    app = make_app(write_sweep_session(tmp_path / "s.toml", 3))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("4")
        app.screen.query_one(BenchmarksView).select("b130")  # a run of l3
        await pilot.press("c")
        await pilot.pause()
        assert (app.screen.a, app.screen.b) == ("l1", "l3")


async def test_c_on_the_launch_tab_compares_the_diff_base_with_the_selected_profile(tmp_path):
    app = make_app(write_sweep_session(tmp_path / "s.toml", 3))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("7", "down", "d", "down", "c")  # diff base l2, l3 highlighted
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen) and (app.screen.a, app.screen.b) == ("l2", "l3")
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and app.screen.active_tab == "launch"


async def test_compare_needs_two_profiles(tmp_path):
    app = make_app(write_sweep_session(tmp_path / "s.toml", 1))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("4", "c")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert "Comparing needs two launch profiles" in [n.message for n in app._notifications]


async def test_the_compare_screens_commands_are_in_its_palette(tmp_path):
    app = make_app(write_sweep_session(tmp_path / "s.toml", 3))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        main_titles = [hit.text async for hit in CockpitCommands(app.screen).discover()]
        assert "benchmarks: Compare" in main_titles and "launch: Compare" in main_titles
        assert not [t for t in main_titles if t.startswith("compare:")]
        await pilot.press("4", "c")
        await pilot.pause()
        provider = CockpitCommands(app.screen)
        hits = {hit.text: hit async for hit in provider.discover()}
        assert list(hits) == ["compare: Next A", "compare: Next B", "compare: Swap", "compare: Metric",
                              "compare: Close"]
        await hits["compare: Swap"].command()
        await pilot.pause()
        assert (app.screen.a, app.screen.b) == ("l2", "l1")
        await hits["compare: Close"].command()
        await until(lambda: isinstance(app.screen, MainScreen), pilot)


async def test_compare_shows_a_profile_without_runs_as_gaps(tmp_path):
    session = sweep_session(2)
    extra = LaunchProfile(id="l3", name="never run", command="python -m sglang.launch_server --tp 2")
    path = tmp_path / "s.toml"
    save_session(session.model_copy(update={"launch": [*session.launch, extra]}), path)
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("7", "down", "down", "c")
        await pilot.pause()
        text = screen_text(app)
        assert (app.screen.a, app.screen.b) == ("l1", "l3")
        assert "│ 1 140 — — │" in " ".join(text.split())


# ----- the session changes while compare or the chart is on screen ------------------------------------
def _cockpit_add_benchmark(path, profile: str, concurrency: int, total: float) -> None:  # noqa: ANN001
    """Another writer (a shell's `cockpit add`): the lock, the merge, then the file on disk."""
    done = subprocess.run([sys.executable, "-m", "cockpit", "add", "benchmark", str(path), f"{profile} at {concurrency}",
                           "--profile", profile, "--concurrency", str(concurrency), "--total-tok-s", str(total)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def _cursor_conc(app) -> str:  # noqa: ANN001
    table = app.screen.query_one(DataTable)
    return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)


async def test_compare_shows_runs_another_writer_adds_while_it_is_open(tmp_path):
    path = write_sweep_session(tmp_path / "s.toml", 3)
    app = make_app(path, watch_interval_s=0.05)  # the app's own file watcher takes the change in
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("4", "c")
        await until(lambda: isinstance(app.screen, CompareScreen), pilot)
        await pilot.press(*["down"] * 6)  # the cursor on the 64 row
        assert _cursor_conc(app) == "64"
        _cockpit_add_benchmark(path, "l1", 3, 300.0)
        _cockpit_add_benchmark(path, "l2", 3, 360.0)
        # two `cockpit add` processes and the file watcher: generous for a loaded CI machine
        await until(lambda: "│ 3 300 360 +20.0% │" in " ".join(screen_text(app).split()), pilot, timeout=45)
        text = " ".join(screen_text(app).split())
        assert text.index("│ 2 ") < text.index("│ 3 300 360") < text.index("│ 4 ")
        assert _cursor_conc(app) == "64", "the cursor stays on its row when one is added above it"


async def test_compare_shows_a_run_the_sweep_records_while_it_is_open(tmp_path):
    app = make_app(write_sweep_session(tmp_path / "s.toml", 3))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("4", "c")
        await until(lambda: isinstance(app.screen, CompareScreen), pilot)
        sink = PortSink(ControllerPort(app.controller))  # what the sweep runner records through
        await sink.record("s1:r1:c4096", {"label": "l2 at 4096", "profile": "l2", "concurrency": 4096,
                                        "total_tok_s": 9000.0, "sweep": "s1", "sweep_run": "r1"})
        await until(lambda: "│ 4096 — 9,000 — │" in " ".join(screen_text(app).split()), pilot)
        await sink.record("s1:r2:c4096", {"label": "l1 at 4096", "profile": "l1", "concurrency": 4096,
                                        "total_tok_s": 7500.0, "sweep": "s1", "sweep_run": "r2"})
        await until(lambda: "│ 4096 7,500 9,000 +20.0% │" in " ".join(screen_text(app).split()), pilot)
        await pilot.press("escape")  # closed: it stops listening, and the next record is the table's
        await until(lambda: isinstance(app.screen, MainScreen), pilot)
        await sink.record("s1:r3:c8192", {"label": "l1 at 8192", "profile": "l1", "concurrency": 8192,
                                          "total_tok_s": 7600.0, "sweep": "s1", "sweep_run": "r3"})
        await until(lambda: "42 benchmarks · sorted by id" in screen_text(app), pilot)


async def test_a_compared_profile_that_goes_away_is_named_gone_in_the_title(tmp_path):
    app = make_app(write_sweep_session(tmp_path / "s.toml", 2))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        new = app.controller.apply(lambda ed: ed.add_record("launch", name="short-lived",
                                                            command="python -m sglang.launch_server --tp 4"))
        await pilot.press("7", "end", "c")
        await until(lambda: isinstance(app.screen, CompareScreen), pilot)
        assert app.screen.b == new and f"B {new} short-lived" in screen_text(app)
        app.controller.undo()  # the profile's add undone (the same signal as another writer's delete)
        await until(lambda: f"B {new} no longer in the session" in screen_text(app), pilot)
        text = screen_text(app)
        assert "A profile of this comparison is no longer in the session." in text
        await pilot.press("b")  # moving on from the gone profile still works
        await pilot.pause()
        assert app.screen.b not in (new, app.screen.a)


async def test_the_chart_shows_a_run_another_writer_adds(tmp_path):
    path = write_sweep_session(tmp_path / "s.toml", 3)
    app = make_app(path, watch_interval_s=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("4", "v")
        await until(lambda: "total tok/s · 3 profile(s), 36 point(s)" in screen_text(app), pilot)
        _cockpit_add_benchmark(path, "l3", 4096, 99000.0)
        await until(lambda: "total tok/s · 3 profile(s), 37 point(s)" in screen_text(app), pilot, timeout=15)
        assert "256–4096 l3" in screen_text(app)  # the best call-out takes the new point in


# ----- compare on any figure, paired with profiles that have runs (issue 23, item 2) -----------------
def _tuned_session(path):  # noqa: ANN001
    """l1 (working) and l3 swept, l2 broken with no runs; l3 has the lower TTFT p99 and more tok/J."""
    from cockpit.model.enums import ProfileStatus

    session = sweep_session(3, concurrencies=(1, 8))
    launch = [p.model_copy(update={"status": ProfileStatus.BROKEN}) if p.id == "l2" else p for p in session.launch]
    benches = []
    for b in session.benchmarks:
        if b.profile == "l2":
            continue
        if b.profile in ("l1", "l3"):
            fast = b.profile == "l3"
            b = b.model_copy(update={"ttft_p99_ms": (300.0 if fast else 600.0) * b.concurrency,
                                     "output_tok_per_joule": 0.5 if fast else 0.25})
        benches.append(b)
    save_session(session.model_copy(update={"launch": launch, "benchmarks": benches}), path)
    return path


async def test_compare_pairs_profiles_with_runs_and_reads_ttft_p99_and_tok_per_joule(tmp_path):
    app = make_app(_tuned_session(tmp_path / "s.toml"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("4")
        app.screen.query_one(BenchmarksView).select("b101")  # a run of the working l1
        await pilot.press("c")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        assert (screen.a, screen.b) == ("l1", "l3"), "B is the profile with runs, not the broken l2"
        for _ in range(4):  # total -> output -> per-stream -> TTFT p50 -> TTFT p99
            await pilot.press("m")
        await pilot.pause()
        text = " ".join(screen_text(app).split())  # column widths follow the values
        assert "Compare TTFT p99 ms" in text
        assert "│ 1 600 300 -50.0% │" in text and "│ 8 4,800 2,400 -50.0% │" in text
        for _ in range(5):  # ITL p50, ITL p99, power, tok/J total, tok/J output
            await pilot.press("m")
        await pilot.pause()
        text = " ".join(screen_text(app).split())
        assert "Compare tok/J output" in text and "│ 1 0.25 0.5 +100.0% │" in text
