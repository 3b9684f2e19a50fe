"""A search's Pareto front as JSON (`cockpit tune --json`'s last object, `cockpit search
front --json`): per point its trial, params, and per objective the median, min, max and n."""

from __future__ import annotations

from typing import Any

from cockpit.model.search.objectives import unit
from cockpit.model.search.pareto import FrontPoint, pareto_front
from cockpit.model.search.search import Search

__all__ = ["front_json", "point_json"]


def point_json(search: Search, point: FrontPoint) -> dict[str, Any]:
    return {"trial": point.number, "profile": point.config.first.profile, "params": point.config.first.params,
            "figures": {name: {"median": e.median, "min": e.minimum, "max": e.maximum, "n": e.n, "unit": unit(name)}
                        for name, e in zip(search.objectives, point.estimates, strict=True)},
            "within_noise_of": point.close_to, "dominated_by": point.dominated_by}


def front_json(search: Search) -> dict[str, Any]:
    front = pareto_front(search)
    return {"objectives": search.objectives, "directions": [d.value for d in search.directions],
            "front": [point_json(search, p) for p in front.points],
            "noise": [{"objective": name, "share": share, "measured": measured}
                      for name, (share, measured) in zip(search.objectives, front.noise, strict=True)],
            "picked": search.picked}
