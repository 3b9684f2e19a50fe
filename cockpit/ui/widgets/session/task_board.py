"""The task board: four columns, todo / doing / done / blocked, driven from the keyboard.

The board renders a session and turns keys into intents (`TaskMoveRequested`, ...); the
main screen applies them. After an edit the screen calls `select_task` so the selection
follows the task wherever it went.
"""

from __future__ import annotations

import time

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.visual import RulesMap
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from cockpit.model.edit.edits import SessionEditor
from cockpit.model.enums import TASK_COLUMNS, TaskStatus
from cockpit.model.session import Session, Task
from cockpit.ui import messages as msg
from cockpit.ui.focus_now import focus_now
from cockpit.ui.keys.actions import bindings_for
from cockpit.ui.safe_text import safe
from cockpit.ui.widgets.chrome.focus_mark import MARK
from cockpit.ui.widgets.session.restorable import RestorableOptionList

DELETE_CONFIRM_S = 3.0  # a second `d` within this deletes
LONG_COLUMN = 200  # options: more than any terminal shows at once

COLUMN_TITLES = {
    TaskStatus.TODO: "todo",
    TaskStatus.DOING: "doing",
    TaskStatus.DONE: "done",
    TaskStatus.BLOCKED: "blocked",
}


class _LineContent(Content):
    """A task's line: when it fits the column its height is 1 without wrapping it first
    (Textual lays out every option of a list to size it: 5,000 wraps cost ~0.5 s), and a
    line that wraps is wrapped once per width (start-up lays the board out three times)."""

    __slots__ = ("_heights",)
    _heights: dict[tuple[int, int, object, object], int]

    def get_height(self, rules: RulesMap, width: int) -> int:
        # A tab is 0 cells to cell_length but expands when drawn: the long way for it.
        pad = rules.get("line_pad", 0)
        fits = self.cell_length + pad * 2 <= width
        if fits and "\n" not in self.plain and "\t" not in self.plain:
            return 1
        try:
            heights = self._heights
        except AttributeError:
            heights = {}
            self._heights = heights
        key = (width, pad, rules.get("text_wrap"), rules.get("text_overflow"))
        if key not in heights:
            heights[key] = super().get_height(rules, width)
        return heights[key]


def task_prompt(task: Task, links: list[str]) -> Content:
    parts: list[str | tuple[str, str]] = []
    if task.review:
        parts.append(("⚑ review ", "bold $task-review"))
    parts += [(f"{task.id} ", "$foreground-muted"), safe(task.title)]
    if links:
        parts.append((f"  → {' '.join(links)}", "$foreground-muted"))
    content = Content.assemble(*parts)
    return _LineContent(content.plain, list(content.spans))


class TaskList(RestorableOptionList):
    """One column's tasks; option ids are task ids."""

    def __init__(self, status: TaskStatus) -> None:
        super().__init__(id=f"tasks-{status.value}", classes="task-list")
        self.status = status
        self.state_key = f"tasks.{status.value}"


class TaskColumn(Vertical):
    def __init__(self, status: TaskStatus) -> None:
        super().__init__(classes=f"task-column -{status.value}")
        self.status = status

        self._title = COLUMN_TITLES[status]
        self._drawn = self._title

    def compose(self) -> ComposeResult:
        yield Static(COLUMN_TITLES[self.status], classes="column-title")
        yield TaskList(self.status)

    def show_title(self, title: str) -> None:
        """The column's title; `▶ ` before it while its list has the keys (focus_mark.py)."""
        self._title = title
        self._mark_title()

    def _mark_title(self) -> None:
        focused = self.screen.focused if self.is_attached else None
        on = focused is not None and self in focused.ancestors
        self.set_class(on, "-focused")
        text = f"{MARK}{self._title}" if on else self._title
        if text == self._drawn:
            return
        self._drawn = text
        # Repainted, not laid out: the title is one line whatever its text (screen.tcss), and
        # the marker moves on every tab switch (a layout of the screen is 20-30 ms, issue 39).
        self.query_one(".column-title", Static).update(text, layout=False)

    def on_descendant_focus(self) -> None:
        self._mark_title()

    def on_descendant_blur(self) -> None:
        self._mark_title()


