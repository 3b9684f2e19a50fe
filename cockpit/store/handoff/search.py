"""The handoff's Searches section: per search the best configuration with its diff from the
base and how sure the search is of it (the median over its launches, min–max and n, the
runner-up and whether the noise tells them apart), the top configurations ranked as the
search ranks them, and the crashed ones with why (what the next engineer should not launch
again)."""

from __future__ import annotations

from collections.abc import Callable

from cockpit.model.bench.estimate import shown_number
from cockpit.model.figures import number, three_figures
from cockpit.model.search.objectives import heading, unit
from cockpit.model.search.scoring import ConfigResult, certainty, leaderboard
from cockpit.model.search.search import Search, SearchTrial, TrialStatus
from cockpit.model.search.space import derived_name
from cockpit.model.session import Session
from cockpit.store.handoff.front import front_section

__all__ = ["searches_section"]

TOP = 5


def _num(value: float | None) -> str:
    return "—" if value is None else shown_number(value)


def _trial_row(search: Search, t: SearchTrial, name: str, cell: Callable[[str | None], str],
               group: ConfigResult | None = None) -> str:
    # a configuration's constraints hold on the median over its launches (as the search
    # ranks it), never on its first launch alone
    holds = group.feasible if group is not None else all(c <= 0 for c in t.constraints)
    met = "—" if not t.constraints else ("yes" if holds else "no")
    estimate = group.estimate if group is not None else None
    value = estimate.shown() if estimate is not None else _num(t.value)
    pooled = _num(group.shrunk.value) if group is not None and group.shrunk is not None else "—"
    return (f"| {t.number} | {cell(name)} | {t.status.value} | {value} | {pooled} | {met} | {number(t.power_mean_w)} | "
            f"{three_figures(t.output_tok_per_joule)} | {cell(t.error)} |")


def searches_section(s: Session, cell: Callable[[str | None], str], md: Callable[[str | None], str]) -> list[str]:
    out: list[str] = []
    for search in s.searches:
        base = next((p for p in s.launch if p.id == search.profile), None)
        if base is None:
            continue
        done = [t for t in search.trial if t.status is not TrialStatus.RUNNING and not t.reused]
        reused = sum(1 for t in search.trial if t.reused)
        budget = search.trials + search.repeats
        out += [f"### {md(search.name)} ({search.id})", "",
                f"{len(done)} of {budget} launches" + (f" (+ {reused} measured before, reused)" if reused else "")
                + f"; {' × '.join(search.objectives)}"
                + (f" at c={search.at_concurrency}" if search.at_concurrency else "")
                + f", {'/'.join(d.value for d in search.directions)}"
                + (f"; constraints {', '.join(search.constraints)}" if search.constraints else ""), ""]
        if search.multi:  # several objectives: the front and the person's pick, not a computed best
            out += front_section(search, {t.number: derived_name(search, base, t.params).partition(" · ")[2]
                                          for t in search.trial}, cell, md)
            continue
        sure = certainty(search)
        if sure is None:
            out += ["No configuration has met the constraints yet.", ""]
        else:
            best = sure.best
            out += [f"**Best**: trial {best.first.number} ({best.first.profile}), {md(sure.shown(search.primary))}",
                    "",
                    f"Changes from {base.id}: {md(derived_name(search, base, best.first.params).partition(' · ')[2])}",
                    ""]
        names = {t.number: derived_name(search, base, t.params).partition(" · ")[2] for t in search.trial}
        said = unit(search.primary)
        head = [f"| trial | flags changed | status | {heading(search.primary)} median (min–max, n) | "
                f"estimate{f' {said}' if said else ''} from every launch | constraints met | power W mean | "
                "output tok/J | note |",
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        top = [g for g in leaderboard(search) if g.feasible][:TOP]
        if top:
            out += ["Top configurations (the best first, then by the estimate from every launch, which weighs a "
                    "configuration's own launches against what the launches of its neighbours say: a higher median "
                    "of one or two lucky launches can rank lower; of those within the noise of the top, the most "
                    "launched is the best):", "", *head,
                    *(_trial_row(search, g.first, names[g.first.number], cell, g) for g in top), ""]
        crashed = [t for t in search.trial if t.status is TrialStatus.CRASHED]
        if crashed:
            out += ["Crashed (not to launch again):", "", *head,
                    *(_trial_row(search, t, names[t.number], cell) for t in crashed), ""]
    return out
