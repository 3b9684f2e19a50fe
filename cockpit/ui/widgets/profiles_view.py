"""Launch profiles: list, the selected one's command and env, mark working, copy."""

from __future__ import annotations

import shlex

from textual.content import Content

from cockpit.model.enums import ProfileStatus
from cockpit.model.session import LaunchProfile, Session
from cockpit.ui import messages as msg
from cockpit.ui.actions import bindings_for
from cockpit.ui.widgets.list_detail import ListDetailView
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


class ProfilesView(ListDetailView):
    BINDINGS = bindings_for("launch")
    list_type = ProfileList
    detail_id = "profile-detail"
    empty_text = "No launch profiles recorded."
    nothing_selected = "No launch profile selected"

    def items(self, session: Session) -> list[LaunchProfile]:
        return session.launch

    def prompt(self, item: LaunchProfile) -> Content:
        return Content.assemble((f"{item.status.value:<9} ", _STATUS_STYLE[item.status]),
                                (f"{item.id} ", "$foreground-muted"), item.name)

    def detail(self, session: Session, profile: LaunchProfile) -> Content:  # type: ignore[override]
        benches = [b for b in session.benchmarks if b.profile == profile.id]
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
        return Content.assemble(*parts)

    def action_mark_working(self) -> None:
        if ident := self._selected_id():
            self.post_message(msg.ProfileMarkWorkingRequested(ident))

    def action_copy(self) -> None:
        if ident := self._selected_id():
            self.post_message(msg.ProfileCopyRequested(ident))
