"""The Goal tab: the campaign's setup as one list (goal, targets, instructions, hosts)
beside the selected item's detail; every row is edited in place through a form.

Option ids: `goal`, a target's id (`g1`), an instruction's (`i2`), `host:NAME`; section
headings are disabled options. The view posts intents; the main screen applies them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.content import Content
from textual.widgets.option_list import Option

from cockpit.model.bench.targets import TargetScore, score_all
from cockpit.model.session import Host, Session
from cockpit.ui import messages as msg
from cockpit.ui.keys.actions import bindings_for
from cockpit.ui.safe_text import safe
from cockpit.ui.widgets.session.list_detail import ListDetailView, Listed
from cockpit.ui.widgets.session.restorable import RestorableOptionList
from cockpit.ui.widgets.session.targets_strip import describe

Parts = list[str | tuple[str, str]]
GOAL_ROW_CHARS = 60


def kind_of(ident: str) -> str:
    """goal | target | instruction | host, from an option id."""
    if ident == "goal":
        return "goal"
    if ident.startswith("host:"):
        return "host"
    return "target" if ident.startswith("g") else "instruction"


def host_line(host: Host, reads: Sequence[str] = ()) -> str:
    """How a host is reached and what is read there, in one line; `reads`: what the live panes
    read there beyond the host's own settings (the demo's replays), said instead of them."""
    where = f"ssh {host.ssh}" if host.ssh else "this machine"
    if host.jump:
        where += f" via {host.jump}"
    if reads:
        return " · ".join([where, *reads])
    log = f"log {host.log_path}" if host.log_path else f"log $ {host.log_command}" if host.log_command else "no log"
    gpus = "no GPUs" if host.gpu_source.value == "none" else f"GPUs {host.gpu_source.value} every {host.gpu_interval_s:g} s"
    return " · ".join([where, log, gpus] + ([f"metrics {host.metrics_url}"] if host.metrics_url else []))


def _range_rule(score: TargetScore) -> Parts:
    """How the target reads its runs, and the run that breaks it (every-run targets)."""
    if not score.every_run:
        return []
    parts: Parts = ["\n", ("held at every concurrency of its range: each point of a profile in it (the median "
                            "of its runs) must meet it", "$foreground-muted")]
    run = score.breaking
    if run is not None:
        where = f" at concurrency {run.concurrency}" if run.concurrency is not None else ""
        profile = f" (profile {run.profile})" if run.profile else ""
        parts += ["\n", ("Broken by ", "bold $target-missed"), (run.id, "bold"), f" {safe(run.label)}{profile}{where}: ",
                  (score.value_text(), "bold $target-missed")]
    return parts


def _judged_on(score: TargetScore) -> Parts:
    """What the target reads: which figure of each run, and the point's median over its runs."""
    fig = score.target.figure
    who = "the server's histogram" if fig.server else "the bench client"
    parts: Parts = ["\n", (f"judged on each run's {fig.name} ({who}), a point's median over its runs",
                           "$foreground-muted")]
    if score.estimate is not None:
        parts += ["\n", ("Estimate ", "bold"), score.value_text()]
    return parts


class SetupList(RestorableOptionList):
    def __init__(self) -> None:
        super().__init__(id="setup-list")
        self.state_key = "goal"


def _heading(text: str, hint: str) -> Option:
    return Option(Content.assemble((text, "bold underline $primary"), (f"  {hint}", "$foreground-muted")),
                  disabled=True)


