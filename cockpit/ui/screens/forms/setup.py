"""Forms for the campaign's setup: the goal, a target, an instruction, a host.

Each collects its fields and checks them with the session model itself (`Target`, `Host`,
...), so a value the file would refuse is refused here, the message under its field.
The main screen applies the result through the SessionEditor (undoable, journaled).
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ValidationError
from textual.widget import Widget
from textual.widgets import Select

from cockpit.model.bench.figures import FIGURES
from cockpit.model.enums import Comparator, GpuSource, Metric
from cockpit.model.session import Goal, Host, Instruction, Target
from cockpit.ui.screens.forms.base import (
    FormInvalid,
    FormScreen,
    area_input,
    choice_input,
    line_input,
    parse_number,
)


def model_errors(model: type[BaseModel], data: dict[str, object], fields: Iterable[str]) -> dict[str, str]:
    """What the session model says about `data`, per form field; a rule about the whole
    record (min above max) lands under the first field it names, else the first field."""
    try:
        model.model_validate(data)
    except ValidationError as exc:
        names = list(fields)
        errors: dict[str, str] = {}
        for error in exc.errors():
            loc = [str(part) for part in error.get("loc", ())]
            message = error["msg"].removeprefix("Value error, ")
            field = next((name for name in loc if name in names), None)
            if field is None:
                field = next((name for name in names if name in message), names[0])
            errors.setdefault(field, message)
        return errors
    return {}


class GoalForm(FormScreen[dict[str, object]]):
    """What the campaign is for: summary, model, hardware."""

    title_text = "Goal"

    def __init__(self, goal: Goal) -> None:
        super().__init__()
        self.goal = goal

    def compose_fields(self) -> Iterable[Widget]:
        yield from self.row("summary", "Summary", area_input(self.goal.summary, "what this campaign is for"))
        yield from self.row("model", "Model", line_input(self.goal.model, "e.g. lukealonso/GLM-5-NVFP4"))
        yield from self.row("hardware", "Hardware", line_input(self.goal.hardware, "e.g. 8x RTX PRO 6000 Blackwell"))

    def collect(self) -> dict[str, object]:
        return {"summary": self.text("summary"), "model": self.text("model") or None,
                "hardware": self.text("hardware") or None}


class TargetForm(FormScreen[dict[str, object]]):
    """A target on any recorded figure and statistic (its unit follows from the figure),
    optionally only over a concurrency range."""

    NUMBERS = ("value", "concurrency_min", "concurrency_max")

    def __init__(self, target: Target | None = None) -> None:
        super().__init__()
        self.target = target
        self.title_text = f"Edit target {target.id}" if target else "New target"

    def compose_fields(self) -> Iterable[Widget]:
        t = self.target
        # the figure with its statistic and unit (`TTFT p99 (ms)`): a target is judged on exactly that
        options = [(f"{f.name} ({f.unit})", f.metric.value) for f in FIGURES]
        yield from self.row("metric", "Figure", Select(options, allow_blank=False, compact=True,
                                                       value=t.metric.value if t else Metric.TOTAL_TOK_S.value))
        yield from self.row("comparator", "Comparator", choice_input((c.value for c in Comparator),
                                                                t.comparator.value if t else Comparator.GE.value))
        yield from self.row("value", "Value", line_input(f"{t.value:g}" if t else "", "e.g. 1000"))
        yield from self.row("concurrency_min", "Conc. from", line_input(t.concurrency_min if t else "", "any"))
        yield from self.row("concurrency_max", "Conc. to", line_input(t.concurrency_max if t else "", "any"))
        yield from self.row("label", "Label", line_input(t.label if t else "", "optional short name"))

    def collect(self) -> dict[str, object]:
        errors: dict[str, str] = {}
        out: dict[str, object] = {
            "metric": Metric(str(self.query_one("#field-metric", Select).value)),
            "comparator": Comparator(str(self.query_one("#field-comparator", Select).value)),
            "label": self.text("label") or None,
        }
        for name in self.NUMBERS:
            try:
                out[name] = parse_number(self.text(name), integer=name != "value", minimum=-1e300)
            except ValueError as exc:
                errors[name] = str(exc)
        if not errors and out["value"] is None:
            errors["value"] = "a target needs a value"
        if not errors:
            errors = model_errors(Target, {"id": "g1", **out}, ["metric", "comparator", *self.NUMBERS])
        if errors:
            raise FormInvalid(errors)
        return out


class InstructionForm(FormScreen[str]):
    """A standing instruction or constraint, in its own words."""

    def __init__(self, instruction: Instruction | None = None) -> None:
        super().__init__()
        self.instruction = instruction
        self.title_text = f"Edit instruction {instruction.id}" if instruction else "New instruction"

    def compose_fields(self) -> Iterable[Widget]:
        yield from self.row("text", "Instruction", area_input(self.instruction.text if self.instruction else "",
                                                         "e.g. never restart the host during a run"))

    def collect(self) -> str:
        text = self.text("text")
        if not text:
            raise FormInvalid({"text": "an instruction needs its text"})
        return text


# (field, label, placeholder); gpu_source is a choice
HOST_LINES: tuple[tuple[str, str, str], ...] = (
    ("name", "Name", "a short name: lxc, gpu1"),
    ("ssh", "SSH", "~/.ssh/config alias or [user@]host[:port]; empty: here"),
    ("jump", "Jump", "a jump host, as ssh -J takes it (optional)"),
    ("log_path", "Log path", "the server log's path on the host"),
    ("log_command", "Log command", "or a command that prints it: docker logs -f --tail 0 sglang"),
    ("gpu_interval_s", "GPU every s", "1.0"),
    # at 80 columns the field shows ~60 cells: the default URL first, whole (issue 39: it was cut)
    ("dcgm_url", "DCGM URL", "empty: http://127.0.0.1:9400/metrics (for GPU source dcgm)"),
    ("metrics_url", "Metrics URL", "http://127.0.0.1:30000/metrics as the host sees it (optional)"),
)


class HostForm(FormScreen[dict[str, object]]):
    """A machine: how to reach it, where its server log is, where its GPUs are read."""

    def __init__(self, host: Host | None = None, taken: Iterable[str] = ()) -> None:
        super().__init__()
        self.host = host
        self.taken = set(taken) - ({host.name} if host else set())
        self.title_text = f"Edit host {host.name}" if host else "New host"

    def compose_fields(self) -> Iterable[Widget]:
        h = self.host
        for name, label, placeholder in HOST_LINES:
            value = getattr(h, name) if h else ("1.0" if name == "gpu_interval_s" else "")
            yield from self.row(name, label, line_input(f"{value:g}" if isinstance(value, float) else value,
                                                    placeholder))
            if name == "log_command":
                yield from self.row("gpu_source", "GPU source", choice_input(
                    (g.value for g in GpuSource), h.gpu_source.value if h else GpuSource.NONE.value))

    def collect(self) -> dict[str, object]:
        out: dict[str, object] = {name: self.text(name) or None for name, _label, _ph in HOST_LINES}
        out["gpu_source"] = GpuSource(str(self.query_one("#field-gpu_source", Select).value))
        errors: dict[str, str] = {}
        try:
            interval = parse_number(self.text("gpu_interval_s"), minimum=-1e300)
            out["gpu_interval_s"] = 1.0 if interval is None else interval
        except ValueError as exc:
            errors["gpu_interval_s"] = str(exc)
        if not out["name"]:
            errors["name"] = "a host needs a name"
        elif out["name"] in self.taken:
            errors["name"] = f"there is a host named {out['name']} already"
        if out["log_path"] and out["log_command"]:
            errors["log_command"] = "a log path or a log command, not both"
        if not errors:
            errors = model_errors(Host, out, [name for name, *_ in HOST_LINES])
            if "name" in errors:
                errors["name"] = "letters, digits, '.', '_' and '-' only"
            for url in ("metrics_url", "dcgm_url"):
                if url in errors:
                    errors[url] = "a URL that starts with http:// or https://"
        if errors:
            raise FormInvalid(errors)
        return out
