"""The Search view of a search with two objectives, at 80x24 as a person sees it: the front
with each figure's unit, the statistic (median) and n, a point within the launch noise of
another marked, and `b` on a row adopting that configuration as the person's pick (refused,
with why, on a point off the front); the pick is saved and read back."""

from __future__ import annotations

from tui_support import make_app, screen_text, until

from cockpit.model.search.search import Search, SearchTrial, TrialStatus
from cockpit.model.session import LaunchProfile, Session, Sweep
from cockpit.store.toml_store import load_session, save_session
from cockpit.ui.screens.search import SearchScreen


def _ok(number: int, params: dict, speed: float, tpj: float, repeat_of: int | None = None) -> SearchTrial:
    return SearchTrial(number=number, params=params, status=TrialStatus.OK, value=speed, values=[speed, tpj],
                       repeat_of=repeat_of, profile="l1", host="box")


def _session(path):  # noqa: ANN001, ANN202
    trials = [_ok(0, {"--bs": 16}, 1000.0, 9.0), _ok(1, {"--bs": 128}, 2000.0, 6.0),
              _ok(2, {"--bs": 64}, 900.0, 5.0), _ok(3, {"--bs": 16}, 1040.0, 9.4, 0),
              _ok(4, {"--bs": 32}, 1030.0, 7.0)]  # ahead of trial 0 on tok/s by the noise only
    search = Search(id="q1", name="speed x energy", profile="l1", sweep="s1",
                    objective=["output_tok_s", "output_tok_per_joule"], at_concurrency=64, trials=6,
                    space={"--bs": [16, 32, 64, 128]}, trial=trials)
    session = Session(launch=[LaunchProfile(id="l1", name="base", command="python -m sglang.launch_server --port 1")],
                      sweeps=[Sweep(id="s1", name="ramp", concurrencies=[8, 64])], searches=[search])
    save_session(session, path)
    return path


async def test_the_front_at_80x24_with_units_and_the_persons_pick_saved(tmp_path):
    path = _session(tmp_path / "s.toml")
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("Q")
        await until(lambda: isinstance(app.screen, SearchScreen), pilot)
        shown = screen_text(app)
        assert "output tok/s (max) × output tok/J (max) at c=64" in shown
        assert "Pareto front, 3 point(s), median over launches (n)" in shown
        assert "★ #1 2,000 tok/s · 6 tok/J (n=1)" in shown
        assert "★ #0 1,020 tok/s · 9.2 tok/J (median, n=2)" in shown
        assert "≈ #4 1,030 tok/s · 7 tok/J (n=1) ≈ #0" in shown  # its tok/s lead is within the noise
        assert "#    front  tok/s    tok/J    flags changed" in shown  # the headers carry the units
        assert "↑ tok/J" in shown and "tok/s →" in shown  # and the plot's axes
        assert "none picked yet: b on a front row" in shown
        table = app.screen.query_one("#search-trials")
        await pilot.press("down", "down")  # trial 2: off the front
        assert table.cursor_row == 2
        await pilot.press("b")
        await until(lambda: any("trial 2 is not on the front: trial 1 is at least as good" in str(n.message)
                                for n in app._notifications), pilot)
        assert app.controller.session.searches[0].picked is None
        await pilot.press("up", "up")  # trial 0
        await pilot.press("b")
        await until(lambda: app.controller.session.searches[0].picked == 0, pilot)
        await until(lambda: "picked by you: #0 (l1) 1,020 tok/s · 9.2 tok/J (median, n=2)" in screen_text(app), pilot)
        assert "★ #0 1,020 tok/s · 9.2 tok/J (median, n=2) ✔ picked" in screen_text(app)
        assert app.controller.session.journal[-1].kind == "search.picked"
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, SearchScreen), pilot)
        await pilot.press("ctrl+s")
        await until(lambda: app.controller.unsaved_edits == 0, pilot)
    assert load_session(path).searches[0].picked == 0


async def test_the_search_form_shows_and_keeps_the_second_objective(tmp_path):
    path = _session(tmp_path / "s.toml")
    app = make_app(path)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("Q")
        await until(lambda: isinstance(app.screen, SearchScreen), pilot)
        await pilot.press("e")
        await until(lambda: "Edit search q1" in screen_text(app), pilot)
        form = screen_text(app)
        assert "2nd objective" in form and "output_tok_per_joule" in form
        await pilot.press("ctrl+s")
        await until(lambda: isinstance(app.screen, SearchScreen), pilot)
        search = app.controller.session.searches[0]
        assert search.objective == ["output_tok_s", "output_tok_per_joule"] and len(search.trial) == 5
        assert app.controller.session.journal[-1].kind == "search.edited"


def test_a_front_longer_than_the_lines_says_where_the_rest_are_without_a_mouse():
    """Issue 39: "3 more (hover the rows)" needed a mouse. Six points on the front, four shown:
    the line says the other two are the table's ★ and ≈ rows, which the keys reach."""
    from cockpit.ui.screens.search_front import FRONT_SHOWN, front_lines

    trials = [_ok(n, {"--bs": 2 ** n}, 1000.0 + 100 * n, 10.0 - n) for n in range(6)]  # each trades one for the other
    search = Search(id="q1", name="speed x energy", profile="l1", sweep="s1",
                    objective=["output_tok_s", "output_tok_per_joule"], at_concurrency=64, trials=6,
                    space={"--bs": [2 ** n for n in range(6)]}, trial=trials)
    lines = front_lines(search).plain.splitlines()
    assert lines[0].startswith("Pareto front, 6 point(s)")
    assert len(lines) == 1 + FRONT_SHOWN + 1 and lines[-1] == "… 2 more (★ and ≈ in the table)", lines
    assert not any("hover" in line or "click" in line for line in lines)
