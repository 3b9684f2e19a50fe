"""The sweep form: a new sweep or an existing one, every dataset of the bench client with
its own fields (model/bench/sweep_dataset.py). Only the chosen dataset's fields are kept; the
model's own check says what does not fit, under the field it names."""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError
from textual.widget import Widget
from textual.widgets import Select

from cockpit.model.bench.sweep_dataset import DATASETS, MOONCAKE_WORKLOADS, fields_of
from cockpit.model.session import Sweep
from cockpit.ui.safe_text import safe
from cockpit.ui.screens.forms.base import FormInvalid, FormLine, FormScreen, parse_number

# field -> (label, placeholder, integer?) for the typed fields; the dataset's own ones say which dataset
_NUMBERS: dict[str, tuple[str, str, bool]] = {
    "input_len": ("Input len", "random / random-ids: tokens per prompt", True),
    "output_len": ("Output len", "random / random-ids / sharegpt: tokens per answer", True),
    "range_ratio": ("Range ratio", "random / random-ids: length spread, 0-1 (1: fixed)", False),
    "prompts": ("Prompts / point", "empty: prompts per concurrency x concurrency", True),
    "prompts_per_concurrency": ("Prompts per conc.", "4 unless set", False),
    "repeats": ("Repeats", "runs of each point, 1 unless set (3: a median and its spread)", True),
    "request_rate": ("Request rate", "requests/s; empty: all at once", False),
    "sharegpt_context_len": ("Context len", "sharegpt: drop longer requests", True),
    "gsp_num_groups": ("GSP groups", "generated-shared-prefix: system prompt groups", True),
    "gsp_prompts_per_group": ("GSP per group", "generated-shared-prefix: prompts per group", True),
    "gsp_system_prompt_len": ("GSP system len", "generated-shared-prefix: system prompt tokens", True),
    "gsp_question_len": ("GSP question len", "generated-shared-prefix: question tokens", True),
    "gsp_output_len": ("GSP output len", "generated-shared-prefix: output tokens", True),
    "mooncake_slowdown_factor": ("Trace slowdown", "mooncake: 2 = replay at half speed", False),
    "mooncake_num_rounds": ("Trace rounds", "mooncake: rounds per session", True),
}
_OWN = {name for d in DATASETS for name in fields_of(d)}


def _shown(value: object) -> str:
    if value is None or value is False:
        return ""
    return f"{value:g}" if isinstance(value, float) else str(value)


class SweepForm(FormScreen[dict[str, object]]):
    """Returns the sweep's fields (all of them: an edit replaces what the dataset no longer reads)."""

    def __init__(self, sweep: Sweep | None = None) -> None:
        super().__init__()
        self.sweep = sweep
        self.title_text = f"Edit sweep {sweep.id}" if sweep is not None else "New sweep"

    def _value(self, name: str) -> Any:
        return getattr(self.sweep if self.sweep is not None else Sweep(id="s0", name="x"), name)

    def compose_fields(self) -> Iterable[Widget]:
        yield from self.row("name", "Name", FormLine(safe(self._value("name") if self.sweep else ""),
                                                     placeholder="e.g. chat 1k/1k", compact=True))
        yield from self.row("dataset", "Dataset", Select([(d, d) for d in DATASETS], allow_blank=False,
                                                         compact=True, value=self._value("dataset").value))
        yield from self.row("concurrencies", "Concurrencies", FormLine(
            " ".join(map(str, self._value("concurrencies"))), placeholder="e.g. 1 4 16 64", compact=True))
        yield from self.row("dataset_path", "Dataset path", FormLine(
            safe(self._value("dataset_path")), placeholder="sharegpt / mooncake: the file on the host", compact=True))
        workload = self._value("mooncake_workload")
        chosen: dict[str, Any] = {"value": workload} if workload else {}
        yield from self.row("mooncake_workload", "Trace workload", Select(
            [(w, w) for w in MOONCAKE_WORKLOADS], compact=True, prompt="mooncake: the client's default", **chosen))
        yield from self.row("use_trace_timestamps", "Trace times", FormLine(
            "yes" if self._value("use_trace_timestamps") else "", placeholder="mooncake: yes = replay at the "
                                                                              "trace's timestamps", compact=True))
        for name, (label, hint, _) in _NUMBERS.items():
            yield from self.row(name, label, FormLine(_shown(self._value(name)), placeholder=hint, compact=True))
        yield from self.row("extra_args", "Extra args", FormLine(
            safe(shlex.join(self._value("extra_args"))), placeholder="more client flags, e.g. --seed 7",
            compact=True))

    def on_mount(self) -> None:
        self._show_dataset_fields()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "field-dataset":
            self._show_dataset_fields()

    def _show_dataset_fields(self) -> None:
        """Only the chosen dataset's own fields are shown (issue 39: every dataset's made the
        form taller than an 80x24 screen); the others are not this sweep's (see collect)."""
        dataset = str(self.query_one("#field-dataset", Select).value)
        own = set(fields_of(dataset))
        for name in _OWN:
            shown = name in own
            self.field(name).parent.display = shown  # type: ignore[union-attr]  # its form row
            self.query_one(f"#error-{name}").display = shown

    def collect(self) -> dict[str, object]:
        errors: dict[str, str] = {}
        dataset = str(self.query_one("#field-dataset", Select).value)
        out: dict[str, object] = {"name": self.text("name"), "dataset": dataset}
        if not out["name"]:
            errors["name"] = "a sweep needs a name"
        try:
            out["concurrencies"] = concurrencies = [int(c) for c in self.text("concurrencies").replace(",", " ").split()]
            if not concurrencies or min(concurrencies) < 1:
                raise ValueError
        except ValueError:
            errors["concurrencies"] = "whole numbers of 1 or more, e.g. 1 4 16 64"
        for name, (_, _, integer) in _NUMBERS.items():
            try:
                out[name] = parse_number(self.text(name), integer=integer)
            except ValueError as exc:
                errors[name] = str(exc)
        out["dataset_path"] = self.text("dataset_path") or None
        workload = self.query_one("#field-mooncake_workload", Select).value
        out["mooncake_workload"] = workload if isinstance(workload, str) else None  # blank: not a str
        out["use_trace_timestamps"] = self.text("use_trace_timestamps").lower() in ("yes", "y", "true", "1")
        try:
            out["extra_args"] = shlex.split(self.text("extra_args"))
        except ValueError as exc:
            errors["extra_args"] = f"unbalanced quotes ({exc})"
        for name in _OWN - set(fields_of(dataset)):  # another dataset's fields: not this sweep's
            out[name] = False if name == "use_trace_timestamps" else None
        for name in ("input_len", "output_len", "range_ratio", "prompts_per_concurrency", "repeats"):
            if out.get(name) is None:  # empty: the model's default
                out.pop(name, None)
        if errors:
            raise FormInvalid(errors)
        try:
            Sweep.model_validate({"id": self.sweep.id if self.sweep else "s0", **out})
        except ValidationError as exc:
            first = exc.errors()[0]
            where = str(first["loc"][0]) if first["loc"] else "extra_args"
            raise FormInvalid({where if where in out else "extra_args": first["msg"].removeprefix("Value error, ")}) from None
        return out
