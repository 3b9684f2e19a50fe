"""The edit forms: task, discovery, last action (a benchmark's is benchmark_form.py), task -> discovery links, and
the simple records (patched file, package version, launch profile).

Each returns plain values (a dict or a list of ids); the main screen applies them through
the SessionEditor. Validation that needs the session (ids that must exist) happens here,
so the person sees the message under the field instead of an error after the fact.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypedDict

from textual.widget import Widget
from textual.widgets import Select, SelectionList

from cockpit.model.enums import DiscoveryStatus, FileState
from cockpit.model.session import Discovery, LastAction, Session, Task
from cockpit.ui.safe_text import inert
from cockpit.ui.screens.forms.base import FormInvalid, FormScreen, area_input, check_ids, line_input
from cockpit.ui.screens.forms.benchmark_form import BenchmarkForm  # one place to import every form from

__all__ = ["BenchmarkForm", "DiscoveryFields", "DiscoveryForm", "FieldSpec", "LastActionFields", "LastActionForm", "LinkForm",
           "RecordForm", "TaskFields", "TaskForm", "record_form"]


# Values from the session are shown inert: a control or bidi character in a field is edited
# (and saved) as the visible placeholder the rest of cockpit shows for it.
class TaskFields(TypedDict):
    """What the task form collects: `SessionEditor.add_task`'s and `edit_task`'s fields."""

    title: str
    notes: str | None


class DiscoveryFields(TypedDict):
    """What the discovery form collects: `SessionEditor.add_discovery`'s keywords."""

    claim: str
    status: DiscoveryStatus
    evidence: str | None
    tags: list[str]
    benchmarks: list[str]
    files: list[str]
    tasks: list[str]


class LastActionFields(TypedDict):
    """What the last-action form collects: `SessionEditor.set_last_action`'s keywords."""

    text: str
    next_step: str | None
    fallback: str | None


class TaskForm(FormScreen[TaskFields]):
    """Title and notes; the column is chosen on the board."""

    def __init__(self, task: Task | None = None, column: str = "todo") -> None:
        super().__init__()
        self.task_ = task
        self.title_text = f"Edit task {task.id}" if task else f"New task in {column}"

    def compose_fields(self) -> Iterable[Widget]:
        yield from self.row("title", "Title", line_input(self.task_.title if self.task_ else "",
                                                      "what needs doing"))
        yield from self.row("notes", "Notes", area_input(self.task_.notes if self.task_ else ""))

    def collect(self) -> TaskFields:
        title = self.text("title")
        if not title:
            raise FormInvalid({"title": "a task needs a title"})
        return {"title": title, "notes": self.text("notes") or None}


class DiscoveryForm(FormScreen[DiscoveryFields]):
    """Claim, status, evidence, tags and links to benchmarks, files and tasks."""

    def __init__(self, session: Session, discovery: Discovery | None = None) -> None:
        super().__init__()
        self.session = session
        self.disc = discovery
        self.title_text = f"Edit discovery {discovery.id}" if discovery else "New discovery"

    def compose_fields(self) -> Iterable[Widget]:
        d = self.disc
        yield from self.row("claim", "Claim", line_input(d.claim if d else "", "what you believe is true"))
        yield from self.row("status", "Status", Select(
            [(s.value, s.value) for s in DiscoveryStatus], allow_blank=False, compact=True,
            value=(d.status.value if d else DiscoveryStatus.HYPOTHESIS.value)))
        yield from self.row("evidence", "Evidence", area_input(d.evidence if d else ""))
        yield from self.row("tags", "Tags", line_input(" ".join(d.tags) if d else "", "space separated"))
        yield from self.row("benchmarks", "Benchmarks", line_input(" ".join(d.benchmarks) if d else "", "b1 b2"))
        yield from self.row("files", "Files", line_input(" ".join(d.files) if d else "", "f1"))
        yield from self.row("tasks", "Tasks", line_input(" ".join(d.tasks) if d else "", "t1 t3"))

    def collect(self) -> DiscoveryFields:
        errors: dict[str, str] = {}
        claim = self.text("claim")
        if not claim:
            errors["claim"] = "a discovery needs a claim"
        status = self.query_one("#field-status", Select).value
        links: dict[str, list[str]] = {}
        for name, collection, what in (("benchmarks", self.session.benchmarks, "benchmark"),
                                       ("files", self.session.files, "file"),
                                       ("tasks", self.session.tasks, "task")):
            try:
                links[name] = check_ids(self.text(name), (item.id for item in collection), what)
            except ValueError as exc:
                errors[name] = str(exc)
        if errors:
            raise FormInvalid(errors)
        return {"claim": claim, "status": DiscoveryStatus(str(status)), "evidence": self.text("evidence") or None,
                "tags": list(dict.fromkeys(self.text("tags").replace(",", " ").split())),
                "benchmarks": links["benchmarks"], "files": links["files"], "tasks": links["tasks"]}


class LastActionForm(FormScreen[LastActionFields]):
    """What was just done, what comes next, and what to fall back to."""

    title_text = "Last action"

    def __init__(self, current: LastAction | None) -> None:
        super().__init__()
        self.current = current

    def compose_fields(self) -> Iterable[Widget]:
        c = self.current
        yield from self.row("text", "Did", line_input(c.text if c else "", "what you just did"))
        yield from self.row("next_step", "Next", line_input(c.next_step if c else "", "what to do next"))
        yield from self.row("fallback", "Fallback", line_input(c.fallback if c else "", "if that fails"))

    def collect(self) -> LastActionFields:
        text = self.text("text")
        if not text:
            raise FormInvalid({"text": "say what you did"})
        return {"text": text, "next_step": self.text("next_step") or None,
                "fallback": self.text("fallback") or None}


