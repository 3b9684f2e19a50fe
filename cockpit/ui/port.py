"""What a screen may ask of the app: the one port between screens and `CockpitApp`.

Screens and widgets never import the app (not even for types): they reach it through
`port_of(self)`, typed as `CockpitPort`, and use Textual's own App API (push_screen,
notify, themes) through `self.app` as any Textual screen does. `CockpitApp` implements
the port (mypy checks it: `CockpitApp.port`), so a member a screen needs is added here
first, in sight, instead of being reached for on the App.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from cockpit.control.live_hub import LiveHub
from cockpit.control.session_controller import SessionController
from cockpit.live.alerts import Alert, AlertBook
from cockpit.live.state import LiveState
from cockpit.model.package_drift import DriftRow
from cockpit.model.session import Session

if TYPE_CHECKING:
    from textual.dom import DOMNode


class CockpitPort(Protocol):
    """The cockpit's services to its screens."""

    @property
    def controller(self) -> SessionController:
        """The open session: its edits (apply, undo), its change signal, its save state."""

    @property
    def path(self) -> Path:
        """The session file."""

    def clock(self) -> datetime:
        """What the header shows as now (tests freeze it)."""

    # ----- the header ------------------------------------------------------------------
    @property
    def host_states(self) -> Mapping[str, str]:
        """Host -> what the header says of it ("connected", "reconnecting in 8 s")."""

    @property
    def alerts(self) -> AlertBook: ...

    def raise_alert(self, alert: Alert | None) -> None: ...

    @property
    def unsaved_edits(self) -> int: ...

    @property
    def autosave(self) -> bool: ...

    @property
    def disk_conflict(self) -> bool: ...

    @property
    def title_note(self) -> str | None:
        """Beside the title (the demo says DEMO)."""

    @property
    def host_reads(self) -> Mapping[str, list[str]]:
        """Host -> what the pane feeds read there (the Goal tab's host lines say it)."""

    @property
    def has_fleet_source(self) -> bool:
        """A Fleet feed runs (the session's [[prometheus]], or the demo's replay)."""

    # ----- what the person asked for -----------------------------------------------------
    def save(self, *, announce: bool = False, over_broken: bool = False) -> bool: ...

    def request_quit(self) -> None: ...

    def toggle_autosave(self) -> None: ...

    def toggle_alert_bell(self) -> None: ...

    def next_theme(self) -> None: ...

    def bound_key_displays(self) -> dict[str, str]: ...

    def live_hosts(self) -> list[str]:
        """Session hosts with a live feed (the palette's "hosts: Reconnect NAME")."""

    def reconnect_host(self, name: str) -> None: ...

    async def check_drift(self, session: Session) -> tuple[list[DriftRow], list[str]]:
        """The recorded package versions against their hosts (over the app's SSH pool)."""

    def trials_pool(self) -> Any:
        """The SSH pool a search's trials run over: the experiment service's (the feeds' own,
        one link per host)."""

    @property
    def hub(self) -> LiveHub:
        """The live hub the panes' feeds run on: a search's trials watch through it too."""

    @property
    def live_state(self) -> LiveState:
        """The hub's feeds folded below the UI (live/state.py): panes read its snapshots."""


def port_of(node: DOMNode) -> CockpitPort:
    """The port of the app `node` runs in (only CockpitApp runs these screens)."""
    return cast(CockpitPort, node.app)
