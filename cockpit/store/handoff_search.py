"""The handoff's Searches section: per search the best configuration with its diff from the
base, the top trials and the crashed ones (what the next engineer should not launch again)."""

from __future__ import annotations

from collections.abc import Callable

from cockpit.model.search.search import Search, SearchTrial, TrialStatus
from cockpit.model.search.search_scoring import best_config, leaderboard, noise_share
from cockpit.model.search.search_space import derived_name
from cockpit.model.session import Session

__all__ = ["searches_section"]

TOP = 5


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"


def _trial_row(search: Search, t: SearchTrial, name: str, cell: Callable[[str | None], str]) -> str:
    met = "—" if not t.constraints else ("yes" if all(c <= 0 for c in t.constraints) else "no")
    return (f"| {t.number} | {cell(name)} | {t.status.value} | {_num(t.value)} | {met} | {_num(t.power_mean_w)} | "
            f"{_num(t.output_tok_per_joule)} | {cell(t.error)} |")


def searches_section(s: Session, cell: Callable[[str | None], str], md: Callable[[str | None], str]) -> list[str]:
    out: list[str] = []
    for search in s.searches:
        base = next((p for p in s.launch if p.id == search.profile), None)
        if base is None:
            continue
        done = [t for t in search.trial if t.status is not TrialStatus.RUNNING]
        out += [f"### {md(search.name)} ({search.id})", "",
                f"{len(done)} of {search.trials} launches; {search.objective}"
                + (f" at c={search.at_concurrency}" if search.at_concurrency else "")
                + f", {search.direction.value}" + (f"; constraints {', '.join(search.constraints)}"
                                                   if search.constraints else ""), ""]
        best = best_config(search)
        if best is None:
            out += ["No configuration has met the constraints yet.", ""]
        else:
            noise = noise_share(search)
            est = best.estimate
            said = est.text() if est is not None else "—"
            out += [f"**Best**: trial {best.first.number} ({best.first.profile}), {search.objective} "
                    f"{said} over {len(best.values)} launch(es)"
                    + (f"; noise between relaunches {noise:.1%}" if noise else ""), "",
                    f"Changes from {base.id}: {md(derived_name(search, base, best.first.params).partition(' · ')[2])}",
                    ""]
        names = {t.number: derived_name(search, base, t.params).partition(" · ")[2] for t in search.trial}
        head = ["| trial | flags changed | status | objective | constraints met | power W | output tok/J | note |",
                "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        top = [g.first for g in leaderboard(search) if g.feasible][:TOP]
        if top:
            out += ["Top trials:", "", *head, *(_trial_row(search, t, names[t.number], cell) for t in top), ""]
        crashed = [t for t in search.trial if t.status is TrialStatus.CRASHED]
        if crashed:
            out += ["Crashed (not to launch again):", "", *head,
                    *(_trial_row(search, t, names[t.number], cell) for t in crashed), ""]
    return out
