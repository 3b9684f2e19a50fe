"""The Search view driven as a person would: `Q` opens it on the session's search, `s` asks
first (the space, the budget and a time estimate) and on `y` runs the trials (STAND-IN
servers with their response surface, the STAND-IN bench client); the table, the best line
and the plot follow; `p` pauses (the running trial finishes, no new one starts), `r`
resumes, `m` marks the best configuration's profile working."""

from __future__ import annotations

from day_session import day_session
from search_support import cleanup, search_session

from tui_support import make_app, screen_text, until

from cockpit.model.enums import ProfileStatus
from cockpit.model.figures import three_figures
from cockpit.model.search.scoring import best_config
from cockpit.model.search.search import TrialStatus
from cockpit.store.toml_store import load_session
from cockpit.ui.live.search_runs import runs_of
from cockpit.ui.screens.confirm_run import ConfirmRunScreen
from cockpit.ui.screens.search import SearchScreen, pareto


def _trials(app) -> list:  # noqa: ANN001
    return app.controller.session.searches[0].trial


async def test_search_set_up_run_paused_resumed_and_its_best_marked_working(tmp_path):
    # 48 output tokens a request: the c=8 main run lasts long enough on a loaded machine for the
    # 0.1 s GPU samples to land in it (with 12, one CI run under load recorded no power at all)
    path, _ = search_session(tmp_path, trials=3, output_len=48)
    app = make_app(path, watch_interval_s=0.2)
    try:
        async with app.run_test(size=(160, 44)) as pilot:
            await pilot.press("Q")
            await until(lambda: isinstance(app.screen, SearchScreen), pilot)
            assert "graph bs x backend" in screen_text(app) and "0 of 3 launches ended" in screen_text(app)
            await pilot.press("s")
            await until(lambda: isinstance(app.screen, ConfirmRunScreen), pilot)
            asked = screen_text(app)
            assert "Run search q1?" in asked and "--cuda-graph-max-bs: 4, 16, 256" in asked
            assert "up to 3 launches of l1 (base)" in asked and "about 42 min" in asked
            await pilot.press("y")
            await until(lambda: isinstance(app.screen, SearchScreen), pilot)
            await until(lambda: len(_trials(app)) >= 1, pilot, timeout=30)
            await pilot.press("p")
            assert "paused" in screen_text(app)
            # the running trial finishes; no new one starts while paused
            await until(lambda: all(t.status is not TrialStatus.RUNNING for t in _trials(app)), pilot, timeout=60)
            await pilot.pause(1.5)
            assert len(_trials(app)) == 1
            await pilot.press("r")
            await until(lambda: not runs_of(app) and len(_trials(app)) == 3
                        and all(t.status is not TrialStatus.RUNNING for t in _trials(app)), pilot, timeout=120)
            shown = screen_text(app)
            assert "3 of 3 launches ended" in shown and "idle" in shown and "best: trial" in shown
            # beside the plot the table leaves room for what each launch measured: its power and
            # tok/J show without scrolling (they were pushed off by an unwrapped flags column)
            assert "W mean" in shown and "out tok/J" in shown and "tok/s median" in shown
            measured = [t for t in _trials(app) if t.output_tok_per_joule is not None]
            assert measured and all(three_figures(t.output_tok_per_joule) in shown for t in measured), shown
            best = best_config(app.controller.session.searches[0])
            assert best is not None
            await pilot.press("m")
            profile = next(p for p in app.controller.session.launch if p.id == best.first.profile)
            assert profile.status is ProfileStatus.WORKING
            await pilot.press("escape")  # back to the tabs, where ctrl+s saves
            await until(lambda: not isinstance(app.screen, SearchScreen), pilot)
            await pilot.press("ctrl+s")
            await until(lambda: app.controller.unsaved_edits == 0, pilot)
        saved = load_session(path)
        assert next(p for p in saved.launch if p.id == best.first.profile).status is ProfileStatus.WORKING
        assert saved.searches[0].confirmed  # the person's yes, sealed
    finally:
        cleanup(tmp_path)


def test_the_pareto_front_keeps_trials_no_other_beats_on_both():
    from cockpit.model.search.search import SearchTrial

    trials = [SearchTrial(number=0, params={}, status=TrialStatus.OK, value=100, output_tok_per_joule=2.0),
              SearchTrial(number=1, params={}, status=TrialStatus.OK, value=200, output_tok_per_joule=1.0),
              SearchTrial(number=2, params={}, status=TrialStatus.OK, value=90, output_tok_per_joule=1.5),
              SearchTrial(number=3, params={}, status=TrialStatus.CRASHED)]
    assert pareto(trials, "output_tok_per_joule", maximize=True) == {0, 1}


def test_the_launch_counts_leave_out_reused_configurations_and_say_a_run_past_the_budget():
    """A configuration the session had measured is reused, not launched (it is not one of the
    budget's launches); a person's --trials may run past the search's budget, never 11 of 10."""
    from cockpit.model.search.search import Search, SearchTrial
    from cockpit.ui.screens.search_table import launch_counts

    ok = TrialStatus.OK
    search = Search(id="q1", name="q", profile="l1", sweep="s1", space={"--bs": [4, 8, 16]}, trials=2, repeats=1,
                    trial=[SearchTrial(number=0, params={"--bs": 4}, status=ok, reused=True),
                           SearchTrial(number=1, params={"--bs": 8}, status=ok),
                           SearchTrial(number=2, params={"--bs": 16}, status=TrialStatus.RUNNING)])
    assert launch_counts(search) == ("1 of 3 launches ended (2 trials + 1 repeat), 1 running, "
                                     "1 reused from the session's benchmarks")
    past = search.model_copy(update={"trial": [SearchTrial(number=n, params={"--bs": 4}, status=ok) for n in range(4)]})
    assert launch_counts(past) == "4 launches ended, 3 in the search's budget (2 trials + 1 repeat)"


async def test_the_row_under_the_cursor_is_said_whole_and_stays_put_when_the_search_redraws(tmp_path):
    """What the table cuts off (every flag, the figures' units, a crash's error) is said under it
    for the highlighted trial, in the CLI's words; a redraw (any session change) keeps the row."""
    path = day_session(tmp_path)
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("Q")
        await until(lambda: isinstance(app.screen, SearchScreen), pilot)
        await until(lambda: "launches ended" in screen_text(app), pilot)
        assert "▸ trial 0 on local ok:" in screen_text(app)
        await pilot.press("down")  # trial 1: the crash
        await until(lambda: "▸ trial 1 on local crashed:" in screen_text(app), pilot)
        assert "CUDA out of memory at graph capture" in screen_text(app).split("▸ trial 1", 1)[1]
        await pilot.press("down", "down")  # trial 3, a relaunch: its configuration's median with its unit
        await until(lambda: "▸ trial 3 on local (relaunch of trial 2) ok:" in screen_text(app), pilot)
        app.screen.redraw()  # what every session change does
        await pilot.pause()
        assert "▸ trial 3 on local" in screen_text(app), screen_text(app)
        assert app.screen.query_one("#search-trials").cursor_row == 3
