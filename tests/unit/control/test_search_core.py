"""The search's model and optimizer without launches: what `cockpit check` refuses, how a
trial's command is derived from the base, that the study rebuilt from the session never
proposes a configuration twice and stays out of a region that crashed (on the stand-in's
response surface, evaluated directly), and that a new best must beat the noise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

import search_sim  # noqa: E402

from cockpit.control.search.study import blamed, propose  # noqa: E402
from cockpit.model.search.scoring import best_config, noise_share  # noqa: E402
from cockpit.model.search.search import Search, SearchTrial, TrialStatus  # noqa: E402
from cockpit.model.search.space import apply_params, config_key, derived_name  # noqa: E402
from cockpit.model.session import LaunchProfile, Session  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
BASE = LaunchProfile(id="l1", name="base", env={"SGLANG_A": "1"},
                     command="python -m sglang.launch_server --model-path m --cuda-graph-max-bs 64 "
                             "--enable-torch-compile --mem-fraction-static=0.88 --port 30000")
SPACE = {"--cuda-graph-max-bs": [32, 64, 128], "--enable-torch-compile": [True, False],
         "--mem-fraction-static": {"low": 0.80, "high": 0.92, "step": 0.02}, "--chunked-prefill-size": [4096],
         "env:SGLANG_X": ["a", "b"]}


def _search(**kw) -> Search:
    fields = {"id": "q1", "name": "n", "profile": "l1", "sweep": "s1", "space": SPACE, **kw}
    return Search.model_validate(fields)


def _session_toml(tmp_path: Path, search: str) -> Path:
    path = tmp_path / "s.toml"
    path.write_text('[[launch]]\nid = "l1"\nname = "base"\ncommand = "python -m sglang.launch_server"\n\n'
                    '[[sweeps]]\nid = "s1"\nname = "ramp"\nconcurrencies = [1, 8]\n\n'
                    '[[goal.targets]]\nid = "g1"\nmetric = "ttft_ms"\ncomparator = "<="\nvalue = 2000\n\n' + search)
    return path


@pytest.mark.parametrize(("search", "said"), [
    ('profile = "l9"\nsweep = "s1"\n[searches.space]\n"--x" = [1]', "links to missing launch id 'l9'"),
    ('profile = "l1"\nsweep = "s7"\n[searches.space]\n"--x" = [1]', "links to missing sweep id 's7'"),
    ('profile = "l1"\nsweep = "s1"\nconstraints = ["g5"]\n[searches.space]\n"--x" = [1]',
     "links to missing target id 'g5'"),
    ('profile = "l1"\nsweep = "s1"\n[searches.space]\n', "the space is empty"),
    ('profile = "l1"\nsweep = "s1"\n[searches.space]\n"--x" = { low = 0.9, high = 0.8, step = 0.02 }',
     "low 0.9 is not below high 0.8"),
    ('profile = "l1"\nsweep = "s1"\n[searches.space]\n"--x" = { low = 0.8, high = 0.9, step = 0.03 }',
     "not a whole number of steps"),
    ('profile = "l1"\nsweep = "s1"\n[searches.space]\n"x" = [1, 2]', "neither a server flag"),
    ('profile = "l1"\nsweep = "s1"\nat_concurrency = 64\n[searches.space]\n"--x" = [1]',
     "64 is not a concurrency of sweep s1"),
])
def test_check_refuses_a_bad_search(tmp_path, search, said):
    path = _session_toml(tmp_path, f'[[searches]]\nid = "q1"\nname = "n"\n{search}\n')
    done = subprocess.run([sys.executable, "-m", "cockpit", "check", str(path)], capture_output=True, text=True,
                          cwd=REPO, timeout=60)
    assert done.returncode == 1
    assert said in done.stderr and "searches" in done.stderr


def test_check_accepts_the_issue_shape(tmp_path):
    path = _session_toml(tmp_path, '[[searches]]\nid = "q1"\nname = "graph bs x prefill"\nprofile = "l1"\n'
                         'sweep = "s1"\nobjective = "output_tok_s"\nat_concurrency = 8\ndirection = "maximize"\n'
                         'constraints = ["g1"]\ntrials = 12\n[searches.space]\n'
                         '"--cuda-graph-max-bs" = [32, 64, 128, 256]\n"--moe-runner-backend" = ["triton", "x"]\n'
                         '"--mem-fraction-static" = { low = 0.80, high = 0.92, step = 0.02 }\n'
                         '"--enable-torch-compile" = [true, false]\n"env:SGLANG_X" = [1, 2]\n')
    done = subprocess.run([sys.executable, "-m", "cockpit", "check", str(path)], capture_output=True, text=True,
                          cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr


def test_a_trial_command_replaces_adds_and_removes_flags():
    search = _search()
    params: dict[str, int | float | str | bool] = {
        "--cuda-graph-max-bs": 128, "--enable-torch-compile": False, "--mem-fraction-static": 0.8600000001,
        "--chunked-prefill-size": 4096, "env:SGLANG_X": "b"}
    command, env = apply_params(BASE, {**params, "--mem-fraction-static": 0.86})
    assert command == ("python -m sglang.launch_server --model-path m --cuda-graph-max-bs 128 "
                       "--mem-fraction-static 0.86 --port 30000 --chunked-prefill-size 4096")
    assert env == {"SGLANG_A": "1", "SGLANG_X": "b"}
    assert derived_name(search, BASE, params) == ("l1 · --cuda-graph-max-bs 128 no --enable-torch-compile "
                                                  "--mem-fraction-static 0.86 --chunked-prefill-size 4096 SGLANG_X=b")
    # what the base already has is no change; the same configuration is the same key however typed
    same = {"--cuda-graph-max-bs": 64, "--enable-torch-compile": True, "--mem-fraction-static": 0.88}
    assert derived_name(search, BASE, same) == "l1 · as the base"
    assert config_key(search, {"--mem-fraction-static": 0.8600000001}) == config_key(search, {"--mem-fraction-static": 0.86})


def test_the_study_is_rebuilt_from_the_session_and_never_repeats_a_configuration():
    search = _search(space={"--a": [1, 2, 3], "--b": ["x", "y"]}, trials=6)
    seen = []
    for number in range(6):
        params = propose(search, seed=7)
        assert params == propose(search, seed=7)  # the session is the only record: the same trials, the same choice
        seen.append(config_key(search, params))
        trial = SearchTrial(number=number, params=params, status=TrialStatus.OK, value=float(number))
        search = search.model_copy(update={"trial": [*search.trial, trial]})
    assert len(set(seen)) == 6
    assert propose(search, seed=7) is None  # the whole space tried


def test_seeds_vary_between_runs_unless_a_person_fixes_one():
    search = _search(space={"--a": list(range(40)), "--b": ["x", "y"]}, trials=6)
    assert len({tuple(propose(search).items()) for _ in range(8)}) > 1  # a fresh seed per run
    fixed = search.model_copy(update={"seed": 11})
    assert len({tuple(propose(fixed).items()) for _ in range(8)}) == 1


def test_a_running_trial_is_not_proposed_again():
    search = _search(space={"--a": [1, 2]})
    first = propose(search)
    running = search.model_copy(update={"trial": [SearchTrial(number=0, params=first)]})
    assert propose(running) != first


def test_a_crashing_region_is_learned_on_the_surface():
    """The 36-configuration grid of benchmarks/bench_search.py: a graph batch of 256 with the
    base's memory fraction crashes (9 configurations, a quarter). Over 12 launches random
    search hits it 3 times on average (15 over 5 seeds); the search at most twice, 10 at most
    over the 5 seeds, and never again once the crash is pinned."""
    crashes, after = [], []
    for seed in range(5):
        order = search_sim.run_search(seed, noise=0.02, budget=12)
        crashed = [i for i, (_, value) in enumerate(order) if value is None]
        crashes.append(len(crashed))
        after.append(sum(1 for p, _ in order[crashed[-1] + 1:] if p["--cuda-graph-max-bs"] == 256) if crashed else 0)
    assert max(crashes) <= 2 and sum(crashes) <= 10, crashes
    assert after == [0] * 5  # once blamed, the value is not launched again


def test_a_crash_is_pinned_on_the_one_value_never_seen_working():
    search = _search(space={"--bs": [64, 256], "--b": ["x", "y"]})
    trials = [SearchTrial(number=0, params={"--bs": 64, "--b": "x"}, status=TrialStatus.OK, value=1.0),
              SearchTrial(number=1, params={"--bs": 256, "--b": "x"}, status=TrialStatus.CRASHED, error="cuda_oom")]
    search = search.model_copy(update={"trial": trials})
    assert blamed(search) == {(("--bs", "256"),)}
    assert propose(search) == {"--bs": 64, "--b": "y"}


def test_a_new_best_must_beat_the_noise_between_relaunches():
    search = _search(space={"--a": [1, 2, 3]}, repeats=2)
    trials = [SearchTrial(number=0, params={"--a": 1}, status=TrialStatus.OK, value=1000.0),
              SearchTrial(number=1, params={"--a": 1}, status=TrialStatus.OK, value=1060.0, repeat_of=0),
              SearchTrial(number=2, params={"--a": 1}, status=TrialStatus.OK, value=940.0, repeat_of=0),
              SearchTrial(number=3, params={"--a": 2}, status=TrialStatus.OK, value=1040.0)]
    noisy = search.model_copy(update={"trial": trials})
    assert noise_share(noisy) == pytest.approx(0.06)
    best = best_config(noisy)
    # 1040 once is within the noise of 1000 over three launches: the best stays
    assert best is not None and best.first.number == 0 and best.spread == pytest.approx(60.0)
    close = noisy.model_copy(update={"trial": [*trials, SearchTrial(number=4, params={"--a": 3},
                                                                     status=TrialStatus.OK, value=1080.0)]})
    assert best_config(close).first.number == 0  # +8 % once, noise 6 %: not told apart
    clear = noisy.model_copy(update={"trial": [*trials, SearchTrial(number=4, params={"--a": 3},
                                                                     status=TrialStatus.OK, value=1200.0)]})
    assert best_config(clear).first.number == 4  # +20 %: beyond the noise, it leads


def test_an_infeasible_configuration_is_never_the_best_however_fast():
    search = _search(space={"--a": [1, 2]}, constraints=[])
    trials = [SearchTrial(number=0, params={"--a": 1}, status=TrialStatus.OK, value=3000.0, constraints=[0.4]),
              SearchTrial(number=1, params={"--a": 2}, status=TrialStatus.OK, value=1000.0, constraints=[-0.2])]
    best = best_config(search.model_copy(update={"trial": trials}))
    assert best is not None and best.first.number == 1


def test_a_session_with_searches_round_trips(tmp_path):
    from cockpit.store.toml_store import load_session, save_session

    session = Session(launch=[BASE], searches=[])
    path = tmp_path / "r.toml"
    save_session(session, path)
    assert load_session(path) == session


class _Store:
    def __init__(self, session: Session) -> None:
        self.session = session


def test_a_trial_far_below_the_best_at_its_first_points_is_pruned_and_says_so():
    from cockpit.control.search.loop import SearchLoop
    from cockpit.model.session import Benchmark, Sweep

    lead = SearchTrial(number=0, params={"--a": 1}, status=TrialStatus.OK, value=2000.0, benchmarks=["b1", "b2"])
    session = Session(launch=[BASE], sweeps=[Sweep(id="s1", name="ramp", concurrencies=[4, 64])],
                      benchmarks=[Benchmark(id="b1", label="c4", concurrency=4, output_tok_s=400.0),
                                  Benchmark(id="b2", label="c64", concurrency=64, output_tok_s=2000.0)],
                      searches=[_search(space={"--a": [1, 2, 3]}, trial=[lead])])
    loop = SearchLoop(_Store(session), "s.toml", "q1", runner=None, hosts=[None])  # type: ignore[arg-type]
    check = loop._pruner(SearchTrial(number=1, params={"--a": 2}))
    assert check(4, {"output_tok_s": 150.0}) == "pruned at c=4: 150 against 400 of trial 0 (38%)"
    assert check(4, {"output_tok_s": 250.0}) is None  # 62 %: not far below
    assert check(64, {"output_tok_s": 100.0}) is None  # the last point: nothing left to save
    repeat = loop._pruner(SearchTrial(number=2, params={"--a": 1}, repeat_of=0))
    assert repeat(4, {"output_tok_s": 10.0}) is None  # a relaunch measures noise: never cut short


def test_cockpit_add_search_writes_the_issue_shape_and_the_handoff_lists_best_top_and_crashed(tmp_path):
    from cockpit.store.handoff.markdown import render_handoff
    from cockpit.store.toml_store import load_session, save_session

    path = _session_toml(tmp_path, "")
    done = subprocess.run([sys.executable, "-m", "cockpit", "add", "search", str(path), "bs x mem", "--profile", "l1",
                           "--sweep", "s1", "--space", "cuda-graph-max-bs=32,64", "--space",
                           "mem-fraction-static=0.80:0.92:0.02", "--space", "enable-torch-compile=switch",
                           "--space", "env:SGLANG_X=a,b", "--constraint", "g1", "--trials", "8",
                           "--at-concurrency", "8"], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "q1"
    search = load_session(path).searches[0]
    assert search.space["--cuda-graph-max-bs"] == [32, 64] and search.space["--enable-torch-compile"] == [True, False]
    assert search.values_of("--mem-fraction-static")[:3] == [0.8, 0.82, 0.84] and search.grid_size() == 2 * 7 * 2 * 2
    assert (search.trials, search.at_concurrency, search.constraints) == (8, 8, ["g1"])

    session = load_session(path)
    trials = [SearchTrial(number=0, params={"--cuda-graph-max-bs": 64, "--mem-fraction-static": 0.86,
                                            "--enable-torch-compile": True, "env:SGLANG_X": "a"},
                          status=TrialStatus.OK, value=1500.0, constraints=[-0.5], profile="l1"),
              SearchTrial(number=1, params={"--cuda-graph-max-bs": 32, "--mem-fraction-static": 0.92,
                                            "--enable-torch-compile": False, "env:SGLANG_X": "b"},
                          status=TrialStatus.CRASHED, error="cuda_oom", profile="l1")]
    session.searches = [search.model_copy(update={"trial": trials})]
    save_session(session, path)
    text = render_handoff(load_session(path))
    assert "## Searches" in text and "### bs x mem (q1)" in text
    assert ("**Best**: trial 0 (l1), output_tok_s median 1,500 tok/s (n=1); no runner-up; noise 5.0% assumed"
            in text), text
    # (a stepped dimension is a TOML table: it comes after the lists in the file, and so in the name)
    assert ("Changes from l1: --cuda-graph-max-bs 64 --enable-torch-compile SGLANG_X=a "
            "--mem-fraction-static 0.86") in text
    assert "Crashed (not to launch again):" in text and "| cuda_oom |" in text


def test_the_handoff_says_a_configurations_constraints_hold_on_its_median_launch():
    """The first launch broke the constraint (+10 %), the two relaunches held it: over its three
    launches the median holds, so the configuration leads and its row says so (not the first
    launch's "no"); one that holds only on its first launch is never listed as met."""
    from cockpit.store.handoff.markdown import render_handoff

    search = _search(space={"--a": [1, 2]}, repeats=2)
    trials = [SearchTrial(number=0, params={"--a": 1}, status=TrialStatus.OK, value=1000.0, constraints=[0.1]),
              SearchTrial(number=1, params={"--a": 1}, status=TrialStatus.OK, value=1010.0, constraints=[-0.2],
                          repeat_of=0),
              SearchTrial(number=2, params={"--a": 1}, status=TrialStatus.OK, value=990.0, constraints=[-0.1],
                          repeat_of=0),
              SearchTrial(number=3, params={"--a": 2}, status=TrialStatus.OK, value=1500.0, constraints=[-0.1]),
              SearchTrial(number=4, params={"--a": 2}, status=TrialStatus.OK, value=1490.0, constraints=[0.3],
                          repeat_of=3),
              SearchTrial(number=5, params={"--a": 2}, status=TrialStatus.OK, value=1510.0, constraints=[0.2],
                          repeat_of=3)]
    from cockpit.model.session import Sweep

    session = Session(launch=[BASE], sweeps=[Sweep(id="s1", name="c8", concurrencies=[8])],
                      searches=[search.model_copy(update={"trial": trials})])
    best = best_config(session.searches[0])
    assert best is not None and best.first.number == 0  # --a 2 is faster but breaks on its median launch
    text = render_handoff(session)
    rows = [line for line in text.splitlines() if line.startswith("| 0 |") or line.startswith("| 3 |")]
    assert len(rows) == 1 and rows[0].split(" | ")[5] == "yes", rows


def test_the_handoffs_top_configurations_show_the_figure_they_are_ranked_on():
    """The table's order is the search's (the leader, then the estimate from every launch), and
    the estimate is a column: a row below another with a higher median is explained by it."""
    from cockpit.model.search.objectives import heading
    from cockpit.model.search.scoring import leaderboard
    from cockpit.model.session import Sweep
    from cockpit.store.handoff.markdown import render_handoff

    search = _search(space={"--a": [1, 2, 3], "--b": [1, 2]}, repeats=2)
    figures = {(1, 1): 1000.0, (1, 2): 1100.0, (2, 1): 1040.0, (2, 2): 1180.0, (3, 1): 990.0, (3, 2): 1120.0}
    trials = [SearchTrial(number=n, params={"--a": a, "--b": b}, status=TrialStatus.OK, value=v)
              for n, ((a, b), v) in enumerate(figures.items())]
    trials.append(SearchTrial(number=6, params={"--a": 2, "--b": 2}, status=TrialStatus.OK, value=1150.0, repeat_of=3))
    trials[3] = trials[3].model_copy(update={"power_mean_w": 379.7, "output_tok_per_joule": 12.0})
    session = Session(launch=[BASE], sweeps=[Sweep(id="s1", name="c8", concurrencies=[8])],
                      searches=[search.model_copy(update={"trial": trials})])
    board = [g for g in leaderboard(session.searches[0]) if g.feasible][:5]
    assert all(g.shrunk is not None for g in board)
    text = render_handoff(session)
    rows = [line for line in text.splitlines() if line.startswith("| ") and line.split(" | ")[2] == "ok"][:5]
    assert [int(r.split(" | ")[0].strip("| ")) for r in rows] == [g.first.number for g in board]
    shown = [float(r.split(" | ")[4].replace(",", "")) for r in rows]
    assert shown == [round(g.shrunk.value) for g in board if g.shrunk is not None]
    assert shown[1:] == sorted(shown[1:], reverse=True)  # after the leader, by the estimate
    assert "then by the estimate from every launch" in text and "| estimate tok/s from every launch |" in text
    # each figure with its unit and statistic in the header; W whole, tok/J to three figures (not `12` beside `11.83`)
    assert f"| {heading(session.searches[0].primary)} median (min–max, n) |" in text and "| power W mean |" in text
    assert rows[0].split(" | ")[6:8] == ["380", "12.0"], rows[0]
