"""The session's `ui` table <-> the main screen's widgets: captured at save time, applied
after mount (the app calls the screen's `capture_ui` and `apply_ui`, which are these).

Keys: `ui.selection[state_key]` and `ui.scroll[state_key]` for every restorable list,
`ui.selection["tasks"]` for the board's current column, `ui.selection["benchmarks.sort"]`
for the table's sort, `ui.selection["launch.diff_base"]` for the Launch tab's diff base, `ui.selection["benchmarks.chart"]`
for the chart's metric while the Benchmarks chart is shown, `ui.focused_pane` for the focused list's state key (or log / gpu /
topology), `ui.active_tab`, `ui.theme` and `ui.log` (the log pane's view state).
"""

from __future__ import annotations

from textual.dom import DOMNode
from textual.screen import Screen

from cockpit.model.enums import TASK_COLUMNS, TaskStatus
from cockpit.model.session import UiState
from cockpit.ui.keys.actions import TABS
from cockpit.ui.screens.main.tabs_and_panes import TabsAndPanes
from cockpit.ui.widgets.gpu.pane import GpuPane
from cockpit.ui.widgets.gpu.topology_pane import TopologyPane
from cockpit.ui.widgets.log.pane import LogPane
from cockpit.ui.widgets.session.benchmarks_view import BenchmarksView
from cockpit.ui.widgets.session.profiles_view import ProfilesView
from cockpit.ui.widgets.session.restorable import Restorable
from cockpit.ui.widgets.session.task_board import TaskBoard

_PANES = {"log": LogPane, "gpu": GpuPane, "topology": TopologyPane}


class ViewState:
    """The view of `screen` (tab, focus, selections, scrolls, log view) <-> `ui`."""

    def __init__(self, screen: Screen[None], panes: TabsAndPanes) -> None:
        self.screen = screen
        self.panes = panes

    def _restorables(self) -> list[Restorable]:
        return [w for w in self.screen.query("*") if isinstance(w, Restorable)]

    def focused_key(self) -> str | None:
        node: DOMNode | None = self.screen.focused
        while node is not None and node is not self.screen:
            if isinstance(node, Restorable) and node.state_key:
                return node.state_key
            for key, kind in _PANES.items():
                if isinstance(node, kind):
                    return key
            node = node.parent
        return None

    def capture(self, base: UiState) -> UiState:
        selection: dict[str, str] = {}
        scroll: dict[str, int] = {}
        for widget in self._restorables():
            ident = widget.selected_id()
            if ident:
                selection[widget.state_key] = ident
            offset = widget.scroll_offset_to_save()
            if offset:
                scroll[widget.state_key] = offset
        board = self.screen.query_one(TaskBoard)
        selection["tasks"] = TASK_COLUMNS[board.column_index].value
        benchmarks = self.screen.query_one(BenchmarksView)
        selection["benchmarks.sort"] = benchmarks.sort_state
        if chart := benchmarks.chart_state:
            selection["benchmarks.chart"] = chart
        if base_id := self.screen.query_one(ProfilesView).diff_base:
            selection["launch.diff_base"] = base_id
        return base.model_copy(update={
            "theme": self.screen.app.theme,
            "active_tab": self.panes.active_tab,
            "focused_pane": self.focused_key(),
            "selection": dict(sorted(selection.items())),
            "scroll": dict(sorted(scroll.items())),
            "log": self.panes.shown_log().view_state,  # the shown host's
        })

    def apply(self, ui: UiState, *, move: bool = True) -> None:
        """Put the widgets where `ui` says; unknown ids and keys are ignored (items may be gone).
        With `move` False the tab and focus stay where they are (the person already moved)."""
        board = self.screen.query_one(TaskBoard)
        column = ui.selection.get("tasks")
        if column in {s.value for s in TASK_COLUMNS}:
            board.column_index = TASK_COLUMNS.index(TaskStatus(column))
        benchmarks = self.screen.query_one(BenchmarksView)
        if sort := ui.selection.get("benchmarks.sort"):
            benchmarks.apply_sort_state(sort)
        benchmarks.apply_chart_state(ui.selection.get("benchmarks.chart"))
        self.screen.query_one(ProfilesView).restore_diff_base(ui.selection.get("launch.diff_base"))
        for widget in self._restorables():
            if ident := ui.selection.get(widget.state_key):
                widget.select_id(ident)
            widget.restore_scroll(ui.scroll.get(widget.state_key, 0))
        for log in self.screen.query(LogPane):  # every host's log pane: one view state
            log.apply_view_state(ui.log)
        if not move:
            return
        # A name this TUI does not know (a newer file's, one built without validation) opens on
        # the main tab instead of failing the open.
        tab = ui.active_tab if ui.active_tab in {t for t, *_ in TABS} else "main"
        self.panes.show_tab(tab, focus=False)
        focus = ui.focused_pane
        columns = {s.value: i for i, s in enumerate(TASK_COLUMNS)}
        if focus and focus.startswith("tasks.") and focus.removeprefix("tasks.") in columns:
            board.column_index = columns[focus.removeprefix("tasks.")]
            if tab == "main":
                self.panes.focus_pane("board")
        elif focus in ("log", "gpu") and tab == "main":
            self.panes.focus_pane(focus)
        if self.screen.focused is None or tab != "main":
            self.panes.focus_tab(tab)
        if tab == "main" and focus is None:
            self.panes.focus_pane("board")
