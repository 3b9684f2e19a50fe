"""Launch profiles: list, the selected one's command and env, mark working, copy, and a
diff of any profile against a chosen base."""

from __future__ import annotations

import shlex

from textual.content import Content

from cockpit.ground.redact import redact_env, redact_text
from cockpit.ground.sanitize import sanitize
from cockpit.model.bench.profile_diff import diff_lines, diff_profiles
from cockpit.model.enums import ProfileStatus
from cockpit.model.figures import number
from cockpit.model.session import LaunchProfile, Session
from cockpit.ui import messages as msg
from cockpit.ui.keys.actions import bindings_for
from cockpit.ui.safe_text import safe
from cockpit.ui.widgets.session.list_detail import ListDetailView
from cockpit.ui.widgets.session.records_view import RecordActions
from cockpit.ui.widgets.session.restorable import RestorableOptionList

_STATUS_STYLE = {ProfileStatus.WORKING: "bold $success", ProfileStatus.CANDIDATE: "$foreground-muted",
                 ProfileStatus.BROKEN: "$error"}
_DIFF_STYLE = {"heading": "bold underline", "added": "$success", "removed": "$error",
               "changed": "$warning", "note": "$foreground-muted"}


def full_command(profile: LaunchProfile) -> str:
    """The command as one would paste it: env assignments first, secrets masked (what
    leaves for a clipboard or a screen never carries a token) and made inert (one line,
    no control character raw)."""
    env = " ".join(f"{key}={shlex.quote(value)}" for key, value in redact_env(profile.env).items())
    return sanitize(f"{env} {redact_text(profile.command)}".strip(), multiline=True)


class ProfileList(RestorableOptionList):
    def __init__(self) -> None:
        super().__init__(id="profile-list")
        self.state_key = "launch"


