"""The log pane's keys: search (next, previous, the match count) and the `log` scope's actions.

A part of LogPane (log_pane.py), split out whole: LogPane(LogPaneKeys, Vertical). The
pane keeps the view state; these methods move through it (`_changed`) and post the
pane's messages (a prompt, a bench result).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cockpit.model.log_view import LogViewState
from cockpit.parse.bench.bench_serving import record_fields, result_before
from cockpit.ui.safe_text import safe
from cockpit.ui.widgets.log.log_buffer import LogBuffer, Matcher, pattern_refusal
from cockpit.ui.widgets.log.log_view import LogLinesView

if TYPE_CHECKING:  # for mypy: the widget this is mixed into (a plain class at run time)
    from textual.widget import Widget as _Base
else:
    _Base = object


class LogPaneKeys(_Base):
    # LogPane's (log_pane.py).
    buffer: LogBuffer
    _search: Matcher | None
    _state: LogViewState
    PromptRequested: Any
    BenchResultSeen: Any

    if TYPE_CHECKING:
        @property
        def view(self) -> LogLinesView: ...
        def _sync_view(self) -> None: ...
        def _show_title(self) -> None: ...
        def _changed(self, **changes: Any) -> None: ...

    def match_count(self) -> tuple[int | None, int]:
        """(the current match's place, 1-based, or None; how many rows match the search)."""
        if self._search is None:
            return None, 0
        buffer = self.buffer
        total = len(buffer.matches(self._search))
        row = self.view.current_row if self.is_mounted else None
        if row is None or row >= buffer.rows:
            return None, total
        return buffer.match_index(self._search, row), total

    # ----- search ---------------------------------------------------------------------------
    def _jump(self, step: int, *, from_end: bool = False) -> bool:
        if self._search is None:
            return False
        self._sync_view()
        view = self.view
        rows = self.buffer.rows
        if from_end:
            start = rows  # the newest match first: searching back from the end
        elif view.current_row is not None:
            start = view.current_row
        else:
            start = int(view.scroll_y) - 1 if step > 0 else int(view.scroll_y) + view.scrollable_content_region.height
        row = self.buffer.find(self._search, start, step)
        if row is None:
            self.notify(f"no line matches {self._state.search!r}", severity="warning", markup=False)
            return False
        if self._state.follow:
            self._changed(follow=False)
        view.show_row(row)
        self._show_title()  # "3 of 41"
        return True

    def search_next(self) -> bool:
        return self._jump(+1)

    def search_previous(self) -> bool:
        return self._jump(-1)

    def set_search(self, text: str | None) -> None:
        """Search for `text` (regex, smart case) and jump to its newest match."""
        self._changed(search=text or None)
        if text:
            self._jump(-1, from_end=True)

    # ----- actions (keys from the registry's `log` scope) ----------------------------------
    def action_toggle_follow(self) -> None:
        self._changed(follow=not self._state.follow)

    def action_toggle_errors(self) -> None:
        self._changed(errors_only=not self._state.errors_only)

    def action_toggle_batches(self) -> None:
        self._changed(hide_batches=not self._state.hide_batches)

    def action_search_next(self) -> None:
        self.search_next()

    def action_search_previous(self) -> None:
        self.search_previous()

    def action_search(self) -> None:
        self.post_message(self.PromptRequested("Search the log (regex)", self._state.search or "",
                                               lambda text: self.set_search(text) if self._takes(text) else None))

    def action_toggle_wrap(self) -> None:
        self._changed(wrap=not self._state.wrap)

    def action_top(self) -> None:
        """The first line (pauses follow)."""
        self._sync_view()
        if self._state.follow:
            self._changed(follow=False)
        self.view.scroll_to(y=0, animate=False, immediate=True, force=True)

    def action_bottom(self) -> None:
        """The last line, following again."""
        if self._state.follow:
            self.view.sync(True)
        else:
            self._changed(follow=True)

    def action_half_left(self) -> None:
        self.view.action_scroll_left()

    def action_half_right(self) -> None:
        self.view.action_scroll_right()

    def action_clear_filter(self) -> None:
        """Show every line again: the filter, the search and errors-only off in one key
        (hiding batch lines is a standing choice: `b` turns it off)."""
        s = self._state
        if not (s.filter or s.search or s.errors_only):
            self.notify("No filter or search to clear", timeout=2)
            return
        self._changed(filter=None, search=None, errors_only=False)

    def action_record_bench(self) -> None:
        """"Record this result": the bench_serving block at or above the current match,
        or else above the bottom of the view."""
        self._sync_view()
        buffer = self.buffer
        if not buffer.rows:
            self.notify("No lines yet", severity="warning", timeout=3)
            return
        view = self.view
        row = view.current_row
        if row is None or row >= buffer.rows:
            row = view.bottom_row()
        end = buffer.seq_at(row) - buffer.first  # the block is read from every line, shown or not
        result = result_before(buffer.texts, end)
        if result is None:
            self.notify("No 'Serving Benchmark Result' block at or above this point of the log",
                        severity="warning", timeout=4)
            return
        self.post_message(self.BenchResultSeen(record_fields(result.values), result.backend))

    def action_filter(self) -> None:
        self.post_message(self.PromptRequested(
            "Show only lines matching (regex)", self._state.filter or "",
            lambda text: self._changed(filter=text or None) if self._takes(text) else None))

    def _takes(self, text: str | None) -> bool:
        """Whether a pattern typed at the prompt is set: not when cancelled (None), nor when
        it is a regex the linear-time engine refuses (said; the old one stays)."""
        if text is None:
            return False
        refused = pattern_refusal(text)
        if refused:
            self.notify(f"Not set: {safe(text)}: {refused}", severity="error", timeout=10, markup=False)
        return not refused
