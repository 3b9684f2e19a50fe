"""Discoveries: the list of claims (status first) beside the selected one's detail."""

from __future__ import annotations

from textual.content import Content

from cockpit.model.enums import DiscoveryStatus
from cockpit.model.figures import number
from cockpit.model.session import Discovery, Session
from cockpit.ui import messages as msg
from cockpit.ui.keys.actions import bindings_for
from cockpit.ui.safe_text import safe
from cockpit.ui.widgets.session.list_detail import ListDetailView
from cockpit.ui.widgets.session.restorable import RestorableOptionList

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
                            (f"{disc.id} ", "$foreground-muted"), safe(disc.claim))


def discovery_detail(session: Session, disc: Discovery) -> Content:
    style = STATUS_STYLE[disc.status]
    parts: Parts = [(safe(disc.claim), "bold"), "\n",
                    (f"{disc.id} · ", "$foreground-muted"), (disc.status.value, f"bold {style}")]
    if disc.tags:
        parts += [("  #" + " #".join(map(safe, disc.tags)), "$accent")]
    evidence = safe(disc.evidence, multiline=True) or ("none recorded yet", "$foreground-muted")
    parts += ["\n\n", ("Evidence", "bold underline"), "\n", evidence]
    benches = {b.id: b for b in session.benchmarks}
    files = {f.id: f for f in session.files}
    tasks = {t.id: t for t in session.tasks}
    linked_tasks = list(dict.fromkeys([*disc.tasks, *(t.id for t in session.tasks if disc.id in t.discoveries)]))
    sections: list[tuple[str, list[Parts]]] = [
        ("Benchmarks", [[(f"{b} ", "$foreground-muted"), safe(benches[b].label),
                         (f"  {number(benches[b].total_tok_s)} total tok/s" if benches[b].total_tok_s is not None else "",
                          "$foreground-muted")] for b in disc.benchmarks if b in benches]),
        ("Files", [[(f"{f} ", "$foreground-muted"), safe(files[f].path)] for f in disc.files if f in files]),
        ("Tasks", [[(f"{t} ", "$foreground-muted"), safe(tasks[t].title),
                    (f"  [{tasks[t].status.value}]", f"$task-{tasks[t].status.value}"),
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


class DiscoveriesView(ListDetailView[Discovery]):
    BINDINGS = bindings_for("discoveries")
    list_type = DiscoveryList
    detail_id = "discovery-detail"
    empty_text = "No discoveries yet: a adds one."
    nothing_selected = "No discovery selected"

    def items(self, session: Session) -> list[Discovery]:
        return session.discoveries

    def prompt(self, item: Discovery) -> Content:
        return discovery_prompt(item)

    def detail(self, session: Session, item: Discovery) -> Content:
        return discovery_detail(session, item)

    def item_chosen(self, ident: str) -> None:
        self.post_message(msg.DiscoveryEditRequested(ident))

    def action_add(self) -> None:
        self.post_message(msg.DiscoveryAddRequested())

    def action_edit(self) -> None:
        if ident := self._selected_id():
            self.post_message(msg.DiscoveryEditRequested(ident))

    def action_cycle(self) -> None:
        if ident := self._selected_id():
            self.post_message(msg.DiscoveryStatusCycleRequested(ident))
