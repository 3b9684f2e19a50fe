"""The log pane's keys: search (next, previous, the match count) and the `log` scope's actions.

A part LogPane (pane.py) owns, built with the pane it acts on: the pane keeps the view
state, and its `action_*` methods (Textual dispatches a key to the widget) call these, which
move through that state (`_changed`) and post the pane's messages (a prompt, a bench result).
"""

from __future__ import annotations

from typing import Any, Protocol

from textual.message import Message
from textual.notifications import SeverityLevel

from cockpit.model.log_view import LogViewState
from cockpit.parse.bench.bench_serving import record_fields, result_before
from cockpit.ui.safe_text import safe
from cockpit.ui.widgets.log.buffer import LogBuffer, Matcher, pattern_note, pattern_refusal
from cockpit.ui.widgets.log.pane_messages import BenchResultSeen, PromptRequested
from cockpit.ui.widgets.log.view import LogLinesView


class KeyedPane(Protocol):
    """What the keys read and call of the pane that owns them (LogPane)."""

    buffer: LogBuffer
    _search: Matcher | None  # the search compiled
    _state: LogViewState

    @property
    def view(self) -> LogLinesView: ...
    @property
    def is_mounted(self) -> bool: ...
    @property
    def is_attached(self) -> bool: ...
    def _sync_view(self) -> None: ...
    def _show_title(self) -> None: ...
    def _changed(self, **changes: Any) -> None: ...
    def post_message(self, message: Message) -> bool: ...
    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...