class SetupView(ListDetailView[Listed]):
    BINDINGS = bindings_for("goal")
    list_type = SetupList
    detail_id = "setup-detail"
    empty_text = ""
    nothing_selected = "Nothing selected"

    def __init__(self, *, id: str | None = None, host_reads: Mapping[str, list[str]] | None = None) -> None:
        super().__init__(id=id)
        self.host_reads: Mapping[str, list[str]] = host_reads or {}
        self._scores: dict[str, TargetScore] = {}

    def show(self, session: Session, scores: list[TargetScore] | None = None) -> None:
        self._session = session
        self._scores = {s.target.id: s for s in (scores if scores is not None
                                                  else score_all(session.goal.targets, session.benchmarks))}
        goal = session.goal
        summary = safe(goal.summary).split("␊")[0] if goal.summary else ""
        if len(summary) > GOAL_ROW_CHARS:  # the detail beside it has the whole text
            summary = summary[:GOAL_ROW_CHARS - 1].rstrip() + "…"
        options: list[Option] = [
            Option(Content.assemble(("Goal ", "bold $primary"),
                                    summary or ("no summary yet: e writes one", "$foreground-muted")), id="goal"),
            _heading("Targets", "t adds one"),
        ]
        for target in goal.targets:
            score = self._scores.get(target.id)
            parts: Parts = [(f"{target.id} ", "$foreground-muted")]
            parts += describe(score) if score else [safe(target.describe())]
            options.append(Option(Content.assemble(*parts), id=target.id))
        if not goal.targets:
            options.append(Option(Content.styled("  none yet: t adds one", "$foreground-muted"), disabled=True))
        options.append(_heading("Instructions", "i adds one · K / J move"))
        for index, item in enumerate(session.instructions, start=1):
            options.append(Option(Content.assemble((f"{index:>2}. ", "$foreground-muted"), safe(item.text)),
                                  id=item.id))
        if not session.instructions:
            options.append(Option(Content.styled("  none yet: i adds one", "$foreground-muted"), disabled=True))
        options.append(_heading("Hosts", "H adds one"))
        for host in session.hosts:
            options.append(Option(Content.assemble((safe(host.name), "bold"), "  ",
                                                    (safe(host_line(host, self.host_reads.get(host.name, ()))),
                                                     "$foreground-muted")),
                                  id=f"host:{host.name}"))
        if not session.hosts:
            options.append(Option(Content.styled("  none yet: H adds one", "$foreground-muted"), disabled=True))
        self.query_one(SetupList).replace_options(options)
        self._show_detail()

    def items(self, session: Session) -> list[Listed]:
        return []

    def _show_detail(self) -> None:
        session = self._session
        if session is None:
            return
        ident = self.query_one(SetupList).selected_id() or "goal"
        detail = self.query_one(f"#{self.detail_id}")
        detail.update(self.detail_of(session, ident))  # type: ignore[attr-defined]

    def detail_of(self, session: Session, ident: str) -> Content:
        kind = kind_of(ident)
        goal = session.goal
        parts: Parts = []
        if kind == "goal":
            parts += [("Goal", "bold underline $primary"), "\n",
                      safe(goal.summary, multiline=True) or ("(no summary yet)", "$foreground-muted")]
            for label, value in (("Model", goal.model), ("Hardware", goal.hardware)):
                parts += ["\n\n", (f"{label}: ", "bold"), safe(value) or ("—", "$foreground-muted")]
            parts += ["\n\n", ("e edits", "$foreground-muted")]
        elif kind == "target":
            target = next((t for t in goal.targets if t.id == ident), None)
            if target is not None:
                score = self._scores.get(ident)
                parts += [(f"Target {target.id}", "bold underline $primary"), "\n", safe(target.describe())]
                if score is not None:
                    parts += ["\n\n", *describe(score)]
                    parts += _judged_on(score)
                    parts += _range_rule(score)
                parts += ["\n\n", ("e edits · d deletes", "$foreground-muted")]
        elif kind == "instruction":
            item = next((i for i in session.instructions if i.id == ident), None)
            if item is not None:
                parts += [(f"Instruction {item.id}", "bold underline $primary"), "\n",
                          safe(item.text, multiline=True), "\n\n",
                          ("e edits · d deletes · K / J move", "$foreground-muted")]
        else:
            host = next((h for h in session.hosts if h.name == ident.removeprefix("host:")), None)
            if host is not None:
                parts += [(f"Host {safe(host.name)}", "bold underline $primary")]
                for label, value in (("ssh", host.ssh or "(this machine)"), ("jump", host.jump),
                                     ("log path", host.log_path), ("log command", host.log_command),
                                     ("GPU source", host.gpu_source.value),
                                     ("GPU interval", f"{host.gpu_interval_s:g} s"),
                                     ("DCGM URL", host.dcgm_url), ("metrics URL", host.metrics_url)):
                    parts += ["\n", (f"{label:<13}", "bold"), safe(value) or ("—", "$foreground-muted")]
                for read in self.host_reads.get(host.name, ()):
                    parts += ["\n", (f"{'live':<13}", "bold"), safe(read)]
                parts += ["\n\n", ("e edits · d deletes", "$foreground-muted")]
        return Content.assemble(*parts)

    # ----- intents -----------------------------------------------------------------------
    def item_chosen(self, ident: str) -> None:
        self.post_message(msg.SetupEditRequested(kind_of(ident), ident.removeprefix("host:")))

    def action_edit(self) -> None:
        ident = self.query_one(SetupList).selected_id() or "goal"
        self.item_chosen(ident)

    def action_edit_title(self) -> None:
        self.post_message(msg.SetupEditRequested("title", ""))

    def action_add(self, kind: str) -> None:
        self.post_message(msg.SetupAddRequested(kind))

    def action_delete(self) -> None:
        ident = self.query_one(SetupList).selected_id()
        if ident is None or ident == "goal":
            self.notify("Select a target, an instruction or a host to delete", severity="warning", timeout=3)
            return
        self.post_message(msg.SetupDeleteRequested(kind_of(ident), ident.removeprefix("host:")))

    def action_move(self, step: int) -> None:
        ident = self.query_one(SetupList).selected_id()
        if ident is None or kind_of(ident) != "instruction":
            self.notify("K / J move instructions", severity="warning", timeout=2)
            return
        self.post_message(msg.InstructionMoveRequested(ident, step))

    def select(self, ident: str) -> None:
        super().select(ident)
