"""The server-log pane: a live, bounded, filterable view of an SGLang log with its metrics.

A view: it starts nothing. A LogPipeline (cockpit/control/log_pipeline.py) parses and folds
the log; its items come here. Public surface the rest of the UI relies on:

* `feed(item)`: one `LogItem` (cockpit.live.log.items / log_pipeline): `LogLines` to show,
  a `MetricsSnapshot` for the metrics strip, a `SourceState`, a `SummaryBefore`;
* `set_state(text)`: the source's state in words ("tail gpu1:/var/log/sglang.log",
  "gpu1: reconnecting in 8 s"); before any source it reads "no source configured";
* `view_state` / `apply_view_state(state)` (alias `restore`): follow, filter, search,
  errors-only, hide-batches, wrap (the session's `LogViewState`, the `ui.log` table); a
  change made in the pane posts `LogPane.ViewChanged`; with a search on, the border says
  which match is current of how many ("search: NCCL 3 of 41");
* `r` posts `BenchResultSeen` with the figures of the `bench_serving` result block at
  or above the current match (or the bottom of the view), for the benchmark form;
* `throughput_series()`: (log time s, gen tokens/s summed over DP ranks) points, and the
  `LogPane.ThroughputUpdated` message posted whenever they change (tokens per joule reads
  the live state's fold instead, live/state.py: the app relays nothing);
* `show_age()`: the border subtitle says how long ago the last line came; a quiet log is
  not stale, but one whose source lost its connection (`SourceState.connected` False) or
  stopped (`source_stopped()`) is marked stale.

Lines live in a LogBuffer ring (`max_lines`, the session's `ui.log_buffer_lines`), drawn by
a virtual LogLinesView.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import fields, replace
from pathlib import Path
from typing import Any, TypeAlias, assert_never

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

from cockpit.live.data_age import DataAge
from cockpit.live.items import LiveItem, LogItem
from cockpit.live.log.items import LogLines, SourceState, SummaryBefore
from cockpit.live.log.metrics_snapshot import MetricsSnapshot
from cockpit.live.routes import LOG_ITEMS
from cockpit.model.log_view import ANCHOR_CHARS, LogViewState
from cockpit.ui.keys.actions import bindings_for
from cockpit.ui.safe_text import safe
from cockpit.ui.widgets.chrome.age_mark import show_age
from cockpit.ui.widgets.chrome.focus_mark import FocusMarked
from cockpit.ui.widgets.log import pane_messages as log_pane_messages
from cockpit.ui.widgets.log.buffer import LogBuffer, Matcher, compile_pattern
from cockpit.ui.widgets.log.metrics_strip import LogMetricsStrip
from cockpit.ui.widgets.log.pane_keys import LogPaneKeys
from cockpit.ui.widgets.log.view import LogLinesView

NO_SOURCE = "no source configured"
ANCHOR_WAIT_S = 30.0
"""How long a restored place waits for its line to be read (a log's first read is seconds)."""


class LogPane(FocusMarked, Vertical, can_focus=True):
    BINDINGS = bindings_for("log")
    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")

    # Its messages (pane_messages.py), by the names the UI reads them by.
    ViewChanged: TypeAlias = log_pane_messages.ViewChanged
    PromptRequested: TypeAlias = log_pane_messages.PromptRequested
    BenchResultSeen: TypeAlias = log_pane_messages.BenchResultSeen
    ThroughputUpdated: TypeAlias = log_pane_messages.ThroughputUpdated

    def __init__(self, *, max_lines: int = 50_000, id: str | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        super().__init__(id=id)
        self.keys = LogPaneKeys(self)
        """Search and the key actions (pane_keys.py); the `action_*` below call it."""
        self.age = DataAge("read", clock=clock or time.time)
        """"read N s ago" for the first read of the file, "last line N s ago" once a line came after it."""
        self._counts_text = ""
        self._state = LogViewState()
        self._anchor: tuple[str, str | None] | None = None
        """A restored place (top line, current match) waiting for its lines to be read."""
        self._anchor_until = 0.0
        self.border_title = Content(f"Server log · {self.keys.describe_view()}")
        self._max_lines = max_lines
        self.state_text = NO_SOURCE
        self.buffer = LogBuffer(max_lines)
        self.metrics = MetricsSnapshot()
        self._stopped_run: int | None = None  # a run cockpit stopped, before its log says so
        self._search: Matcher | None = None
        self._preview = False  # the buffer holds a preview, to be replaced
        self._sync_pending = False  # lines stored, the view not yet told
        self._removed = 0  # rows dropped from the top since the view was last told
        self._last_sync = 0.0
        self._counts_at = 0.0  # when the border's line counts were last set
        self._counts_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(self.state_text, classes="log-state", markup=False)
        yield LogMetricsStrip(classes="log-metrics")
        view = LogLinesView(self.buffer, classes="log-lines")
        view.on_scrolled_back = self.keys.scrolled_back
        view.on_scrolled_end = self.keys.scrolled_end
        yield view

    def on_mount(self) -> None:
        self._apply_to_widgets()

    def on_focus(self) -> None:
        self.query_one(LogLinesView).focus()  # the lines take the keys; our bindings still apply

    @property
    def view(self) -> LogLinesView:
        return self.query_one(LogLinesView)

    # ----- the items of a LogPipeline ------------------------------------------------------
    TAKES: tuple[type, ...] = LOG_ITEMS

    def feed(self, item: LiveItem) -> None:
        if not isinstance(item, LogItem):  # the routing table sent another kind's: a bug
            raise TypeError(f"LogPane takes no {type(item).__name__}")
        if isinstance(item, LogLines):
            self.add(item)
        elif isinstance(item, MetricsSnapshot):
            self.show_metrics(item)
        elif isinstance(item, SourceState):
            if item.text is not None:
                self.set_state(item.text)
            if item.connected is not None and item.connected == self.age.lost:
                self.age.lost = not item.connected
                self.show_age()
        elif isinstance(item, SummaryBefore):
            if self.is_mounted:  # shown now, merged with the fold's figures when they come
                self.query_one(LogMetricsStrip).show_before(item.summary)
        else:
            assert_never(item)

    def add(self, lines: LogLines) -> None:
        buffer = self.buffer
        removed = 0
        # the first read (a preview and the batch in its place) is what the file held when cockpit
        # opened it: "read 20 s ago", never "last line 20 s ago" for a server stopped an hour since
        first_read = lines.preview or self._preview or not buffer.total
        if lines.preview:
            self._preview = True
        elif self._preview and lines.lines:  # the same lines and all before them, in their place
            self._preview = False
            removed += buffer.discard_all()
        removed += buffer.add_segments(lines.segments)
        if lines.lines:
            self.age.what = "read" if first_read and self.age.what == "read" else "last line"
            self.age.seen()
        if not self.is_mounted:
            return
        # The view is brought up to date at most once a frame, however many batches came.
        self._removed += removed
        if not self._sync_pending:
            self._sync_pending = True
            wait = self._last_sync + self.SYNC_INTERVAL_S - time.monotonic()
            if wait > 0:
                self.set_timer(wait, self._sync_view)
            else:
                self.call_later(self._sync_view)

    SYNC_INTERVAL_S = 1 / 30
    """New lines are drawn at most 30 times a second: in a burst a screenful goes by each
    time anyway, and the frames saved are time for keys (a key redraws at once)."""

    def _sync_view(self) -> None:
        """Apply what `add` stored: keep a paused view on its lines, size, follow, counts."""
        if not self._sync_pending or not self.is_mounted:
            return
        self._sync_pending = False
        self._last_sync = time.monotonic()
        removed, self._removed = self._removed, 0
        view = self.view
        if not self._state.follow:
            view.shift(removed)
        view.sync(self._state.follow)
        self._update_counts(soon=True)
        if self._anchor is not None:
            self._find_anchor()

    def set_state(self, text: str) -> None:
        self.state_text = text = safe(text)  # a host's words (a path, an SSH error)
        if self.is_mounted:
            self.query_one(".log-state", Static).update(text, layout=False)  # 1 row, 1fr: no reflow

    def source_stopped(self) -> None:
        """The feed ended or failed: no line will come, whatever the age says."""
        self.age.lost = True
        self.show_age()

    def show_age(self) -> None:
        if self.is_mounted:
            show_age(self, self.age, before=self._counts_text)

    # ----- key actions (the registry's `log` scope): Textual calls the widget's ------------
    def action_toggle_follow(self) -> None:
        self.keys.toggle_follow()

    def action_toggle_errors(self) -> None:
        self.keys.toggle_errors()

    def action_toggle_batches(self) -> None:
        self.keys.toggle_batches()

    def action_toggle_polls(self) -> None:
        self.keys.toggle_polls()

    def action_search_next(self) -> None:
        self.keys.search_next()

    def action_search_previous(self) -> None:
        self.keys.search_previous()

    def action_search(self) -> None:
        self.keys.search()

    def action_toggle_wrap(self) -> None:
        self.keys.toggle_wrap()

    def action_top(self) -> None:
        self.keys.top()

    def action_bottom(self) -> None:
        self.keys.bottom()

    def action_half_left(self) -> None:
        self.keys.half_left()

    def action_half_right(self) -> None:
        self.keys.half_right()

    def action_clear_filter(self) -> None:
        self.keys.clear_filter()

    def action_record_bench(self) -> None:
        self.keys.record_bench()

    def action_filter(self) -> None:
        self.keys.filter()

    # ----- metrics ------------------------------------------------------------------------
    def server_stopped(self) -> None:
        """cockpit stopped this log's server: its run reads "stopped" at once (a killed server
        often writes no last line, so the log alone would keep saying "ready")."""
        self._stopped_run = self.metrics.run_index
        self.show_metrics(self.metrics)

    def show_metrics(self, snap: MetricsSnapshot) -> None:
        stopped = snap.run_index is not None and snap.run_index == self._stopped_run
        if stopped and snap.run_state not in ("error", "stopped"):
            snap = replace(snap, run_state="stopped")  # until a new run starts in the log
        old = self.metrics
        self.metrics = snap
        if self.is_mounted:
            self.query_one(LogMetricsStrip).show(snap)
        name = "gen_throughput"
        if snap.points.get(name) != old.points.get(name):
            self.post_message(self.ThroughputUpdated(self, snap.points.get(name, ()),
                                                     snap.current.get(name), snap.peak.get(name)))

    def throughput_series(self) -> list[tuple[float, float]]:
        """Gen throughput (tokens/s, summed over DP ranks) by log time, oldest first."""
        return list(self.metrics.points.get("gen_throughput", ()))

    # ----- view state (saved in ui.log) ------------------------------------------------
    @property
    def view_state(self) -> LogViewState:
        """The view as saved: with a paused view's top line and the current match, so a
        reopen is exact (while the restored place waits for its lines, that place)."""
        state = self._state
        if self._anchor is not None:
            return replace(state, top_line=self._anchor[0], match_line=self._anchor[1])
        if state.follow or not self.is_mounted or not self.buffer.rows:
            return state
        view, rows = self.view, self.buffer.rows
        top = self.buffer.line_at(min(int(view.scroll_y), rows - 1)).text[:ANCHOR_CHARS]
        row = view.current_row
        match = self.buffer.line_at(row).text[:ANCHOR_CHARS] if row is not None and row < rows else None
        return replace(state, top_line=top, match_line=match)

    def _find_anchor(self) -> None:
        """Put a restored place back once its lines are in the buffer (newest copy of each)."""
        if self._anchor is None or not self.is_mounted or not self.buffer.rows:
            return
        if time.monotonic() > self._anchor_until:  # never read (a new log): the view stays paused
            self._anchor = None
            return
        top_text, match_text = self._anchor
        rows, line_at = self.buffer.rows, self.buffer.line_at
        top = next((r for r in range(rows - 1, -1, -1) if top_text and line_at(r).text.startswith(top_text)), None)
        if top is None:
            return  # not read yet: tried again with the next lines
        self._anchor = None
        view = self.view
        if match_text:
            match = next((r for r in range(rows - 1, -1, -1) if line_at(r).text.startswith(match_text)), None)
            view.current_row = match
        view.scroll_to(y=top, animate=False, immediate=True, force=True)
        self._show_title()

    def apply_view_state(self, state: object) -> None:
        self._sync_view()  # the view up to date with the buffer before it moves
        old = self._state
        if not isinstance(state, LogViewState):  # anything with its fields (tests, old callers)
            state = LogViewState(**{f.name: getattr(state, f.name) for f in fields(LogViewState)})
        if state.top_line is not None or state.match_line is not None:  # a saved place: shown once read
            self._anchor = (state.top_line or "", state.match_line)
            self._anchor_until = time.monotonic() + ANCHOR_WAIT_S
            state = replace(state, top_line=None, match_line=None, follow=False)
        self._state = state
        if (old.filter, old.errors_only, old.hide_batches, old.show_polls) \
                != (state.filter, state.errors_only, state.hide_batches, state.show_polls) \
                or self.buffer.filtered != bool(state.filter or state.errors_only or state.hide_batches
                                                or (not state.show_polls and self.buffer.polls)):
            self._refilter()
        if old.search != state.search or self._search is None and state.search:
            self._search = compile_pattern(state.search)
            self.keys.say_pattern_note(state.search)
            if self.is_mounted:
                self.view.search = self._search
                self.view.current_row = None
        if self.is_mounted:
            self._apply_to_widgets()
            self._find_anchor()

    restore = apply_view_state

    def _refilter(self) -> None:
        """Apply the filter, keeping the line at the top of the view (or the end) in view."""
        s = self._state
        anchor = None
        if self.is_mounted and not s.follow and self.buffer.rows:
            view = self.view
            top = min(int(view.scroll_y), self.buffer.rows - 1)
            anchor = self.buffer.seq_at(top)
        self.buffer.set_filter(s.filter, s.errors_only, s.hide_batches, not s.show_polls)
        self.keys.say_pattern_note(s.filter)
        if not self.is_mounted:
            return
        view = self.view
        view.current_row = None
        view.sync(s.follow)
        if anchor is not None:
            row = self.buffer.row_of(anchor)
            view.scroll_to(y=row if row is not None else view.max_scroll_y, animate=False, immediate=True, force=True)
        self._update_counts()

    def _apply_to_widgets(self) -> None:
        view = self.view
        view.search = self._search
        view.set_wrap(self._state.wrap)
        view.sync(self._state.follow)
        self._update_counts()  # and the title

    def _show_title(self) -> None:
        # In the border, not a widget of its own: a title change redraws the pane without
        # a layout pass, so a toggle key shows within a frame while lines pour in.
        title = f"Server log · {self.keys.describe_view()}"
        if title != str(self.border_title):
            self.border_title = Content(title)

    def _changed(self, **changes: Any) -> None:
        self._anchor = None  # the person moved on: a restored place still waiting is dropped
        self.apply_view_state(replace(self._state, **changes))
        self.post_message(self.ViewChanged(self.view_state))

    COUNTS_INTERVAL_S = 0.25

    def _update_counts(self, *, soon: bool = False) -> None:
        """The line counts in the border. With `soon`, at most every COUNTS_INTERVAL_S:
        a border change redraws the whole pane, and while lines pour in that would double
        each frame's cost for a number nobody can read at 60 changes a second."""
        if soon:
            if self._counts_timer is not None:
                return
            wait = self._counts_at + self.COUNTS_INTERVAL_S - time.monotonic()
            if wait > 0:
                self._counts_timer = self.set_timer(wait, self._update_counts)
                return
        if self._counts_timer is not None:
            self._counts_timer.stop()
            self._counts_timer = None
        self._counts_at = time.monotonic()
        b = self.buffer
        self._counts_text = f"{b.rows:,} of {len(b):,} lines" if b.filtered else f"{len(b):,} lines"
        if b.hiding_polls:  # what the view leaves out by default, and the key that shows it
            self._counts_text += " · polls hidden (p)"
        self.show_age()
        self._show_title()  # the match count grows with the lines