class LogPaneKeys:
    """Search and the `log` scope's key actions, over the pane that owns this part."""

    def __init__(self, pane: KeyedPane) -> None:
        self._pane = pane

    def describe_view(self) -> str:
        """The view in words, for the pane's title: `follow · search: oom 2 of 5 · wrap`."""
        s = self._pane._state
        parts = ["follow" if s.follow else "paused"]
        if s.filter:
            parts.append(f"filter: {safe(s.filter)}")
        if s.search:
            place, total = self.match_count()
            count = "no match" if not total else f"{place:,} of {total:,}" if place else f"{total:,} matches"
            parts.append(f"search: {safe(s.search)} {count}")
        if s.errors_only:
            parts.append("errors only")
        if s.hide_batches:
            parts.append("no batch lines")
        if s.wrap:
            parts.append("wrap")
        return " · ".join(parts)

    def match_count(self) -> tuple[int | None, int]:
        """(the current match's place, 1-based, or None; how many rows match the search)."""
        if self._pane._search is None:
            return None, 0
        buffer = self._pane.buffer
        total = len(buffer.matches(self._pane._search))
        row = self._pane.view.current_row if self._pane.is_mounted else None
        if row is None or row >= buffer.rows:
            return None, total
        return buffer.match_index(self._pane._search, row), total

    # ----- search ---------------------------------------------------------------------------
    def _jump(self, step: int, *, from_end: bool = False) -> bool:
        if self._pane._search is None:
            return False
        self._pane._sync_view()
        view = self._pane.view
        rows = self._pane.buffer.rows
        if from_end:
            start = rows  # the newest match first: searching back from the end
        elif view.current_row is not None:
            start = view.current_row
        else:
            start = int(view.scroll_y) - 1 if step > 0 else int(view.scroll_y) + view.scrollable_content_region.height
        row = self._pane.buffer.find(self._pane._search, start, step)
        if row is None:
            self._pane.notify(f"no line matches {self._pane._state.search!r}", severity="warning", markup=False)
            return False
        if self._pane._state.follow:
            self._pane._changed(follow=False)
        view.show_row(row)
        self._pane._show_title()  # "3 of 41"
        return True

    def search_next(self) -> bool:
        return self._jump(+1)

    def search_previous(self) -> bool:
        return self._jump(-1)

    def set_search(self, text: str | None) -> None:
        """Search for `text` (regex, smart case) and jump to its newest match."""
        self._pane._changed(search=text or None)
        if text:
            self._jump(-1, from_end=True)

    # ----- actions (keys from the registry's `log` scope) ----------------------------------
    def toggle_follow(self) -> None:
        self._pane._changed(follow=not self._pane._state.follow)

    def toggle_errors(self) -> None:
        self._pane._changed(errors_only=not self._pane._state.errors_only)

    def toggle_batches(self) -> None:
        self._pane._changed(hide_batches=not self._pane._state.hide_batches)

    def toggle_polls(self) -> None:
        self._pane._changed(show_polls=not self._pane._state.show_polls)

    def search(self) -> None:
        self._pane.post_message(PromptRequested("Search the log (regex)", self._pane._state.search or "",
                                               lambda text: self.set_search(text) if self._takes(text) else None))

    def toggle_wrap(self) -> None:
        self._pane._changed(wrap=not self._pane._state.wrap)

    def top(self) -> None:
        """The first line (pauses follow)."""
        self._pane._sync_view()
        if self._pane._state.follow:
            self._pane._changed(follow=False)
        self._pane.view.scroll_to(y=0, animate=False, immediate=True, force=True)

    def bottom(self) -> None:
        """The last line, following again."""
        if self._pane._state.follow:
            self._pane.view.sync(True)
        else:
            self._pane._changed(follow=True)

    def half_left(self) -> None:
        self._pane.view.action_scroll_left()

    def half_right(self) -> None:
        self._pane.view.action_scroll_right()

    def clear_filter(self) -> None:
        """Show every line again: the filter, the search and errors-only off in one key
        (hiding batch lines is a standing choice: `b` turns it off)."""
        s = self._pane._state
        if not (s.filter or s.search or s.errors_only):
            self._pane.notify("No filter or search to clear", timeout=2)
            return
        self._pane._changed(filter=None, search=None, errors_only=False)

    def record_bench(self) -> None:
        """"Record this result": the bench_serving block at or above the current match,
        or else above the bottom of the view."""
        self._pane._sync_view()
        buffer = self._pane.buffer
        if not buffer.rows:
            self._pane.notify("No lines yet", severity="warning", timeout=3)
            return
        view = self._pane.view
        row = view.current_row
        if row is None or row >= buffer.rows:
            row = view.bottom_row()
        end = buffer.seq_at(row) - buffer.first  # the block is read from every line, shown or not
        result = result_before(buffer.texts, end)
        if result is None:
            self._pane.notify("No 'Serving Benchmark Result' block at or above this point of the log",
                        severity="warning", timeout=4)
            return
        self._pane.post_message(BenchResultSeen(record_fields(result.values), result.backend))

    def filter(self) -> None:
        self._pane.post_message(PromptRequested(
            "Show only lines matching (regex)", self._pane._state.filter or "",
            lambda text: self._pane._changed(filter=text or None) if self._takes(text) else None))

    def _takes(self, text: str | None) -> bool:
        """Whether a pattern typed at the prompt is set: not when cancelled (None), nor when
        it is a regex the linear-time engine refuses (said; the old one stays)."""
        if text is None:
            return False
        refused = pattern_refusal(text)
        if refused:
            self._pane.notify(f"Not set: {safe(text)}: {refused}", severity="error", timeout=10, markup=False)
        return not refused

    def say_pattern_note(self, pattern: str | None) -> None:
        note = pattern_note(pattern)
        if note and self._pane.is_attached:  # a pattern that could freeze the pane is not run as a regex
            self._pane.notify(f"{safe(pattern or '')}: {note}", severity="warning", timeout=10, markup=False)

    # ----- the view scrolled by hand (its callbacks) -----------------------------------------
    def scrolled_back(self) -> None:
        if self._pane._state.follow:
            self._pane._changed(follow=False)

    def scrolled_end(self) -> None:
        if not self._pane._state.follow:
            self._pane._changed(follow=True)