class ProfilesView(RecordActions, ListDetailView[LaunchProfile]):
    BINDINGS = bindings_for("launch")
    collection = "launch"
    list_type = ProfileList
    detail_id = "profile-detail"
    empty_text = ("No launch profiles recorded. Press a to add one (its name and command), or from a shell: "
                  "cockpit add profile SESSION NAME --command '...'")
    nothing_selected = "No launch profile selected"

    run_states: dict[str, str] = {}
    diff_base: str | None = None
    """The profile the others are compared against (view state: `ui.selection["launch.diff_base"]`)."""

    def items(self, session: Session) -> list[LaunchProfile]:
        return session.launch

    def prompt(self, item: LaunchProfile) -> Content:
        mark = "" if self.diff_base is None else "◆ " if item.id == self.diff_base else "  "
        running = self.run_states.get(item.id)
        return Content.assemble((mark, "bold $accent"), (f"{item.status.value:<9} ", _STATUS_STYLE[item.status]),
                                (f"{item.id} ", "$foreground-muted"), safe(item.name),
                                (f"  ▶ {running}" if running else "", "bold $accent"))

    def detail(self, session: Session, profile: LaunchProfile) -> Content:
        base = next((p for p in session.launch if p.id == self.diff_base), None)
        if base is not None and base.id != profile.id:
            return self._diff(session, base, profile)
        detail = self._profile(session, profile)
        if base is not None:
            hint = Content.styled("◆ The diff base: highlight another profile to see what changes "
                                  "from this one; d here again turns the diff off.\n\n", "$accent")
            detail = hint + detail
        return detail

    def _diff(self, session: Session, base: LaunchProfile, other: LaunchProfile) -> Content:
        parts: list[str | tuple[str, str]] = [
            ("◆ ", "bold $accent"), (f"{base.id} {safe(base.name)}", "bold"), "\n",
            ("→ ", "bold $accent"), (f"{other.id} {safe(other.name)}", "bold"), "\n",
            (self._best_line(session, base.id, other.id), "$foreground-muted"), "\n\n",
        ]
        for i, (kind, text) in enumerate(diff_lines(diff_profiles(base, other))):
            if kind == "heading":
                parts += ["\n" if i else "", (safe(text), _DIFF_STYLE[kind]), "\n"]
            else:
                parts += ["  ", (safe(text), _DIFF_STYLE[kind]), "\n"]
        parts += ["\n", (f"d on {base.id} turns the diff off", "$foreground-muted")]
        return Content.assemble(*parts)

    @staticmethod
    def _best_line(session: Session, base: str, other: str) -> str:
        a, b = session.best_total_tok_s(base), session.best_total_tok_s(other)
        def show(v: float | None) -> str:
            return "none recorded" if v is None else f"{v:,.1f}"

        change = f"  ({(b - a) / a:+.1%})" if a and b is not None else ""
        return f"best total tok/s {show(a)} → {show(b)}{change}"

    def _profile(self, session: Session, profile: LaunchProfile) -> Content:
        benches = [b for b in session.benchmarks if b.profile == profile.id]
        best = session.best_total_tok_s(profile.id)
        parts: list[str | tuple[str, str]] = [
            (safe(profile.name), "bold"), "  ", (profile.status.value, _STATUS_STYLE[profile.status]),
            (f"  on {safe(profile.host)}" if profile.host else "", "$foreground-muted"), "\n\n",
            ("Command", "bold underline"), "\n", safe(redact_text(profile.command), multiline=True), "\n",
        ]
        if profile.env:  # secrets masked: a screen is shared, recorded, screenshotted
            parts += ["\n", ("Env", "bold underline"), "\n"]
            parts += [f"{safe(key)}={safe(value)}\n" for key, value in redact_env(profile.env).items()]
        if profile.notes:
            parts += ["\n", ("Notes", "bold underline"), "\n", safe(redact_text(profile.notes), multiline=True), "\n"]
        parts += ["\n", (f"{len(benches)} benchmark(s)", "$foreground-muted")]
        if best is not None:
            parts.append((f", best {number(best)} total tok/s (a point's median)", "$foreground-muted"))
        return Content.assemble(*parts)

    def item_chosen(self, ident: str) -> None:
        self.post_message(msg.RecordEditRequested(self.collection, ident))

    _sweep_back = 0
    """How many sweeps back from the newest the next E edits (each press one further)."""

    def action_add_sweep(self) -> None:
        self.post_message(msg.RecordAddRequested("sweeps"))

    def action_edit_sweep(self) -> None:
        sweeps = self._session.sweeps if self._session is not None else []
        if not sweeps:
            self.notify("No sweep yet: b sets one up.", timeout=4)
            return
        self._sweep_back = self._sweep_back % len(sweeps)
        self.post_message(msg.RecordEditRequested("sweeps", sweeps[-1 - self._sweep_back].id))
        self._sweep_back += 1

    def action_copy_profile(self) -> None:
        """The new-profile form, pre-filled as a copy of the selected profile."""
        if ident := self.record_id():
            self.post_message(msg.RecordAddRequested(self.collection, copy_of=ident))

    def action_mark_working(self) -> None:
        if ident := self._selected_id():
            self.post_message(msg.ProfileMarkWorkingRequested(ident))

    def action_start_server(self) -> None:
        if ident := self._selected_id():
            self.post_message(msg.ServerStartRequested(ident))

    def action_restart_server(self) -> None:
        if ident := self._selected_id():
            self.post_message(msg.ServerStartRequested(ident, restart=True))

    def action_stop_server(self) -> None:
        if ident := self._selected_id():
            self.post_message(msg.ServerStopRequested(ident))

    def set_run_states(self, states: dict[str, str]) -> None:
        """profile id -> what its server is doing now (not session data: shown, not saved)."""
        if states != self.run_states:
            self.run_states = states
            if self._session is not None:
                self.show(self._session)

    def action_copy(self) -> None:
        if ident := self._selected_id():
            self.post_message(msg.ProfileCopyRequested(ident))

    def record_id(self) -> str | None:
        return self._selected_id()

    def restore_diff_base(self, ident: str | None) -> None:
        """The saved diff base, if that profile still exists."""
        if self._session is None or ident is None or any(p.id == ident for p in self._session.launch):
            self.diff_base = ident
        if self._session is not None:
            self.show(self._session)

    def action_compare(self) -> None:
        self.post_message(msg.CompareRequested(self.query_one(self.list_type).selected_id(), self.diff_base))

    def action_diff_base(self) -> None:
        ident = self._selected_id()
        if ident is None or self._session is None:
            return
        self.diff_base = None if ident == self.diff_base else ident
        self.show(self._session)
