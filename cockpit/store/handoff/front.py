"""The handoff's Searches section for a search with several objectives: its Pareto front (per
point the flags changed and each objective's median with min–max, n and unit; which points
are within the noise of another), the person's pick (or that none was made), the points off
the front with what dominates each, and the crashed ones."""

from __future__ import annotations

from collections.abc import Callable

from cockpit.model.search.objectives import heading
from cockpit.model.search.pareto import Front, FrontPoint, figure_text, pareto_front, picked_point
from cockpit.model.search.search import Search, TrialStatus

__all__ = ["front_section"]


def _row(point: FrontPoint, names: dict[int, str], cell: Callable[[str | None], str],
         note: str) -> str:
    figures = " | ".join(e.shown() for e in point.estimates)
    return f"| {point.number} | {cell(names.get(point.number, ''))} | {figures} | {cell(note)} |"


def front_section(search: Search, names: dict[int, str], cell: Callable[[str | None], str],
                  md: Callable[[str | None], str]) -> list[str]:
    """`names`: per trial number its flags changed from the base."""
    front = pareto_front(search)
    out: list[str] = []
    picked = picked_point(search)
    if picked is not None:
        gone = (f" — now off the front: trial {picked.dominated_by} is at least as good on every objective"
                if picked.dominated_by is not None else "")
        out += [f"**Picked by a person** from the front: trial {picked.number} ({picked.config.first.profile}), "
                f"{md(figure_text(search, picked))}{md(gone)}", "",
                f"Changes: {md(names.get(picked.number, '') or 'as the base')}", ""]
    elif front.points:
        out += [f"**No pick yet**: the front has {len(front.points)} configurations; a person picks one "
                f"(`b` in the Search view, or `cockpit search pick SESSION {search.id} TRIAL`).", ""]
    if not front.points:
        out += ["No configuration has met the constraints with every objective measured: no front yet.", ""]
    else:
        out += _front_tables(search, front, names, cell, md, picked.number if picked is not None else None)
    crashed = [t for t in search.trial if t.status is TrialStatus.CRASHED]
    if crashed:
        out += ["Crashed (not to launch again):", "", "| trial | flags changed | error |", "| --- | --- | --- |",
                *(f"| {t.number} | {cell(names.get(t.number, ''))} | {cell(t.error)} |" for t in crashed), ""]
    return out


def _front_tables(search: Search, front: Front, names: dict[int, str], cell: Callable[[str | None], str],
                  md: Callable[[str | None], str], picked: int | None) -> list[str]:
    heads = " | ".join(f"{heading(n)} ({d.value[:3]}) median (min–max, n)"
                       for n, d in zip(search.objectives, search.directions, strict=True))
    rule = " | ".join("---" for _ in search.objectives)
    head = [f"| trial | flags changed | {heads} | note |", f"| --- | --- | {rule} | --- |"]
    at = f"c={search.at_concurrency}" if search.at_concurrency else "the first objective's best sweep point"
    out = [f"Pareto front (no other configuration is at least as good on every objective's median; figures "
           f"at {at}; {md(front.noise_text())}; a point within the noise of another may in truth be "
           "dominated by it):", "", *head,
           *(_row(p, names, cell, ("picked; " if p.number == picked else "")
                  + (f"within noise of trial {', '.join(map(str, p.close_to))}" if p.close_to else "told apart"))
             for p in front.points), ""]
    if front.others:
        out += ["Off the front:", "", *head,
                *(_row(p, names, cell, f"dominated by trial {p.dominated_by}") for p in front.others), ""]
    return out
