"""The main screen: header, banner, targets strip, tabs, footer; renders the session.

It owns no session state: the App's SessionEditor does. `show_session` pushes the
current session into every view; intents from the views are handled in `MainIntents`.
At narrow or short sizes the main tab's three panes collapse to one at a time (`w`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Container, Horizontal
from textual.content import Content
from textual.events import Resize
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Footer, Static

from cockpit.model.session import Session
from cockpit.model.targets import score_all
from cockpit.ui.actions import BY_ID, SCOPE_TAB, TABS, bindings_for
from cockpit.ui.screens.help import HelpScreen
from cockpit.ui.screens.main_intents import MainIntents
from cockpit.ui.widgets.banner import LeftOffBanner
from cockpit.ui.widgets.benchmarks_view import BenchmarksView
from cockpit.ui.widgets.discoveries_view import DiscoveriesView
from cockpit.ui.widgets.fleet_pane import FleetPane
from cockpit.ui.widgets.gpu_pane import GpuPane
from cockpit.ui.widgets.header import CockpitHeader
from cockpit.ui.widgets.log_pane import LogPane
from cockpit.ui.widgets.profiles_view import ProfilesView
from cockpit.ui.widgets.records_view import FilesTable, PackagesTable
from cockpit.ui.widgets.tab_bar import TabBar
from cockpit.ui.widgets.targets_strip import TargetsStrip
from cockpit.ui.widgets.task_board import TaskBoard
from cockpit.ui.widgets.text_views import GoalView, HandoffView, LastActionView
from cockpit.ui.widgets.topology_pane import TopologyPane

if TYPE_CHECKING:
    from cockpit.ui.app import CockpitApp

MAIN_PANES = ("board", "log", "gpu")
# Below either size the main tab shows one pane at a time.
NARROW_WIDTH = 100
SHORT_HEIGHT = 30
TAB_IDS = [tab for tab, *_ in TABS]
FIRST_FRAME_TASKS = 120  # per column: more than a terminal shows; the rest follow the first frame


class MainScreen(MainIntents):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = bindings_for("screen")

    def __init__(self) -> None:
        super().__init__(id="main-screen")
        self.main_pane = "board"
        self.banner_dismissed = False

    def compose(self) -> ComposeResult:
        yield CockpitHeader(id="header")
        yield LeftOffBanner("", id="banner")
        yield TargetsStrip("", id="targets")
        yield TabBar(id="tabbar")
        with ContentSwitcher(initial="main", id="tabs"):
            with Container(id="main", classes="-pane-board"):
                yield Static("", id="pane-bar")
                yield TaskBoard(id="board")
                with Horizontal(id="live-row"):
                    yield LogPane(id="log", max_lines=self.app.editor.session.ui.log_buffer_lines,
                                  clock=self._clock_s)
                    yield GpuPane(id="gpu", clock=self._clock_s)
            yield GoalView("goal", id="goal")
            yield DiscoveriesView(id="discoveries")
            yield BenchmarksView(id="benchmarks")
            yield FilesTable(id="files")
            yield PackagesTable(id="packages")
            yield ProfilesView(id="launch")
            yield LastActionView("last", id="last")
            yield TopologyPane(id="topology", clock=self._clock_s)
            yield HandoffView(id="handoff")
            yield FleetPane(id="fleet", clock=self._clock_s)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        # Only the visible tab before the first frame, and of a big board only what a screen
        # can show; the app renders the rest right after (render_hidden_tabs).
        self.show_session(self.app.editor.session, first_frame=True)
        self.query_one(LeftOffBanner).show(self.app.editor.session.last_action)
        self.refresh_header()
        self.tick()
        self.set_interval(1.0, self.tick)
        self._update_pane_bar()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.on_theme_changed())

    # ----- rendering ------------------------------------------------------------------
    def show_session(self, session: Session, *, every_tab: bool = False, first_frame: bool = False) -> None:
        """Render the session: always the targets and header, the active tab now, and the
        other tabs when they are next shown (re-laying out hidden tabs on every key is slow)."""
        self._shown = session
        self._scores = score_all(session.goal.targets, session.benchmarks)
        self._fresh: set[str] = set()
        self.query_one(TargetsStrip).show(self._scores)
        self.query_one(TabBar).hidden = frozenset() if session.prometheus else frozenset({"fleet"})
        for tab in TAB_IDS if every_tab else [self.active_tab]:
            self._render_tab(tab, first_frame=first_frame)
        self.refresh_header()

    def render_hidden_tabs(self) -> None:
        # Not the handoff: its Markdown widget mounts a block per paragraph (15,000 for a
        # 5,000-task session, seconds of work); it is rendered when its tab is shown.
        board = self.query_one(TaskBoard)
        if board.partial:
            board.show(self._shown)
        for tab in TAB_IDS:
            if tab != "handoff":
                self._render_tab(tab)

    def _render_tab(self, tab: str, *, first_frame: bool = False) -> None:
        if tab in self._fresh:
            return
        self._fresh.add(tab)
        session, scores = self._shown, self._scores
        if tab == "main":
            self.query_one(TaskBoard).show(session, first=FIRST_FRAME_TASKS if first_frame else None)
        elif tab == "goal":
            self.query_one(GoalView).show(session, scores)
        elif tab == "discoveries":
            self.query_one(DiscoveriesView).show(session)
        elif tab == "benchmarks":
            self.query_one(BenchmarksView).show(session, scores)
        elif tab == "files":
            self.query_one(FilesTable).show(session)
        elif tab == "packages":
            self.query_one(PackagesTable).show(session)
        elif tab == "launch":
            self.query_one(ProfilesView).show(session)
        elif tab == "last":
            self.query_one(LastActionView).show(session)
        elif tab == "handoff":
            self.query_one(HandoffView).show(session)

    def refresh_header(self) -> None:
        app = self.app
        header = self.query_one(CockpitHeader)
        header.show_title(app.editor.session.title, app.path.name, app.sources.title_note)
        header.show_hosts(app.host_states)
        header.show_dirty(app.unsaved_edits, app.autosave, app.disk_conflict, app.controller.merge_note)

    def _clock_s(self) -> float:
        """The app's clock in seconds: the live panes' data ages (tests freeze or move it)."""
        return self.app.clock().timestamp()

    def tick(self) -> None:
        self.query_one(CockpitHeader).show_clock(self.app.clock())
        # The one timer that ages the live panes' data ("updated 3 s ago", "stale · 25 s").
        self.query_one(LogPane).show_age()
        self.query_one(GpuPane).show_age()
        self.query_one(TopologyPane).show_age()
        self.query_one(FleetPane).show_age()

    def on_theme_changed(self) -> None:
        """Tables colour cells in Python from theme roles, so they re-render (hidden tabs when
        next shown)."""
        self.show_session(self.app.editor.session)

    # ----- tabs and panes -------------------------------------------------------------
    @property
    def active_tab(self) -> str:
        return self.query_one("#tabs", ContentSwitcher).current or "main"

    def action_show_tab(self, tab: str, focus: bool = True) -> None:
        if tab not in TAB_IDS:
            return
        self._render_tab(tab)
        self.query_one("#tabs", ContentSwitcher).current = tab
        self.query_one(TabBar).active = tab
        if focus:
            self.focus_tab(tab)

    def focus_tab(self, tab: str) -> None:
        if tab == "main":
            self.focus_pane(self.main_pane)
            return
        widget = self.query_one(f"#{tab}")
        focus_view = getattr(widget, "focus_view", None)
        focus_view() if focus_view else widget.focus()

    def focus_pane(self, pane: str) -> None:
        self.main_pane = pane
        main = self.query_one("#main")
        for name in MAIN_PANES:
            main.set_class(name == pane, f"-pane-{name}")
        self._update_pane_bar()
        if pane == "board":
            self.query_one(TaskBoard).focus_board()
        else:
            self.query_one(f"#{pane}").focus()

    def action_next_pane(self) -> None:
        if self.active_tab != "main":
            self.action_show_tab("main")
            return
        current = self._focused_main_pane() or self.main_pane
        self.focus_pane(MAIN_PANES[(MAIN_PANES.index(current) + 1) % len(MAIN_PANES)])

    def _focused_main_pane(self) -> str | None:
        node: Widget | None = self.focused
        while node is not None and node is not self:
            if node.id in MAIN_PANES:
                return node.id
            node = node.parent  # type: ignore[assignment]
        return None

    def on_descendant_focus(self) -> None:
        pane = self._focused_main_pane()
        if pane and pane != self.main_pane:
            self.main_pane = pane
            main = self.query_one("#main")
            for name in MAIN_PANES:
                main.set_class(name == pane, f"-pane-{name}")
            self._update_pane_bar()

    def on_resize(self, event: Resize) -> None:
        narrow = event.size.width < NARROW_WIDTH or event.size.height < SHORT_HEIGHT
        self.set_class(narrow, "-narrow")

    def _update_pane_bar(self) -> None:
        parts: list[str | tuple[str, str]] = []
        for name, label in zip(MAIN_PANES, ("Board", "Log", "GPUs")):
            parts.append((f" {label} ", "bold reverse $primary") if name == self.main_pane else (f" {label} ", ""))
        parts.append(("  w: next pane", "$foreground-muted"))
        self.query_one("#pane-bar", Static).update(Content.assemble(*parts))

    # ----- screen-scope actions (keys from the registry's `screen` scope) --------------------
    def action_save(self) -> None:
        self.app.save(announce=True, over_broken=True)

    def action_undo(self) -> None:
        label = self.controller.undo()
        self.notify(f"Undone: {label}" if label else "Nothing to undo", timeout=2)

    def action_redo(self) -> None:
        label = self.controller.redo()
        self.notify(f"Redone: {label}" if label else "Nothing to redo", timeout=2)

    def action_quit(self) -> None:
        self.app.request_quit()

    def action_toggle_autosave(self) -> None:
        self.app.toggle_autosave()

    def action_next_theme(self) -> None:
        self.app.next_theme()

    def action_dismiss_banner(self) -> None:
        self.banner_dismissed = True
        self.query_one(LeftOffBanner).display = False

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(dict(self.active_bindings), self.app.bound_key_displays()))

    def on_fleet_pane_host_selected(self, message: FleetPane.HostSelected) -> None:
        """Enter on a Fleet row: that host's log and GPU panes, when the session has the host."""
        if message.session_host is None:
            self.notify(f"{message.host} is not a host of this session: add it under [[hosts]] to follow "
                        "its log and GPUs here", timeout=5)
            return
        self.action_show_tab("main", focus=False)
        for pane in (self.query_one(LogPane), self.query_one(GpuPane)):
            show_host = getattr(pane, "show_host", None)  # panes that hold several hosts switch to it
            if show_host is not None:
                show_host(message.session_host)
        self.focus_pane("log")
        self.notify(f"{message.session_host}: log and GPUs", timeout=2)

    # ----- the palette's way in ---------------------------------------------------------
    def scope_widget(self, scope: str) -> Widget:
        return {
            "tasks": lambda: self.query_one(TaskBoard),
            "discoveries": lambda: self.query_one(DiscoveriesView),
            "benchmarks": lambda: self.query_one(BenchmarksView),
            "launch": lambda: self.query_one(ProfilesView),
            "packages": lambda: self.query_one(PackagesTable),
            "files": lambda: self.query_one(FilesTable),
            "log": lambda: self.query_one(LogPane),
            "fleet": lambda: self.query_one(FleetPane),
        }[scope]()

    async def run_registry_action(self, action_id: str) -> None:
        """Run a registry action as if its key were pressed where it belongs."""
        spec = BY_ID[action_id]
        if spec.scope == "screen":
            await self.run_action(spec.action)
            return
        self.action_show_tab(SCOPE_TAB[spec.scope], focus=False)
        if spec.scope in ("tasks", "log"):
            self.focus_pane("board" if spec.scope == "tasks" else "log")
        else:
            self.focus_tab(SCOPE_TAB[spec.scope])
        await self.scope_widget(spec.scope).run_action(spec.action)

