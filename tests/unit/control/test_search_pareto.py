"""A search with two objectives, offline (benchmarks/pareto_sim.py: a SIMULATOR surface where
speed costs energy, evaluated directly, no launch): the front it finds has no point another
dominates, points within the launch noise are marked, a person's pick is recorded as theirs
and survives save/load, the handoff lists the front with units, the figures are read at one
sweep point from the benchmarks, and a session with one objective loads unchanged."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

import pareto_sim  # noqa: E402

from cockpit.cli import main as cockpit  # noqa: E402
from cockpit.model.edit.edits import PERSON, EditError, SessionEditor  # noqa: E402
from cockpit.model.search.pareto import dominates, pareto_front, pick_point  # noqa: E402
from cockpit.model.search.scoring import score_trial  # noqa: E402
from cockpit.model.search.search import Direction, Search, SearchTrial, TrialStatus  # noqa: E402
from cockpit.model.search.space import config_key  # noqa: E402
from cockpit.model.session import Benchmark, LaunchProfile, Session, Sweep  # noqa: E402
from cockpit.store.handoff.markdown import render_handoff  # noqa: E402
from cockpit.store.toml_store import dumps_session, load_session, loads_session, save_session  # noqa: E402

OLD = Path(__file__).resolve().parents[3] / "tests/data/diagnosis_heldout/h22-search-trials-not-regressions/session.toml"
BASE = LaunchProfile(id="l1", name="base", command="python -m sglang.launch_server --model-path m --port 30000")


def _ok(number: int, params: dict, speed: float, tpj: float, repeat_of: int | None = None) -> SearchTrial:
    return SearchTrial(number=number, params=params, status=TrialStatus.OK, value=speed, values=[speed, tpj],
                       repeat_of=repeat_of, profile="l1")


def _search(trials: list[SearchTrial], **kw) -> Search:
    return Search.model_validate({"id": "q1", "name": "speed x energy", "profile": "l1", "sweep": "s1",
                                  "objective": ["output_tok_s", "output_tok_per_joule"], "at_concurrency": 64,
                                  "space": {"--bs": [16, 32, 64, 128], "--b": ["x", "y"]}, "trial": trials, **kw})


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_two_objective_search_yields_a_front_no_point_of_which_another_dominates(seed):
    search = pareto_sim.run(seed, budget=14, noise=0.03)
    assert sum(1 for t in search.trial if not t.reused) == 14
    firsts = [config_key(search, t.params) for t in search.trial if t.repeat_of is None]
    assert len(set(firsts)) == len(firsts)  # no configuration launched twice as a new one
    front = pareto_front(search)
    assert len(front.points) >= 2, [p.medians for p in front.points]  # the surface trades speed for energy
    directions = [Direction.MAXIMIZE, Direction.MAXIMIZE]
    for point in front.points:
        assert not any(dominates(q.medians, point.medians, directions) for q in [*front.points, *front.others]
                       if q is not point)
    for other in front.others:  # every point off the front names one on it that dominates it
        by = next(p for p in front.points if p.number == other.dominated_by)
        assert dominates(by.medians, other.medians, directions)
    # the budget's last launches relaunch front points launched once (their place may be noise)
    assert any(t.repeat_of is not None for t in search.trial)
    assert {t.repeat_of for t in search.trial if t.repeat_of is not None} <= {
        p.number for p in [*front.points, *front.others]}


def test_the_front_marks_a_point_whose_advantage_is_within_the_launch_noise():
    trials = [_ok(0, {"--bs": 16, "--b": "x"}, 1000.0, 9.0), _ok(1, {"--bs": 16, "--b": "x"}, 1040.0, 9.4, 0),
              _ok(2, {"--bs": 128, "--b": "x"}, 2000.0, 6.0), _ok(3, {"--bs": 128, "--b": "x"}, 2080.0, 6.2, 2),
              # faster than trial 0 by 1 % once, much less frugal: on the front only by noise
              _ok(4, {"--bs": 32, "--b": "y"}, 1030.0, 7.0),
              _ok(5, {"--bs": 64, "--b": "y"}, 900.0, 5.0)]  # worse on both than trial 0
    front = pareto_front(_search(trials))
    assert [p.number for p in front.points] == [2, 4, 0]
    close = {p.number: p.close_to for p in front.points}
    assert close[4] == [0] and close[0] == [] and close[2] == []
    assert [(p.number, p.dominated_by) for p in front.others] == [(5, 2)]  # a front point that dominates it
    assert front.point(1) is front.point(0)  # a relaunch is its configuration's point
    assert front.noise_text().startswith("launch noise 2.")  # measured between relaunches, a share with its figure


def _session(trials: list[SearchTrial]) -> Session:
    return Session(launch=[BASE], sweeps=[Sweep(id="s1", name="ramp", concurrencies=[8, 64])],
                   searches=[_search(trials)])


def test_the_persons_pick_is_recorded_as_theirs_and_survives_save_and_load(tmp_path):
    trials = [_ok(0, {"--bs": 16, "--b": "x"}, 1000.0, 9.0), _ok(1, {"--bs": 128, "--b": "x"}, 2000.0, 6.0),
              _ok(2, {"--bs": 64, "--b": "y"}, 900.0, 5.0), _ok(3, {"--bs": 16, "--b": "x"}, 1010.0, 9.1, 0)]
    editor = SessionEditor(_session(trials), actor=PERSON)
    with pytest.raises(EditError, match="trial 2 is not on the front: trial 1 is at least as good on every"):
        pick_point(editor, "q1", 2)
    assert pick_point(editor, "q1", 3) == 0  # a relaunch: its configuration's first trial is recorded
    assert editor.session.journal[-1].kind == "search.picked"
    assert "picked trial 0 from the front (1,005 tok/s · 9.05 tok/J (median, n=2))" in editor.session.journal[-1].text
    machine = SessionEditor(editor.session, actor="search")
    with pytest.raises(EditError, match="only a person picks"):
        pick_point(machine, "q1", 1)
    path = tmp_path / "s.toml"
    save_session(editor.session, path)
    assert "picked = 0" in path.read_text()
    loaded = load_session(path).searches[0]
    assert loaded.picked == 0 and loaded.objective == ["output_tok_s", "output_tok_per_joule"]
    assert loaded.trial[1].values == [2000.0, 6.0]


def test_the_handoff_lists_the_front_with_units_n_and_the_pick():
    trials = [_ok(0, {"--bs": 16, "--b": "x"}, 1000.0, 9.0), _ok(1, {"--bs": 128, "--b": "x"}, 2000.0, 6.0),
              _ok(2, {"--bs": 64, "--b": "y"}, 900.0, 5.0),
              SearchTrial(number=3, params={"--bs": 128, "--b": "y"}, status=TrialStatus.CRASHED,
                          error="cuda_oom: CUDA out of memory", profile="l1")]
    session = _session(trials)
    text = render_handoff(session)
    assert "## Searches" in text and "4 of 12 launches; output_tok_s × output_tok_per_joule at c=64, maximize/maximize" in text
    assert "**No pick yet**: the front has 2 configurations" in text
    assert ("| trial | flags changed | output tok/s (max) median (min–max, n) | "
            "output tok/J (max) median (min–max, n) | note |") in text
    assert "| 1 | --bs 128 --b x | 2,000 (n=1) | 6 (n=1) | told apart |" in text
    assert "| 0 | --bs 16 --b x | 1,000 (n=1) | 9 (n=1) | told apart |" in text
    assert "Off the front:" in text and "| 2 | --bs 64 --b y | 900 (n=1) | 5 (n=1) | dominated by trial 1 |" in text
    assert "Crashed (not to launch again):" in text and "| 3 | --bs 128 --b y | cuda_oom: CUDA out of memory |" in text
    assert "launch noise 5.0% (output tok/s, assumed), 5.0% (output tok/J, assumed)" in text
    editor = SessionEditor(session, actor=PERSON)
    pick_point(editor, "q1", 1)
    text = render_handoff(editor.session)
    assert "**Picked by a person** from the front: trial 1 (l1), 2,000 tok/s · 6 tok/J (n=1)" in text
    assert "| 1 | --bs 128 --b x | 2,000 (n=1) | 6 (n=1) | picked; told apart |" in text


def test_a_trials_figures_are_read_at_one_sweep_point_from_its_benchmarks():
    """Without at_concurrency, every objective is read at the first objective's best point
    (the median of that point's runs): one operating point, not two points' bests."""
    benches = [Benchmark(id="b1", label="c8", concurrency=8, output_tok_s=900.0, output_tok_per_joule=9.5),
               Benchmark(id="b2", label="c64", concurrency=64, output_tok_s=2000.0, output_tok_per_joule=6.0),
               Benchmark(id="b3", label="c64 again", concurrency=64, output_tok_s=2200.0, output_tok_per_joule=6.4)]
    session = Session(launch=[BASE], sweeps=[Sweep(id="s1", name="ramp", concurrencies=[8, 64])],
                      benchmarks=benches, searches=[_search([]).model_copy(update={"at_concurrency": None})])
    score = score_trial(session, session.searches[0], ["b1", "b2", "b3"])
    assert score.values == [2100.0, 6.2] and score.value == 2100.0  # c=64's medians, not c=8's 9.5 tok/J
    at8 = session.searches[0].model_copy(update={"at_concurrency": 8})
    assert score_trial(session, at8, ["b1", "b2", "b3"]).values == [900.0, 9.5]


def test_an_old_single_objective_session_loads_unchanged():
    import tomllib

    session = load_session(OLD)
    search = session.searches[0]
    assert search.objective == "output_tok_s" and not search.multi and search.objectives == ["output_tok_s"]
    assert search.picked is None and all(t.values == [] for t in search.trial)
    again = dumps_session(session)
    assert loads_session(again) == session
    # every key it had is written back with its value, and nothing is added (no `picked`, no `values`)
    read, written = tomllib.loads(OLD.read_text())["searches"][0], tomllib.loads(again)["searches"][0]
    assert {k: written[k] for k in read if k != "trial"} == {k: v for k, v in read.items() if k != "trial"}
    assert set(written) - set(read) <= {"objective", "direction", "trials", "repeats", "prune_below"}  # defaults
    assert written["objective"] == "output_tok_s" and "picked" not in again and "values" not in again
    assert all(set(w) - set(r) <= {"reused"} for w, r in zip(written["trial"], read["trial"], strict=True))
    handoff = render_handoff(session)
    assert "3 of 12 launches; output_tok_s, maximize\n" in handoff and "Pareto" not in handoff


@pytest.mark.parametrize(("objective", "said"), [
    ('["output_tok_s"]', "1 objectives; name one figure, or a list of 2 to 3"),
    ('["output_tok_s", "output_tok_s"]', "an objective is listed twice"),
    ('["output_tok_s", "tok_per_watt"]', "objective 'tok_per_watt' is not a benchmark figure"),
])
def test_check_refuses_a_bad_objective_list(tmp_path, capsys, objective, said):
    path = tmp_path / "s.toml"
    path.write_text('[[launch]]\nid = "l1"\nname = "base"\ncommand = "python -m sglang.launch_server"\n\n'
                    '[[sweeps]]\nid = "s1"\nname = "ramp"\nconcurrencies = [1, 8]\n\n'
                    f'[[searches]]\nid = "q1"\nname = "n"\nprofile = "l1"\nsweep = "s1"\nobjective = {objective}\n'
                    '[searches.space]\n"--x" = [1, 2]\n')
    assert cockpit(["check", str(path)]) != 0
    said_out = capsys.readouterr()
    text = said_out.out + said_out.err
    assert said in text and f"{path}:" in text, text  # file:line: why


def test_the_command_line_adds_a_two_objective_search_shows_its_front_and_records_the_pick(tmp_path, capsys):
    path = tmp_path / "s.toml"
    save_session(Session(launch=[BASE], sweeps=[Sweep(id="s1", name="ramp", concurrencies=[8, 64])]), path)
    assert cockpit(["add", "search", str(path), "speed x energy", "--profile", "l1", "--sweep", "s1", "--space",
                    "bs=16,128", "--space", "b=x,y", "--objective", "output_tok_s,output_tok_per_joule",
                    "--at-concurrency", "64"]) == 0, capsys.readouterr().err
    assert load_session(path).searches[0].objective == ["output_tok_s", "output_tok_per_joule"]
    session = load_session(path)
    session.searches = [session.searches[0].model_copy(update={"trial": [
        _ok(0, {"--bs": 16, "--b": "x"}, 1000.0, 9.0), _ok(1, {"--bs": 128, "--b": "x"}, 2000.0, 6.0),
        _ok(2, {"--bs": 16, "--b": "y"}, 900.0, 5.0)]})]
    save_session(session, path)
    capsys.readouterr()
    assert cockpit(["search", "front", str(path), "q1"]) == 0
    shown = capsys.readouterr().out
    assert shown.splitlines()[:3] == [
        "Pareto front of 2 (output tok/s (max) × output tok/J (max) at c=64):",
        "  trial 1 --bs 128 --b x: 2,000 tok/s · 6 tok/J (n=1)",
        "  trial 0 --bs 16 --b x: 1,000 tok/s · 9 tok/J (n=1)"]
    assert "pick one: b on its row in the Search view, or cockpit search pick SESSION q1 TRIAL" in shown
    assert cockpit(["search", "pick", str(path), "q1", "2"]) == 1
    assert "trial 2 is not on the front: trial 1" in capsys.readouterr().err
    assert cockpit(["search", "pick", str(path), "q1", "1"]) == 0
    assert capsys.readouterr().out.strip() == "search q1: trial 1's configuration picked as the best (your choice)"
    assert load_session(path).searches[0].picked == 1
    assert cockpit(["search", "front", str(path), "q1", "--json"]) == 0
    as_json = json.loads(capsys.readouterr().out)
    assert as_json["picked"] == 1 and [p["trial"] for p in as_json["front"]] == [1, 0]
    assert as_json["front"][0]["figures"]["output_tok_per_joule"] == {"median": 6.0, "min": 6.0, "max": 6.0, "n": 1,
                                                                       "unit": "tok/J"}


def test_the_run_lines_of_a_two_objective_search_show_each_figure_with_its_unit_and_end_on_the_front():
    from cockpit.control.search.trial_lines import done_line, trial_line

    trials = [_ok(0, {"--bs": 16, "--b": "x"}, 1000.0, 9.0), _ok(1, {"--bs": 128, "--b": "x"}, 2000.0, 6.0),
              _ok(2, {"--bs": 64, "--b": "y"}, 900.0, 5.0), _ok(3, {"--bs": 16, "--b": "x"}, 1010.0, 9.2, 0)]
    session = _session(trials)
    search = session.searches[0]
    assert trial_line(session, search, trials[2]) == (
        "trial 2 ok: --bs 64 --b y · 900 tok/s · 5 tok/J (n=1) · off the front: trial 1 is at least as good on "
        "every objective")
    assert trial_line(session, search, trials[3]) == (
        "trial 3 (relaunch of trial 0) ok: --bs 16 --b x · 1,010 tok/s · 9.2 tok/J (configuration 1,005 tok/s · "
        "9.1 tok/J (median, n=2)) · on the front")
    assert done_line(session, search) == (
        "done: 4 launches; Pareto front of 2 (output tok/s (max) × output tok/J (max) at c=64): trial 1 --bs 128 "
        "--b x: 2,000 tok/s · 6 tok/J (n=1); trial 0 --bs 16 --b x: 1,005 tok/s · 9.1 tok/J (median, n=2); "
        "launch noise 0.7% (output tok/s, measured), 1.6% (output tok/J, measured); pick one: b on its row in the "
        "Search view, or cockpit search pick SESSION q1 TRIAL")
    with pytest.raises(ValueError, match="picked = 0: a search with one objective has no front"):
        Search.model_validate({**search.model_dump(), "picked": 0, "objective": "output_tok_s"})
