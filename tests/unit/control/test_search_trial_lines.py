"""What a person reads per finished trial: the flags it changed, the objective with its
configuration's spread, each constraint met or broken with its figure, a crash's first
error line; and the last line: the best with its flags and how sure the search is."""

from __future__ import annotations

from cockpit.control.search.trial_lines import done_line, trial_line
from cockpit.model.enums import Comparator, Metric
from cockpit.model.search.search import Search, SearchTrial, TrialStatus
from cockpit.model.session import Goal, LaunchProfile, Session, Sweep, Target

BASE = LaunchProfile(id="l1", name="base", command="serve --cuda-graph-max-bs 64 --mem-fraction-static 0.85")
TTFT = Target(id="g1", metric=Metric.TTFT_MS, comparator=Comparator.LE, value=600, unit="ms")


def _session(trials: list[SearchTrial]) -> tuple[Session, Search]:
    search = Search.model_validate({"id": "q1", "name": "n", "profile": "l1", "sweep": "s1", "at_concurrency": 64,
                                    "constraints": ["g1"], "space": {"--cuda-graph-max-bs": [64, 128],
                                                                     "--mem-fraction-static": [0.85, 0.9]},
                                    "trial": [t.model_dump() for t in trials]})
    return Session(launch=[BASE], goal=Goal(targets=[TTFT]), sweeps=[Sweep(id="s1", name="one", concurrencies=[64])],
                   searches=[search]), search


def test_a_trial_line_shows_flags_objective_spread_and_constraints():
    trials = [SearchTrial(number=0, params={"--cuda-graph-max-bs": 128, "--mem-fraction-static": 0.85},
                          status=TrialStatus.OK, value=4200.0, constraints=[-0.05]),
              SearchTrial(number=1, params={"--cuda-graph-max-bs": 128, "--mem-fraction-static": 0.85},
                          status=TrialStatus.OK, value=4400.0, constraints=[0.1], repeat_of=0),
              SearchTrial(number=2, params={"--cuda-graph-max-bs": 64, "--mem-fraction-static": 0.9},
                          status=TrialStatus.CRASHED,
                          error="cuda_oom: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")]
    session, search = _session(trials)
    assert trial_line(session, search, trials[0], "box") == (
        "trial 0 on box ok: --cuda-graph-max-bs 128 · output_tok_s at c=64 4,200 tok/s (configuration median 4,300 tok/s "
        "(4,200–4,400, n=2)) · TTFT mean ≤ 600 ms: met (570)")
    assert trial_line(session, search, trials[1]).endswith("· TTFT mean ≤ 600 ms: broken (660)")
    assert "(relaunch of trial 0)" in trial_line(session, search, trials[1])
    assert trial_line(session, search, trials[2]) == (
        "trial 2 crashed: --mem-fraction-static 0.9 · cuda_oom: torch.OutOfMemoryError: CUDA out of memory. "
        "Tried to allocate 2.00 GiB")


def test_the_last_line_names_the_best_with_its_flags_and_how_sure():
    trials = [SearchTrial(number=0, params={"--cuda-graph-max-bs": 128, "--mem-fraction-static": 0.85},
                          status=TrialStatus.OK, value=4200.0, constraints=[-0.05]),
              SearchTrial(number=1, params={"--cuda-graph-max-bs": 64, "--mem-fraction-static": 0.85},
                          status=TrialStatus.OK, value=4100.0, constraints=[-0.1])]
    session, search = _session(trials)
    assert done_line(session, search) == (
        "done: 2 launches; best trial 0: --cuda-graph-max-bs 128 · output_tok_s median 4,200 tok/s (n=1), estimate 4,152 tok/s "
        "from every launch; runner-up trial 1 median 4,100 tok/s (n=1), estimate 4,148 tok/s: "
        "within the noise of it (not told apart); noise 7.0% (a 7% prior worth 4 relaunches, none measured yet)")


def test_figures_past_ten_thousand_read_as_numbers_not_exponents():
    """A large server's 12,345 tok/s, and a TTFT target's 12,000 ms, never as `1.234e+04`."""
    slow = Target(id="g1", metric=Metric.TTFT_MS, comparator=Comparator.LE, value=10_000, unit="ms")
    trial = SearchTrial(number=0, params={"--cuda-graph-max-bs": 128, "--mem-fraction-static": 0.85},
                        status=TrialStatus.OK, value=12_345.0, constraints=[0.2])
    session, search = _session([trial])
    session = session.model_copy(update={"goal": Goal(targets=[slow])})
    line = trial_line(session, search, trial)
    assert "output_tok_s at c=64 12,345 tok/s (n=1)" in line and "TTFT mean ≤ 10,000 ms: broken (12,000)" in line, line
    assert "e+0" not in line + done_line(session, search)


def test_the_noise_said_is_the_one_the_two_were_told_apart_by():
    """The estimates weigh launches with the relaunches' spread pooled with a prior (7 % worth
    four relaunches); the line says that figure and what it stands on, not the one relaunch's
    0.2 % beside a verdict that the 7 % made (a 10 % gap `within the noise` of `noise 0.6%`)."""
    import math

    from cockpit.model.search.scoring import certainty

    params = [{"--cuda-graph-max-bs": 128, "--mem-fraction-static": 0.85},
              {"--cuda-graph-max-bs": 64, "--mem-fraction-static": 0.85}]
    trials = [SearchTrial(number=0, params=params[0], status=TrialStatus.OK, value=4200.0, constraints=[-0.05]),
              SearchTrial(number=1, params=params[1], status=TrialStatus.OK, value=3800.0, constraints=[-0.1]),
              SearchTrial(number=2, params=params[0], status=TrialStatus.OK, value=4210.0, constraints=[-0.05],
                          repeat_of=0)]
    session, search = _session(trials)
    sure = certainty(search)
    assert sure is not None and sure.best.shrunk is not None
    spread = math.log(4210.0) - math.log(4200.0)
    used = math.sqrt((spread ** 2 / 2 + 4 * 0.07 ** 2) / (1 + 4))  # one relaunch: its squared deviations
    said = sure.noise_text()
    assert said == f"noise {used:.1%} (0.2% measured over 1 relaunch, weighed with a 7% prior worth 4 relaunches)", said
    assert said in done_line(session, search)
