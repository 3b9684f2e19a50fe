"""Discoveries: the list of claims (status first) beside the selected one's detail."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from cockpit.model.enums import DiscoveryStatus
from cockpit.model.session import Discovery, Session
from cockpit.ui import messages as msg
from cockpit.ui.actions import bindings_for
from cockpit.ui.widgets.restorable import RestorableOptionList

STATUS_STYLE = {
    DiscoveryStatus.HYPOTHESIS: "$warning",
    DiscoveryStatus.CONFIRMED: "$success",
    DiscoveryStatus.REFUTED: "$error",
}
STATUS_MARK = {
    DiscoveryStatus.HYPOTHESIS: "?",
    DiscoveryStatus.CONFIRMED: "✓",
    DiscoveryStatus.REFUTED: "✗",
}

Parts = list[str | tuple[str, str]]


def discovery_prompt(disc: Discovery) -> Content:
    style = STATUS_STYLE[disc.status]
    return Content.assemble((f"{STATUS_MARK[disc.status]} ", f"bold {style}"),
                            (f"{disc.id} ", "$foreground-muted"), disc.claim)


def discovery_detail(session: Session, disc: Discovery) -> Content:
    style = STATUS_STYLE[disc.status]
    parts: Parts = [(disc.claim, "bold"), "\n",
                    (f"{disc.id} · ", "$foreground-muted"), (disc.status.value, f"bold {style}")]
    if disc.tags:
        parts += [("  #" + " #".join(disc.tags), "$accent")]
    parts += ["\n\n", ("Evidence", "bold underline"), "\n", disc.evidence or ("none recorded yet", "$foreground-muted")]
    benches = {b.id: b for b in session.benchmarks}
    files = {f.id: f for f in session.files}
    tasks = {t.id: t for t in session.tasks}
    linked_tasks = list(dict.fromkeys([*disc.tasks, *(t.id for t in session.tasks if disc.id in t.discoveries)]))
    sections: list[tuple[str, list[Parts]]] = [
        ("Benchmarks", [[(f"{b} ", "$foreground-muted"), benches[b].label,
                         (f"  {benches[b].total_tok_s:g} tok/s" if benches[b].total_tok_s is not None else "",
                          "$foreground-muted")] for b in disc.benchmarks if b in benches]),
        ("Files", [[(f"{f} ", "$foreground-muted"), files[f].path] for f in disc.files if f in files]),
        ("Tasks", [[(f"{t} ", "$foreground-muted"), tasks[t].title, (f"  [{tasks[t].status.value}]", f"$task-{tasks[t].status.value}"),
                    ("  ⚑ review" if tasks[t].review else "", "bold $task-review")]
                   for t in linked_tasks if t in tasks]),
    ]
    for title, rows in sections:
        parts += ["\n\n", (title, "bold underline")]
        if not rows:
            parts += ["\n", ("none", "$foreground-muted")]
        for row in rows:
            parts += ["\n", *row]
    return Content.assemble(*parts)


class DiscoveryList(RestorableOptionList):
    def __init__(self) -> None:
        super().__init__(id="discovery-list")
        self.state_key = "discoveries"


class DiscoveriesView(Horizontal):
    BINDINGS = bindings_for("discoveries")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._session: Session | None = None

    def compose(self) -> ComposeResult:
        yield DiscoveryList()
        with VerticalScroll(id="discovery-detail-scroll"):
            yield Static("", id="discovery-detail")

    def show(self, session: Session) -> None:
        self._session = session
        lst = self.query_one(DiscoveryList)
        lst.replace_options([Option(discovery_prompt(d), id=d.id) for d in session.discoveries])
        self._show_detail()

    def _show_detail(self) -> None:
        if self._session is None:
            return
        ident = self.query_one(DiscoveryList).selected_id()
        disc = next((d for d in self._session.discoveries if d.id == ident), None)
        detail = self.query_one("#discovery-detail", Static)
        if disc is None:
            detail.update(Content.styled("No discoveries yet: a adds one.", "$foreground-muted"))
        else:
            detail.update(discovery_detail(self._session, disc))

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_detail()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(msg.DiscoveryEditRequested(event.option.id))

    def focus_view(self) -> None:
        self.query_one(DiscoveryList).focus()

    def select(self, ident: str) -> None:
        self.query_one(DiscoveryList).select_id(ident)
        self._show_detail()

    def _selected_id(self) -> str | None:
        ident = self.query_one(DiscoveryList).selected_id()
        if ident is None:
            self.notify("No discovery selected", severity="warning", timeout=2)
        return ident

    def action_add(self) -> None:
        self.post_message(msg.DiscoveryAddRequested())

    def action_edit(self) -> None:
        if ident := self._selected_id():
            self.post_message(msg.DiscoveryEditRequested(ident))

    def action_cycle(self) -> None:
        if ident := self._selected_id():
            self.post_message(msg.DiscoveryStatusCycleRequested(ident))
