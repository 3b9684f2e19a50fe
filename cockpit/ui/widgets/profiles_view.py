"""Launch profiles: list, the selected one's command and env, mark working, copy."""

from __future__ import annotations

import shlex

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from cockpit.model.enums import ProfileStatus
from cockpit.model.session import LaunchProfile, Session
from cockpit.ui import messages as msg
from cockpit.ui.actions import bindings_for
from cockpit.ui.widgets.restorable import RestorableOptionList

_STATUS_STYLE = {ProfileStatus.WORKING: "bold $success", ProfileStatus.CANDIDATE: "$foreground-muted",
                 ProfileStatus.BROKEN: "$error"}


def full_command(profile: LaunchProfile) -> str:
    """The command as one would paste it: env assignments first."""
    env = " ".join(f"{key}={shlex.quote(value)}" for key, value in profile.env.items())
    return f"{env} {profile.command}".strip()


class ProfileList(RestorableOptionList):
    def __init__(self) -> None:
        super().__init__(id="profile-list")
        self.state_key = "launch"


class ProfilesView(Horizontal):
    BINDINGS = bindings_for("launch")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._session: Session | None = None

    def compose(self) -> ComposeResult:
        yield ProfileList()
        with VerticalScroll(id="profile-detail-scroll"):
            yield Static("", id="profile-detail")

    def show(self, session: Session) -> None:
        self._session = session
        self.query_one(ProfileList).replace_options([
            Option(Content.assemble((f"{p.status.value:<9} ", _STATUS_STYLE[p.status]),
                                    (f"{p.id} ", "$foreground-muted"), p.name), id=p.id)
            for p in session.launch
        ])
        self._show_detail()

    def _show_detail(self) -> None:
        if self._session is None:
            return
        ident = self.query_one(ProfileList).selected_id()
        profile = next((p for p in self._session.launch if p.id == ident), None)
        detail = self.query_one("#profile-detail", Static)
        if profile is None:
            detail.update(Content.styled("No launch profiles recorded.", "$foreground-muted"))
            return
        benches = [b for b in self._session.benchmarks if b.profile == profile.id]
        best = max((b.total_tok_s for b in benches if b.total_tok_s is not None), default=None)
        parts: list[str | tuple[str, str]] = [
            (profile.name, "bold"), "  ", (profile.status.value, _STATUS_STYLE[profile.status]),
            (f"  on {profile.host}" if profile.host else "", "$foreground-muted"), "\n\n",
            ("Command", "bold underline"), "\n", profile.command, "\n",
        ]
        if profile.env:
            parts += ["\n", ("Env", "bold underline"), "\n"]
            parts += [f"{key}={value}\n" for key, value in profile.env.items()]
        if profile.notes:
            parts += ["\n", ("Notes", "bold underline"), "\n", profile.notes, "\n"]
        parts += ["\n", (f"{len(benches)} benchmark(s)", "$foreground-muted")]
        if best is not None:
            parts.append((f", best {best:g} total tok/s", "$foreground-muted"))
        detail.update(Content.assemble(*parts))

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_detail()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()

    def focus_view(self) -> None:
        self.query_one(ProfileList).focus()

    def _selected_id(self) -> str | None:
        ident = self.query_one(ProfileList).selected_id()
        if ident is None:
            self.notify("No launch profile selected", severity="warning", timeout=2)
        return ident

    def action_mark_working(self) -> None:
        if ident := self._selected_id():
            self.post_message(msg.ProfileMarkWorkingRequested(ident))

    def action_copy(self) -> None:
        if ident := self._selected_id():
            self.post_message(msg.ProfileCopyRequested(ident))
