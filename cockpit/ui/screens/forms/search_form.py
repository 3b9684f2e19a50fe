"""The form of a search: base profile, sweep, objective, constraints, budget, and the space,
one dimension a line as `cockpit add search --space` takes them. Checked with the session
model itself (`Search`), so what the file would refuse is refused here."""

from __future__ import annotations

from collections.abc import Iterable

from textual.widget import Widget
from textual.widgets import Select

from cockpit.model.edit.edits import EditError
from cockpit.model.search.edits import parse_dimension, space_text
from cockpit.model.search.search import OBJECTIVES, Search
from cockpit.model.session import Session
from cockpit.ui.screens.forms.base import (
    FormInvalid,
    FormScreen,
    area_input,
    check_ids,
    choice_input,
    line_input,
    parse_number,
)
from cockpit.ui.screens.forms.setup import model_errors

NO_SECOND = "(none)"
SPACE_HINT = "one a line: cuda-graph-max-bs=32,64,128 | mem-fraction-static=0.80:0.92:0.02 | enable-torch-compile=switch"


class SearchForm(FormScreen[dict[str, object]]):
    NUMBERS = ("at_concurrency", "trials", "repeats")

    def __init__(self, session: Session, search: Search | None = None) -> None:
        super().__init__()
        self.session = session
        self.search = search
        self.title_text = f"Edit search {search.id}" if search else "New search"

    def compose_fields(self) -> Iterable[Widget]:
        q, s = self.search, self.session
        profiles = [p.id for p in s.launch] or ["(no profile)"]
        sweeps = [w.id for w in s.sweeps] or ["(no sweep)"]
        yield from self.row("name", "Name", line_input(q.name if q else "", "e.g. graph bs x prefill"))
        yield from self.row("profile", "Base profile", choice_input(profiles, q.profile if q else profiles[0]))
        yield from self.row("sweep", "Sweep", choice_input(sweeps, q.sweep if q else sweeps[0]))
        yield from self.row("objective", "Objective", choice_input(OBJECTIVES, q.primary if q else "output_tok_s"))
        # a second objective makes the search find a Pareto front (each objective goes its own way)
        second = q.objectives[1] if q is not None and q.multi else NO_SECOND
        yield from self.row("objective2", "2nd objective", choice_input((NO_SECOND, *OBJECTIVES), second))
        yield from self.row("direction", "Direction", choice_input(("maximize", "minimize"),
                                                              q.direction.value if q else "maximize"))
        yield from self.row("at_concurrency", "At conc.", line_input(q.at_concurrency if q else "", "the sweep's best"))
        yield from self.row("constraints", "Constraints", line_input(", ".join(q.constraints) if q else "",
                                                                 "target ids, e.g. g2"))
        yield from self.row("trials", "Launches", line_input(q.trials if q else 12))
        yield from self.row("repeats", "Repeats", line_input(q.repeats if q else 0))
        yield from self.row("space", "Space", area_input(space_text(q) if q else "", SPACE_HINT))
        # a fixed seed makes the sampler's picks the same each run (unset: a fresh one each run)
        yield from self.row("seed", "Seed", line_input(q.seed if q and q.seed is not None else "",
                                                       "fresh each run"))

    def collect(self) -> dict[str, object]:
        errors: dict[str, str] = {}
        out: dict[str, object] = {"name": self.text("name"), "profile": str(self.query_one("#field-profile", Select).value),
                               "sweep": str(self.query_one("#field-sweep", Select).value),
                               "objective": str(self.query_one("#field-objective", Select).value),
                               "direction": str(self.query_one("#field-direction", Select).value)}
        for name in self.NUMBERS:
            try:
                out[name] = parse_number(self.text(name), integer=True, minimum=0)
            except ValueError as exc:
                errors[name] = str(exc)
        try:
            out["seed"] = parse_number(self.text("seed"), integer=True, minimum=0)
        except ValueError as exc:
            errors["seed"] = str(exc)
        out["trials"] = out.get("trials") or 12
        out["repeats"] = out.get("repeats") or 0
        try:
            out["constraints"] = check_ids(self.text("constraints"), (t.id for t in self.session.goal.targets),
                                           "target")
        except ValueError as exc:
            errors["constraints"] = str(exc)
        try:
            lines = [line for line in self.text("space").splitlines() if line.strip()]
            out["space"] = dict(parse_dimension(line) for line in lines)
        except (EditError, ValueError) as exc:
            errors["space"] = str(exc)
        second = str(self.query_one("#field-objective2", Select).value)
        if second != NO_SECOND:  # a third (written in the file) is kept: the form shows two
            kept = self.search.objectives[2:] if self.search is not None else []
            out["objective"] = [out["objective"], second, *kept]
        if not out["name"]:
            errors["name"] = "a search needs a name"
        if not errors:
            errors = model_errors(Search, {"id": "q1", **out}, ["name", "objective", *self.NUMBERS, "space", "seed"])
        if errors:
            raise FormInvalid(errors)
        return out
