"""What a search launches next: a new configuration, or a relaunch that races the leader
against the configurations not yet told apart from it.

The launch budget is `trials` (or `--trials`) plus `repeats`. Exploring spends it until the
last `repeats` launches, or RACE_SHARE of the trials where that is more (SMALL_RACE_SHARE under
SMALL_BUDGET launches; at least one launch);
from there, while the leader has one launch or is within the noise of a contender, the
contender with the fewest launches (the leader on a tie) is relaunched; once the leader is
told apart and launched twice, exploring goes on. A space with nothing left to try races to
the end of the budget, and stops once the leader is told apart. Pure: the loop and the benchmark's simulation both call it.
"""

from __future__ import annotations

import math
import random

from cockpit.control.search.next_launch import NextLaunch
from cockpit.control.search.study import propose
from cockpit.model.search.scoring import ConfigResult, contenders, leaderboard
from cockpit.model.search.search import Direction, Search
from cockpit.model.search.shrunk import Shrunk

__all__ = ["RACE_SHARE", "NextLaunch", "launch_budget", "next_launch"]

TOP_TWO_BETA = 0.5  # with RACE_PICK "top-two": the share of the race's draws that relaunch the drawn leader
EVEN_TOP = 3  # with RACE_PICK "even-top": how many of the board's top the race splits its launches over
UCB_Z = 1.0  # with RACE_PICK "ucb": the sds of its estimate a contender is credited with
# which contender a race relaunches: "fewest" launches (kept); measured and not kept (bench_search.py
# --variants): the least sure shrunk estimate ("sd"), a bandit's "ucb", best-arm identification's "top-two"
RACE_PICK = "fewest"
PARETO_RACE_SHARE = 0.2  # a front's relaunches (not measured with the shrunk estimate: it ranks one objective)
RACE_SHARE = 0.3  # the budget's last share, kept for races (bench_search.py: 0.3 with the shrunk estimate, of 0.1–0.4)
# below SMALL_BUDGET launches exploring pays more than racing: the race keeps SMALL_RACE_SHARE
# (bench_search.py, 200 seeds: crashbest 27.5 -> 38 %, the held-out smallcat 44 -> 54 %, smallnum 48 -> 45 %)
SMALL_BUDGET = 20
SMALL_RACE_SHARE = 0.1


def launch_budget(search: Search, trials: int | None = None) -> int:
    """Every launch the run may make: `trials` (the person's --trials, else the search's) plus `repeats`."""
    return (trials if trials is not None else search.trials) + search.repeats


def _board(search: Search) -> tuple[list[tuple[ConfigResult, Shrunk]], float]:
    """The feasible configurations with a shrunk estimate, and the sign that makes larger better."""
    board = [(g, g.shrunk) for g in leaderboard(search) if g.feasible and g.shrunk is not None]
    return board, 1.0 if search.direction is Direction.MAXIMIZE else -1.0


def _ucb(search: Search) -> NextLaunch | None:
    """The feasible configuration whose shrunk estimate plus UCB_Z sds is best (a bandit's race)."""
    board, sign = _board(search)
    if not board:
        return None
    pick, _ = max(board, key=lambda gs: sign * math.log(gs[1].value) + UCB_Z * gs[1].sd_log)
    return NextLaunch(dict(pick.first.params), pick.first.number,
                      f"relaunch of trial {pick.first.number}: the race's most promising")


def _top_two(search: Search, seed: int) -> NextLaunch | None:
    """Top-two Thompson sampling (Russo 2016, a best-arm identification rule): a draw of every
    feasible configuration's shrunk estimate names a leader; half the time it is relaunched,
    else the leader of redraws that name another (its challenger)."""
    board, sign = _board(search)
    if len(board) < 2:
        return None
    rng = random.Random(seed * 31 + len(search.trial))

    def drawn() -> int:
        return max(range(len(board)),
                   key=lambda i: sign * math.log(board[i][1].value) + rng.gauss(0.0, board[i][1].sd_log))

    first = drawn()
    pick = first
    if rng.random() >= TOP_TWO_BETA:
        for _ in range(100):
            if (pick := drawn()) != first:
                break
    g = board[pick][0]
    return NextLaunch(dict(g.first.params), g.first.number, f"relaunch of trial {g.first.number}: the race's draw")


def _even_top(search: Search) -> NextLaunch | None:
    """The least launched of the board's top EVEN_TOP, told apart or not (the oracle's even race)."""
    board, _ = _board(search)
    top = [g for g, _ in board[:EVEN_TOP]]
    if len(top) < 2:
        return None
    g = min(top, key=lambda g: len(g.values))
    return NextLaunch(dict(g.first.params), g.first.number, f"relaunch of trial {g.first.number}: the race's top {EVEN_TOP}")


def _race(search: Search, seed: int = 0) -> NextLaunch | None:
    """The relaunch the race needs next (None: the leader is launched twice and told apart)."""
    if RACE_PICK == "even-top" and (step := _even_top(search)) is not None:
        return step
    if RACE_PICK == "ucb" and (step := _ucb(search)) is not None:
        return step
    if RACE_PICK == "top-two" and (step := _top_two(search, seed)) is not None:
        return step
    group = contenders(search)
    if not group:
        return None
    lead = group[0]
    if len(group) == 1 and len(lead.values) >= 2:
        return None
    pick: ConfigResult = min(group, key=lambda g: len(g.values))  # min keeps the first (the leader) on a tie
    if RACE_PICK == "sd" and all(g.shrunk is not None for g in group):
        pick = max(group, key=lambda g: g.shrunk.sd_log if g.shrunk is not None else 0.0)
    if len(group) == 1:
        why = f"relaunch of the leader (trial {lead.first.number}): a best has at least two launches"
    elif pick is lead:
        why = f"relaunch of the leader (trial {lead.first.number}): within the noise of trial {group[1].first.number}"
    else:
        why = f"relaunch of trial {pick.first.number}: within the noise of the leader (trial {lead.first.number})"
    return NextLaunch(dict(pick.first.params), pick.first.number, why)


def next_launch(search: Search, budget: int, *, seed: int, sampler: str | None = None,
                race_share: float | None = None) -> NextLaunch | None:
    """The next launch within `budget` launches in all (None: the budget is spent, or nothing
    is left to learn)."""
    if search.multi:  # several objectives: a Pareto front, the person picks
        from cockpit.control.search.pareto_sampler import pareto_launch

        return pareto_launch(search, budget, seed=seed, sampler=sampler or "tpe",
                             race_share=PARETO_RACE_SHARE if race_share is None else race_share)
    left = budget - sum(1 for t in search.trial if not t.reused)
    if left <= 0:
        return None
    # the race keeps the person's `repeats`, or the share of the rest where that is more
    share = RACE_SHARE if race_share is None else race_share
    if race_share is None and budget < SMALL_BUDGET:
        share = SMALL_RACE_SHARE
    reserve = max(1, search.repeats, round((budget - search.repeats) * share))
    if left <= reserve and (race := _race(search, seed)) is not None:
        return race
    params = propose(search, seed=seed, sampler=sampler)
    if params is not None:
        return NextLaunch(params, None, "")
    return _race(search, seed)  # the space is exhausted: only relaunches can still tell the best apart
