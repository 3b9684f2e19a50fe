"""The session rendered into the main screen: the targets and header at once, the active tab
now and every other tab when it is next shown (re-laying out hidden tabs on every key is
slow); of a big board only what a screen can show before the first frame."""

from __future__ import annotations

from textual.screen import Screen

from cockpit.model.bench.targets import TargetScore, score_all
from cockpit.model.session import Session
from cockpit.ui.port import CockpitPort
from cockpit.ui.screens.main.tabs_and_panes import TAB_IDS, TabsAndPanes
from cockpit.ui.widgets.chrome.header import CockpitHeader
from cockpit.ui.widgets.chrome.tab_bar import TabBar
from cockpit.ui.widgets.session.banner import LeftOffBanner
from cockpit.ui.widgets.session.benchmarks_view import BenchmarksView
from cockpit.ui.widgets.session.discoveries_view import DiscoveriesView
from cockpit.ui.widgets.session.profiles_view import ProfilesView
from cockpit.ui.widgets.session.records_view import FilesTable, PackagesTable
from cockpit.ui.widgets.session.setup_view import SetupView
from cockpit.ui.widgets.session.targets_strip import TargetsStrip
from cockpit.ui.widgets.session.task_board import TaskBoard
from cockpit.ui.widgets.session.text_views import HandoffView, LastActionView

FIRST_FRAME_TASKS = 120  # per column: more than a terminal shows; the rest follow the first frame


class SessionRender:
    """Pushes the session (and the header's state from `port`) into `screen`'s widgets."""

    def __init__(self, screen: Screen[None], port: CockpitPort, panes: TabsAndPanes) -> None:
        self.screen = screen
        self.port = port
        self.panes = panes
        self._shown: Session | None = None
        self._scores: list[TargetScore] = []
        self._fresh: set[str] = set(TAB_IDS)  # nothing to render before a session is shown

    def show_session(self, session: Session, *, every_tab: bool = False, first_frame: bool = False) -> None:
        """Render the session: always the targets and header, the active tab now, and the
        other tabs when they are next shown."""
        screen = self.screen
        self._shown = session
        self._scores = score_all(session.goal.targets, session.benchmarks)
        self._fresh = set()
        screen.query_one(TargetsStrip).show(self._scores)
        screen.query_one(LeftOffBanner).follow(session.last_action)
        fleet = session.prometheus or self.port.has_fleet_source  # the demo's replay has no [[prometheus]]
        screen.query_one(TabBar).hidden = frozenset() if fleet else frozenset({"fleet"})
        for tab in TAB_IDS if every_tab else [self.panes.active_tab]:
            self.render_tab(tab, first_frame=first_frame)
        self.refresh_header()

    def render_hidden_tabs(self) -> None:
        # Not the handoff: it is made (in a thread) when its tab is shown.
        board = self.screen.query_one(TaskBoard)
        if board.partial and self._shown is not None:
            board.show(self._shown)
        for tab in TAB_IDS:
            if tab != "handoff":
                self.render_tab(tab)

    def render_tab(self, tab: str, *, first_frame: bool = False) -> None:
        session, scores, screen = self._shown, self._scores, self.screen
        if tab in self._fresh or session is None:
            return
        self._fresh.add(tab)
        if tab == "main":
            screen.query_one(TaskBoard).show(session, first=FIRST_FRAME_TASKS if first_frame else None)
            screen.call_after_refresh(self.panes.fit_board)
        elif tab == "goal":
            screen.query_one(SetupView).show(session, scores)
        elif tab == "discoveries":
            screen.query_one(DiscoveriesView).show(session)
        elif tab == "benchmarks":
            screen.query_one(BenchmarksView).show(session, scores)
        elif tab == "files":
            screen.query_one(FilesTable).show(session)
        elif tab == "packages":
            screen.query_one(PackagesTable).show(session)
        elif tab == "launch":
            screen.query_one(ProfilesView).show(session)
        elif tab == "last":
            screen.query_one(LastActionView).show(session)
        elif tab == "handoff":
            from cockpit.store.handoff.markdown import render_handoff

            screen.query_one(HandoffView).render_from(session, render_handoff)

    def refresh_header(self) -> None:
        port = self.port
        header = self.screen.query_one(CockpitHeader)
        header.show_title(port.controller.session.title, port.path.name, port.title_note)
        # Every host of the session, one added in the Goal tab too, with what is known of it.
        states = port.host_states
        header.show_hosts({**{h.name: states.get(h.name, "") for h in port.controller.session.hosts}, **states})
        header.show_alert(port.alerts.headline(), port.alerts.headline(terse=True))
        header.show_dirty(port.unsaved_edits, port.autosave, port.disk_conflict, port.controller.merge_note)
