"""What a person reads of a search as it runs: one line per finished trial (the flags it
changed, the objective with its configuration's spread, each constraint met or broken with
its figure, a crash's first error line), the run's last line (the best with its flags and
how sure the search is of it), and the same as one JSON object per trial (`--json`)."""

from __future__ import annotations

from cockpit.control.search.front_lines import front_summary, front_words
from cockpit.model.bench.estimate import shown_number
from cockpit.model.figures import figure
from cockpit.model.search.objectives import unit
from cockpit.model.search.scoring import ConfigResult, certainty, leaderboard
from cockpit.model.search.search import Search, SearchTrial, SpaceValue, TrialStatus
from cockpit.model.search.space import config_key, derived_name
from cockpit.model.session import Session

__all__ = ["constraint_words", "done_line", "first_error_line", "flags_changed", "trial_json", "trial_line"]


def flags_changed(session: Session, search: Search, params: dict[str, SpaceValue]) -> str:
    base = next((p for p in session.launch if p.id == search.profile), None)
    if base is None:
        return " ".join(f"{k} {v}" for k, v in params.items())
    return derived_name(search, base, params).partition(" · ")[2]


def first_error_line(error: str | None) -> str:
    """A crash's first error line (`cuda_oom: torch.OutOfMemoryError: CUDA out of memory ...`)."""
    if not error:
        return "no error line recorded"
    line = next((x.strip() for x in error.splitlines() if x.strip()), error)
    return line[:200]


def constraint_words(session: Session, search: Search, trial: SearchTrial) -> list[str]:
    """Per constraint: `TTFT p99 <= 600 ms: met (583)` or `broken (712)` (the figure back from its gap)."""
    out = []
    for i, ref in enumerate(search.constraints):
        target = next((t for t in session.goal.targets if t.id == ref), None)
        if target is None or i >= len(trial.constraints):
            continue
        gap = trial.constraints[i]
        scale = abs(target.value) or 1.0
        figure = target.value - gap * scale if target.comparator.higher_is_better else target.value + gap * scale
        out.append(f"{target.describe()}: {'met' if gap <= 0 else 'broken'} ({shown_number(figure)})")
    return out


def _group(search: Search, trial: SearchTrial) -> ConfigResult | None:
    key = config_key(search, trial.params)
    return next((g for g in leaderboard(search) if g.key == key), None)


def trial_line(session: Session, search: Search, trial: SearchTrial, host: str | None = None) -> str:
    where = f" on {host}" if host else ""
    head = f"trial {trial.number}{where}"
    if trial.repeat_of is not None:
        head += f" (relaunch of trial {trial.repeat_of})"
    if trial.reused:
        head += " (measured before: reused, not launched)"
    flags = flags_changed(session, search, trial.params) or "as the base"
    if trial.status is TrialStatus.CRASHED:
        return f"{head} crashed: {flags} · {first_error_line(trial.error)}"
    if trial.status is TrialStatus.FAILED:
        return f"{head} failed: {flags} · {first_error_line(trial.error)}"
    words = [f"{head} {trial.status.value}: {flags}"]
    if search.multi and trial.values:
        words.append(front_words(search, trial))
    elif trial.value is not None:
        group = _group(search, trial)
        estimate = group.estimate if group is not None else None
        what = unit(search.primary)
        spread = (f" (configuration median {estimate.shown(what)})" if estimate is not None and estimate.n > 1
                  else " (n=1)")
        at = f" at c={search.at_concurrency}" if search.at_concurrency else " (best point of the sweep)"
        words.append(f"{search.primary}{at} {figure(trial.value, what)}{spread}")
    words += constraint_words(session, search, trial)
    if trial.status is TrialStatus.PRUNED and trial.error:
        words.append(trial.error)
    return " · ".join(words)


def done_line(session: Session, search: Search, *, short: bool = False) -> str:
    """The run's last line: how many launches, the best with its flags, and how sure it is
    (`short`: the best's median only, for where the person left off)."""
    launched = sum(1 for t in search.trial if t.status is not TrialStatus.RUNNING and not t.reused)
    reused = sum(1 for t in search.trial if t.reused)
    head = f"done: {launched} launches" + (f" + {reused} reused" if reused else "")
    if search.multi:
        return f"{head}; {front_summary(session, search)}"
    sure = certainty(search)
    if sure is None:
        return f"{head}; no configuration has met the constraints"
    best = sure.best
    lead = best.estimate
    shown = (f"{search.primary} median {lead.shown(unit(search.primary))}" if short and lead is not None
             else sure.shown(search.primary))
    return (f"{head}; best trial {best.first.number}: {flags_changed(session, search, best.first.params) or 'as the base'}"
            f" · {shown}")


def trial_json(session: Session, search: Search, trial: SearchTrial) -> dict[str, object]:
    """One finished trial as `--json` streams it (one object per line)."""
    group = _group(search, trial)
    estimate = group.estimate if group is not None else None
    return {"search": search.id, "trial": trial.number, "status": trial.status.value, "host": trial.host,
            "repeat_of": trial.repeat_of, "reused": trial.reused, "params": trial.params,
            "flags_changed": flags_changed(session, search, trial.params), "profile": trial.profile,
            "objective": search.objective, "value": trial.value,
            **({"objectives": search.objectives, "values": trial.values} if search.multi else {}),
            "configuration": None if estimate is None else {"median": estimate.median, "min": estimate.minimum,
                                                            "max": estimate.maximum, "n": estimate.n},
            "constraints": constraint_words(session, search, trial),
            "error": first_error_line(trial.error) if trial.error else None}