class TaskBoard(Horizontal):
    BINDINGS = bindings_for("tasks")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.column_index = 0
        """The column that has (or last had) focus."""
        self._options: dict[str, tuple[tuple[object, ...], Option]] = {}
        self.partial = False
        """Task id -> (what its line shows, its Option): an unchanged task keeps its Option,
        whose laid-out height Textual caches, so a 5,000-task board re-renders in ms."""
        self._delete_armed: tuple[str, float] | None = None
        """(task id, until): the task a first `d` asked about."""

    def compose(self) -> ComposeResult:
        for status in TASK_COLUMNS:
            yield TaskColumn(status)

    # ----- rendering ------------------------------------------------------------------
    def show(self, session: Session, *, first: int | None = None) -> None:
        """Render the columns; `first`: only that many tasks per column for now (the first
        frame of a big board; `partial` says so, and a later `show` fills them in)."""
        self.partial = False
        backlinks: dict[str, list[str]] = {}
        for disc in session.discoveries:
            for task_id in disc.tasks:
                backlinks.setdefault(task_id, []).append(disc.id)
        cache: dict[str, tuple[tuple[object, ...], Option]] = {}
        for status in TASK_COLUMNS:
            tasks = SessionEditor.column(session, status)
            options = []
            if first is not None and len(tasks) > first:
                self.partial = True
            for task in tasks[:first]:
                links = list(dict.fromkeys([*task.discoveries, *backlinks.get(task.id, [])]))
                shown = (task.title, task.review, *links)
                known = self._options.get(task.id)
                option = known[1] if known is not None and known[0] == shown else Option(task_prompt(task, links), id=task.id)
                cache[task.id] = (shown, option)
                options.append(option)
            task_list = self.list_for(status)
            # A column that will scroll shows its scrollbar before its options are laid out:
            # otherwise every option is wrapped twice (before and after the bar appears).
            task_list.set_class(len(options) > LONG_COLUMN, "-long")
            task_list.replace_options(options)
            review = sum(1 for t in tasks if t.review)
            title = f"{COLUMN_TITLES[status]} · {len(tasks)}" + (f" · ⚑{review}" if review else "")
            self.query_one(f".-{status.value}", TaskColumn).show_title(title)
        self._options = cache if not self.partial else {**self._options, **cache}

    # ----- lookups --------------------------------------------------------------------
    def list_for(self, status: TaskStatus) -> TaskList:
        return self.query_one(f"#tasks-{status.value}", TaskList)

    @property
    def current_list(self) -> TaskList:
        return self.list_for(TASK_COLUMNS[self.column_index])

    @property
    def selected_task_id(self) -> str | None:
        return self.current_list.selected_id()

    def focus_column(self, index: int) -> None:
        self.column_index = max(0, min(len(TASK_COLUMNS) - 1, index))
        focus_now(self.current_list)

    def focus_board(self) -> None:
        self.focus_column(self.column_index)

    def select_task(self, task_id: str, status: TaskStatus) -> None:
        """Highlight a task in its column and focus that column (after a move or add)."""
        self.column_index = TASK_COLUMNS.index(status)
        lst = self.current_list
        lst.select_id(task_id)
        lst.focus()

    @on(OptionList.OptionHighlighted)
    def _stop_highlight(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()

    def on_descendant_focus(self, event: object) -> None:
        focused = self.screen.focused
        if isinstance(focused, TaskList):
            self.column_index = TASK_COLUMNS.index(focused.status)

    @on(OptionList.OptionSelected)
    def _edit_on_enter(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(msg.TaskEditRequested(event.option.id))

    # ----- actions (keys from the registry's `tasks` scope) ----------------------------------
    def _with_task(self) -> str | None:
        task_id = self.selected_task_id
        if task_id is None:
            self.notify("No task selected in this column", severity="warning", timeout=2)
        return task_id

    def action_column(self, step: int) -> None:
        self.focus_column(self.column_index + step)

    def action_move(self, step: int) -> None:
        if task_id := self._with_task():
            self.post_message(msg.TaskMoveRequested(task_id, step))

    def action_reorder(self, step: int) -> None:
        if task_id := self._with_task():
            self.post_message(msg.TaskReorderRequested(task_id, step))

    def action_add(self) -> None:
        self.post_message(msg.TaskAddRequested(TASK_COLUMNS[self.column_index]))

    def action_edit(self) -> None:
        if task_id := self._with_task():
            self.post_message(msg.TaskEditRequested(task_id))

    def action_delete(self) -> None:
        """The first `d` asks; a second `d` on the same task within DELETE_CONFIRM_S deletes
        (a stray `d` among keys meant for another pane deleted a task at once)."""
        task_id = self._with_task()
        if task_id is None:
            return
        now = time.monotonic()
        if self._delete_armed is not None and self._delete_armed[0] == task_id and now < self._delete_armed[1]:
            self._delete_armed = None
            self.post_message(msg.TaskDeleteRequested(task_id))
            return
        self._delete_armed = (task_id, now + DELETE_CONFIRM_S)
        self.notify(f"Delete {task_id}? Press d again to delete it", severity="warning", timeout=DELETE_CONFIRM_S)

    def action_link(self) -> None:
        if task_id := self._with_task():
            self.post_message(msg.TaskLinkRequested(task_id))

    def action_acknowledge(self) -> None:
        if task_id := self._with_task():
            self.post_message(msg.TaskReviewAcknowledged(task_id))
