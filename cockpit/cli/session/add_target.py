"""`cockpit add target SESSION "TTFT p99 <= 2000"`: a goal target on any recorded figure and
statistic, typed as a person says it (the figure's words, a comparator, a number)."""

from __future__ import annotations

import re

from cockpit.model.bench.figures import figure_of, parse_figure
from cockpit.model.enums import Comparator

__all__ = ["target_fields"]

_GOAL = re.compile(r"^(?P<figure>.+?)\s*(?P<cmp>>=|<=|≥|≤|>|<)\s*(?P<value>[0-9][0-9,_]*(?:\.[0-9]+)?)\s*"
                   r"(?P<unit>[A-Za-z/]+)?\s*$")
_SYMBOLS = {"≥": ">=", "≤": "<="}
_RANGE = re.compile(r"^(?P<low>\d+)?\.\.(?P<high>\d+)?$|^(?P<one>\d+)$")


def target_fields(text: str, concurrency: str | None = None, label: str | None = None) -> dict[str, object]:
    """The Target fields of `TTFT p99 <= 2000` (a unit after the number is allowed and must be
    the figure's); `concurrency`: `1..64`, `8..`, `..16` or `32`. ValueError saying why."""
    found = _GOAL.match(text.strip())
    if not found:
        raise ValueError(f"{text!r}: write the figure, a comparator and a number, e.g. \"TTFT p99 <= 2000\"")
    metric = parse_figure(found["figure"])
    comparator = Comparator(_SYMBOLS.get(found["cmp"], found["cmp"]))
    unit = figure_of(metric).unit
    if found["unit"] and found["unit"].lower() != unit.lower():
        raise ValueError(f"{text!r}: {figure_of(metric).name} is in {unit}, not {found['unit']}")
    fields: dict[str, object] = {"metric": metric, "comparator": comparator,
                              "value": float(found["value"].replace(",", "").replace("_", ""))}
    if concurrency:
        span = _RANGE.match(concurrency.strip())
        if not span:
            raise ValueError(f"--concurrency-range {concurrency!r}: write 1..64, 8.., ..16 or 32")
        low, high = (span["one"], span["one"]) if span["one"] else (span["low"], span["high"])
        if low is not None:
            fields["concurrency_min"] = int(low)
        if high is not None:
            fields["concurrency_max"] = int(high)
    if label:
        fields["label"] = label
    return fields