class LinkForm(FormScreen[list[str]]):
    """Tick the discoveries a task rests on (space toggles)."""

    def __init__(self, session: Session, task: Task) -> None:
        super().__init__()
        self.session = session
        self.task_ = task
        self.title_text = f"Discoveries that {task.id} rests on"

    def compose_fields(self) -> Iterable[Widget]:
        linked = set(self.task_.discoveries) | {d.id for d in self.session.discoveries if self.task_.id in d.tasks}
        yield from self.row("discoveries", "Discoveries", SelectionList[str](
            *((inert(f"{d.id} [{d.status.value}] {d.claim}"), d.id, d.id in linked) for d in self.session.discoveries),
            compact=True))

    def collect(self) -> list[str]:
        return list(self.query_one("#field-discoveries", SelectionList).selected)


@dataclass(frozen=True)
class FieldSpec:
    name: str
    label: str
    kind: str = "line"  # line | area | choice | env (KEY=value per line)
    required: bool = False
    placeholder: str = ""
    choices: tuple[str, ...] = ()


# collection -> (what a person calls one, its fields)
RECORD_FIELDS: dict[str, tuple[str, tuple[FieldSpec, ...]]] = {
    "packages": ("package", (
        FieldSpec("name", "Name", required=True, placeholder="torch, flashinfer, NVIDIA driver, CUDA toolkit"),
        FieldSpec("version", "Version", required=True, placeholder="as the host reports it"),
        FieldSpec("host", "Host", placeholder="a [[hosts]] name (drift checks it there)"),
    )),
    "files": ("patched file", (
        FieldSpec("path", "Path", required=True, placeholder="/path/on/the/host.py"),
        FieldSpec("host", "Host", placeholder="a [[hosts]] name"),
        FieldSpec("lines", "Lines", placeholder="e.g. 120-134"),
        FieldSpec("state", "State", kind="choice", choices=tuple(s.value for s in FileState)),
        FieldSpec("change", "What changed", kind="area"),
    )),
    "launch": ("launch profile", (
        FieldSpec("name", "Name", required=True, placeholder="e.g. tp8 + eagle3"),
        FieldSpec("command", "Command", kind="area", required=True),
        FieldSpec("host", "Host", placeholder="a [[hosts]] name"),
        # the sweep's bench client runs with it: SGLang must be importable there
        FieldSpec("python", "Bench python", placeholder="empty: the python the command names by path, else python3"),
        FieldSpec("env", "Env", kind="env"),
        FieldSpec("notes", "Notes", kind="area"),
    )),
}


class RecordForm(FormScreen[dict[str, object]]):
    """A patched file, a package version or a launch profile: its fields, one row each."""

    def __init__(self, collection: str, item: Any = None, hosts: Iterable[str] = (), *, copy: bool = False) -> None:
        """`copy`: a new record whose fields start as `item`'s (its id and seals are not copied)."""
        super().__init__()
        self.what, self.specs = RECORD_FIELDS[collection]
        self.item = item
        self.hosts = list(hosts)
        self.copy = copy and item is not None
        if self.copy:
            self.title_text = f"New {self.what}: a copy of {item.id}"
        else:
            self.title_text = f"Edit {self.what} {item.id}" if item is not None else f"New {self.what}"

    def _value(self, spec: FieldSpec) -> str:
        value = getattr(self.item, spec.name, None) if self.item is not None else None
        if self.copy and spec.name == "name" and value:
            return f"{value} (copy)"  # two profiles of one name could not be told apart by name
        if spec.kind == "env":
            return "\n".join(f"{k}={v}" for k, v in (value or {}).items())
        return "" if value is None else str(getattr(value, "value", value))

    def compose_fields(self) -> Iterable[Widget]:
        for spec in self.specs:
            value = self._value(spec)
            if spec.kind == "choice":
                widget: Widget = Select([(c, c) for c in spec.choices], allow_blank=False, compact=True,
                                        value=value or spec.choices[0])
            elif spec.kind in ("area", "env"):
                widget = area_input(value)
            else:
                widget = line_input(value, spec.placeholder)
            yield from self.row(spec.name, spec.label, widget)

    def collect(self) -> dict[str, object]:
        errors: dict[str, str] = {}
        out: dict[str, object] = {}
        for spec in self.specs:
            if spec.kind == "choice":
                out[spec.name] = str(self.query_one(f"#field-{spec.name}", Select).value)
                continue
            text = self.text(spec.name)
            if spec.required and not text:
                errors[spec.name] = f"a {self.what} needs a {spec.label.lower()}"
            elif spec.kind == "env":
                env: dict[str, str] = {}
                for line in filter(None, (raw.strip() for raw in text.splitlines())):
                    key, eq, value = line.partition("=")
                    if not eq or not key.strip():
                        errors[spec.name] = f"KEY=value per line (not {line!r})"
                        break
                    env[key.strip()] = value.strip()
                out[spec.name] = env
            elif spec.name == "host" and text and text not in self.hosts:
                known = ", ".join(self.hosts) or "none: add [[hosts]] to the session file"
                errors[spec.name] = f"unknown host {text!r} (known: {known})"
            else:
                out[spec.name] = text or None
        if errors:
            raise FormInvalid(errors)
        return out


def record_form(collection: str, item: Any = None, hosts: Iterable[str] = (), *,
                copy: bool = False) -> FormScreen[dict[str, object]]:
    """The form for one record of `collection`: a sweep has its own (datasets and their fields).
    `copy`: a new record pre-filled with `item`'s fields."""
    if collection == "sweeps":
        from cockpit.ui.screens.forms.sweep_form import SweepForm

        return SweepForm(item)
    return RecordForm(collection, item, hosts, copy=copy)
