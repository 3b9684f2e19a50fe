"""The diagnosis's findings: a list (most confident first) beside the selected one's
evidence, next experiment and candidate flags. `a` accepts it as a discovery (status
hypothesis, its evidence attached, its benchmarks linked), `x` dismisses it (remembered in
the session, not proposed again for the same evidence), `r` reads the panes again.

Opened with `D` from any tab. Nothing here is confirmed by the machine: accepting only
records a hypothesis, and both are one undoable edit each (`u` on the main screen).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from cockpit.control.diagnosis import accepting, dismissing
from cockpit.live.diagnosis.findings import Finding
from cockpit.model.edit.edits import EditError
from cockpit.ui.keys.actions import bindings_for
from cockpit.ui.live.diagnosis import live_inputs, open_findings
from cockpit.ui.port import port_of
from cockpit.ui.safe_text import safe
from cockpit.ui.widgets.chrome.fitted_footer import FittedFooter

if TYPE_CHECKING:
    from cockpit.ui.live.diagnosis import FindingsApp


def finding_detail(f: Finding) -> Content:
    parts: list[str | tuple[str, str]] = [(safe(f.claim), "bold"), "\n",
                                          (f"{f.kind} · confidence {f.confidence:.0%}", "$foreground-muted"),
                                          "\n\n", ("Evidence", "bold underline")]
    for e in f.evidence:
        parts += ["\n", ("· ", "$primary"), safe(e.describe())]
    parts += ["\n\n", ("Next experiment", "bold underline"), "\n", safe(f.next_experiment)]
    if f.flags:
        flags = " ".join(f"{k} {v}".strip() for k, v in f.flags.items())
        parts += ["\n", ("candidate flags: ", "$foreground-muted"), safe(flags)]
    if f.search_space:
        space = "; ".join(f"{k}: {', '.join(v)}" for k, v in f.search_space.items())
        parts += ["\n", ("search space: ", "$foreground-muted"), safe(space)]
    parts += ["\n\n", (f"key {safe(f.key)}", "$foreground-muted")]
    return Content.assemble(*parts)


class FindingsScreen(Screen[None]):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = bindings_for("findings")
    scope = "findings"
    """The registry scope bound here: the palette offers its commands while this screen is up."""

    def __init__(self) -> None:
        super().__init__(id="findings-screen")
        self.findings: list[Finding] = []
        self._stop_listening: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="findings-title", markup=False)
        with Horizontal(id="findings-body"):
            yield OptionList(id="findings-list")
            with VerticalScroll(id="findings-detail-scroll"):
                yield Static("", id="findings-detail")
        yield FittedFooter()

    def on_mount(self) -> None:
        self.action_refresh()
        self.query_one(OptionList).focus()

    def action_refresh(self) -> None:
        self.findings = open_findings(live_inputs(cast("FindingsApp", self.app)))
        watch = getattr(self.app, "findings_watch", None)
        if watch is not None:  # the header counts what this lists (issue 39: it said 6, this listed 7)
            watch.show(self.findings)
        decided = len(port_of(self).controller.session.findings)
        title = (f"Findings · {len(self.findings)} open" + (f" · {decided} accepted or dismissed" if decided else "")
                 + " · a accept · x dismiss · r read again · esc back")
        self.query_one("#findings-title", Static).update(title)
        options = self.query_one(OptionList)
        keep = options.highlighted or 0
        options.clear_options()
        options.add_options([Option(Content.assemble((f"{f.kind:<18}", "bold"), f" {f.confidence:>4.0%}  ",
                                                     safe(f.claim)), id=f.key) for f in self.findings])
        if self.findings:
            options.highlighted = min(keep, len(self.findings) - 1)
        self._show_detail()
        header = getattr(self.app, "findings_watch", None)
        if header is not None:
            header.show(self.findings)

    def on_option_list_option_highlighted(self, _: OptionList.OptionHighlighted) -> None:
        self._show_detail()

    def _selected(self) -> Finding | None:
        index = self.query_one(OptionList).highlighted
        return self.findings[index] if index is not None and index < len(self.findings) else None

    def _show_detail(self) -> None:
        f = self._selected()
        detail = self.query_one("#findings-detail", Static)
        if f is None:
            detail.update(Content("No open finding: nothing the rules read crosses a threshold, or every "
                                  "finding was accepted or dismissed."))
        else:
            detail.update(finding_detail(f))

    def _decide(self, accept: bool) -> None:
        f = self._selected()
        if f is None:
            self.notify("no finding selected", severity="warning")
            return
        try:
            if accept:
                ident = port_of(self).controller.apply(accepting(f))
                self.notify(f"accepted as discovery {ident} (hypothesis): {f.claim}", timeout=6, markup=False)
            else:
                port_of(self).controller.apply(dismissing(f))
                self.notify(f"dismissed: {f.claim}", timeout=6, markup=False)
        except (EditError, ValueError) as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.action_refresh()

    def action_accept(self) -> None:
        self._decide(True)

    def action_dismiss_finding(self) -> None:
        self._decide(False)

    def action_cursor(self, step: int) -> None:
        options = self.query_one(OptionList)
        if step > 0:
            options.action_cursor_down()
        else:
            options.action_cursor_up()

    def action_close(self) -> None:
        self.app.pop_screen()
