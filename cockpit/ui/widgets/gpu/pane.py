"""The GPU pane: a row per GPU (power bar against the enforced limit, utilisation, memory,
temperature, SM clock, PCIe link, NUMA node, a power sparkline), the total line and the
footnotes that say why a figure is missing.

Public surface (the app and the demo rely on it):

* `feed(item)`: an item of the `sources.gpu` feed: `GpuSamplesTaken` (a tick),
  `GpuStreamInterrupted` ("reconnecting in N s": kept per host, only that host's rows
  dimmed, until its next tick), `GpuSourceUnavailable` (one clear message), a
  `TopologyMatrix` (as `set_topology`);
* `set_state(text)`: the source's state in words; before any source, "no source configured";
* `history` (given at construction): the live state's power fold, drawn as it is;
* `throughput_of` (given at construction): reads generation throughput `[(epoch s, tokens/s),
  ...]` from the live state below the UI (live/state.py, the log's fold) at each redraw; the
  total line then shows tokens per joule on the power's time axis. `throughput_changed()`
  says it moved; `set_throughput(series)` sets a series by hand (a pane with no live state);
* `set_topology(matrix)`: fills the NUMA column for sources that do not report it;
* `expect_every(interval_s)`: the source's sampling interval; no tick for 5 of them (at
  least 5 s) marks the figures stale;
* `show_age()`: the border subtitle says how old the figures are (the app calls it each second).

Items only update state; the pane redraws once per batch of items (one refresh per tick,
never per GPU). The look lives in `pane.tcss`; colours come from theme roles.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, assert_never

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from cockpit.live.data_age import DataAge, stale_after
from cockpit.live.gpu.power_history import PowerHistory
from cockpit.live.items import GpuItem, LiveItem
from cockpit.live.routes import GPU_ITEMS
from cockpit.parse.gpu.events import GpuSamplesTaken, GpuSourceUnavailable, GpuStreamInterrupted
from cockpit.parse.gpu.nvsmi_topo import TopologyMatrix
from cockpit.parse.gpu.sample import GpuSample
from cockpit.ui.render.gpu import (
    SPARK_WINDOW_S,
    Palette,
    render_header,
    render_host_totals,
    render_rows,
    render_total,
)
from cockpit.ui.render.gpu_columns import plan_layout, short_name
from cockpit.ui.render.gpu_notes import gpu_tooltip, missing_reasons
from cockpit.ui.render.gpu_spark import Point
from cockpit.ui.safe_text import inert_renderable, plain
from cockpit.ui.theme.themes import role_style
from cockpit.ui.widgets.chrome.age_mark import show_age
from cockpit.ui.widgets.chrome.focus_mark import FocusMarked
from cockpit.ui.widgets.chrome.redraw_once import RedrawOnce
from cockpit.ui.widgets.chrome.strip_lines import StripLines

NO_SOURCE = "no source configured"
WAITING = "waiting for the first GPU sample…"
FULL_MIN_WIDTH = 100
MAX_NOTES = 4


class GpuPane(FocusMarked, RedrawOnce, VerticalScroll, can_focus=True):
    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")

    def __init__(self, *, id: str | None = None, history_points: int = 900,
                 spark_window_s: float = SPARK_WINDOW_S, clock: Callable[[], float] | None = None,
                 throughput_of: Callable[[], Sequence[Point]] | None = None,
                 history: PowerHistory | None = None) -> None:
        super().__init__(id=id)
        self.age = DataAge("updated", stale_after(1.0), clock=clock or time.time)
        """When the last tick came (`clock`: seconds, the app's clock)."""
        self.border_title = "GPUs"
        self.state_text = NO_SOURCE
        """The source's own words (its description, or why it stopped)."""
        self.samples: list[GpuSample] = []
        """The latest sample of every GPU, in display order."""
        self.history = history if history is not None else PowerHistory(maxlen=history_points)
        """Power over time: the live state's fold (live/state.py) when given, drawn as it is;
        else the pane folds its ticks itself (a pane with no live state)."""
        self._folds_history = history is None
        self.spark_window_s = spark_window_s
        self.throughput: list[Point] | None = None
        self.throughput_of = throughput_of
        """Where the log's throughput is read (the live state's fold); None: `set_throughput`'s."""
        self._throughput_seen: tuple[Point, ...] = ()
        self.interrupted: dict[str | None, GpuStreamInterrupted] = {}
        """Hosts whose stream dropped and is being restarted, until their next tick."""
        self.unavailable: GpuSourceUnavailable | None = None
        self.compact = True
        """Set at each render: one line per GPU (short or narrow pane) or two."""
        self._numa: dict[int, int] = {}
        self._render_pending = False
        self._title = "GPUs"
        self._part_widgets: tuple[Static, Static, Static, StripLines, StripLines] | None = None
        self._pal: Palette | None = None
        self._pal_of: object = None

    def compose(self) -> ComposeResult:
        yield Static(self.state_text, classes="gpu-state", markup=False)
        yield Static(WAITING, classes="gpu-header", markup=False)
        yield StripLines(classes="gpu-rows")  # these two change each tick: line API
        yield StripLines(classes="gpu-total")
        yield Static("", classes="gpu-notes", markup=False)

    # ----- hooks for the live side ----------------------------------------------------
    TAKES: tuple[type, ...] = GPU_ITEMS
    """The items `feed` takes (the app's routing table, ui/live/routes.py)."""

    def feed(self, item: LiveItem) -> None:
        """One item of the GPU feed (see the module docstring)."""
        if not isinstance(item, GpuItem):  # the routing table sent another kind's: a bug
            raise TypeError(f"GpuPane takes no {type(item).__name__}")
        if isinstance(item, GpuSamplesTaken):
            self._take(item.samples, item.taken_at, item.host)
        elif isinstance(item, GpuStreamInterrupted):
            self.interrupted[item.host] = item
        elif isinstance(item, GpuSourceUnavailable):
            self.unavailable = item
            self.interrupted.pop(item.host, None)
            if self._folds_history:
                self.history.forget(item.host)
            self.samples = [s for s in self.samples if s.host != item.host]
        elif isinstance(item, TopologyMatrix):
            self.set_topology(item)
            return
        else:
            assert_never(item)
        self._schedule_render()

    def forget_host(self, host: str | None) -> None:
        """`host` left the session: its GPUs leave the table and the totals."""
        if self._folds_history:  # (else the live state forgets them: ui/app_live.py)
            self.history.forget(host)
        self.samples = [s for s in self.samples if s.host != host]
        self.interrupted.pop(host, None)
        if self.unavailable is not None and self.unavailable.host == host:
            self.unavailable = None
        self._schedule_render()

    def set_throughput(self, series: Sequence[Point] | None) -> None:
        """Generation throughput (epoch s, tokens/s), or None to hide tokens per joule."""
        self.throughput = None if series is None else sorted((float(t), float(v)) for t, v in series)
        self._schedule_render()

    def throughput_changed(self) -> None:
        """The log's fold moved in the live state: redrawn with the next batch when its
        throughput did (a busy log folds many times a second, its throughput far less)."""
        if self.throughput_of is not None and (series := tuple(self.throughput_of())) != self._throughput_seen:
            self._throughput_seen = series
            self._schedule_render()

    def _throughput_now(self) -> list[Point] | None:
        if self.throughput_of is None:
            return self.throughput
        series = self.throughput_of()
        return sorted((float(t), float(v)) for t, v in series) if series else None

    def set_topology(self, matrix: TopologyMatrix) -> None:
        """NUMA nodes from `topo -m` for GPUs whose samples do not carry one (nvidia-smi)."""
        numa: dict[int, int] = {}
        for name, value in (matrix.numa_affinity or {}).items():
            first = (value or "").split("-")[0].split(",")[0]
            if name.startswith("GPU") and name[3:].isdigit() and first.isdigit():
                numa[int(name[3:])] = int(first)
        self._numa = numa
        self.samples = [self._with_numa(s) for s in self.samples]
        self._schedule_render()

    def expect_every(self, interval_s: float) -> None:
        """The source samples every `interval_s`: the figures go stale after 5 quiet intervals."""
        self.age.stale_after_s = stale_after(interval_s)
        self.show_age()

    def show_age(self) -> None:
        show_age(self, self.age)

    # ----- state --------------------------------------------------------------------------
    def _with_numa(self, s: GpuSample) -> GpuSample:
        if s.numa_node is None and s.index in self._numa and "numa_node" not in s.notes:
            return replace(s, numa_node=self._numa[s.index])
        return s

    def _take(self, samples: Sequence[GpuSample], taken_at: float, host: str | None) -> None:
        batch = [self._with_numa(s) for s in samples]
        self.age.seen()
        if self._folds_history:
            self.history.add(batch, t=taken_at)
        if host is None:  # a tick of no host (a local sampler): nothing else is interrupted
            self.interrupted.clear()
        else:
            self.interrupted.pop(host, None)
        if self.unavailable is not None and self.unavailable.host == host:
            self.unavailable = None
        keys = {s.key for s in batch}
        kept = [s for s in self.samples if s.key not in keys]
        self.samples = sorted(kept + batch, key=lambda s: (s.host or "", s.index))
        self._schedule_render()

    # ----- rendering ----------------------------------------------------------------------
    def _state_line(self) -> tuple[str, str]:
        if self.unavailable is not None and not self.samples:
            return f"No GPU data: {self.unavailable.message}", "-error"
        if self.interrupted:
            shown = {s.host for s in self.samples}
            several = len(shown) > 1
            lines = []
            for host in sorted(self.interrupted, key=lambda h: h or ""):
                i = self.interrupted[host]
                stale = "" if host not in shown else (f"; {host}'s rows are stale" if several
                                                      else "; figures below are stale")
                # a scrape every 0.1 s retries at once: "reconnecting in 0 s" read as stuck
                when = f"reconnecting in {i.retry_in_s:.0f} s" if i.retry_in_s >= 0.5 else "retrying"
                lines.append(f"{i.host}: {when} ({i.reason}){stale}")
            return "\n".join(lines), "-warning"
        return self.state_text, ""

    def _redraw(self) -> None:
        self._render_pending = False
        if not self.is_mounted:
            return
        self.show_age()
        state, state_class = self._state_line()
        state_widget, header, notes, rows, total = self._parts()
        _update(state_widget, state)
        state_widget.set_classes(f"gpu-state {state_class}".strip())
        samples = self.samples
        if not samples:
            _update(header, "" if self.unavailable is not None else WAITING)
            _update(notes, "")
            for part in (rows, total):
                part.show("")
            for w in (rows, total, notes):
                w.display = False
            self._set_title("GPUs")
            return
        for w in (rows, total):
            w.display = True
        pal = self._palette()
        hosts = {s.host for s in samples}
        multi_host = len(hosts) > 1
        # one column kept free for the vertical scrollbar, which appears after the render
        width = max(20, (self.scrollable_content_region.width or self.size.width) - 1)
        height = self.scrollable_content_region.height or self.size.height
        reasons = missing_reasons(samples, multi_host=multi_host)
        # focused (w), every note: the keyboard's way to what the rows' tooltips say
        limit = len(reasons) if self.has_class("-focused") else MAX_NOTES
        n_notes = min(len(reasons), limit)
        throughput = self._throughput_now()
        total_lines = 2 + (throughput is not None) + (len(hosts) if multi_host else 0)
        want_full = width >= FULL_MIN_WIDTH and height >= 2 + 2 * len(samples) + total_lines + n_notes
        layout = plan_layout(width, samples, full=want_full, multi_host=multi_host)
        self.compact = not layout.full
        self.set_class(self.compact, "-compact")
        _update(header, render_header(layout, pal))
        rows.show(render_rows(samples, self.history, layout, pal, multi_host=multi_host,
                                  window_s=self.spark_window_s, stale_hosts=set(self.interrupted)))
        rows.tooltip = inert_renderable(gpu_tooltip(samples, multi_host=multi_host))
        grand = render_total(self.history, throughput, width, pal, full=layout.full,
                             window_s=self.spark_window_s)
        if multi_host:  # a total per host, then the total of all
            per_host = render_host_totals(self.history, sorted(hosts, key=lambda h: h or ""), pal,
                                          label_width=layout.label_width)
            grand = Text("\n").join([per_host, grand])
        total.show(grand)
        shown = reasons[:limit] + ([f"… {len(reasons) - limit} more (w to the GPUs shows all)"]
                                   if len(reasons) > limit else [])
        _update(notes, "\n".join(shown))
        notes.display = bool(shown)
        names = {short_name(s.name) for s in samples}
        host_part = "" if multi_host or None in hosts else f" on {next(iter(hosts))}"
        self._set_title(plain(f"GPUs{host_part} · {len(samples)}× {names.pop()}" if len(names) == 1
                              else f"GPUs{host_part} · {len(samples)}"))  # GPU names: host output

    def _parts(self) -> tuple[Static, Static, Static, StripLines, StripLines]:
        """(state, header, notes, rows, total), found once: they live as long as the pane,
        and five DOM queries a tick were a seventh of a redraw."""
        if self._part_widgets is None:
            static = [self.query_one(f".gpu-{n}", Static) for n in ("state", "header", "notes")]
            lines = [self.query_one(f".gpu-{n}", StripLines) for n in ("rows", "total")]
            self._part_widgets = (static[0], static[1], static[2], lines[0], lines[1])
        return self._part_widgets

    def _palette(self) -> Palette:
        """The theme's role styles, kept while the theme's variables stay the same."""
        variables = self.app.theme_variables
        if self._pal is None or self._pal_of is not variables:
            self._pal, self._pal_of = Palette(variables, role_style), variables
        return self._pal

    def _set_title(self, title: str | Content) -> None:
        """Setting a border title repaints the whole pane: only when it changes (not each tick)."""
        text = title.plain if isinstance(title, Content) else title
        if text != self._title:
            self._title = text
            self.border_title = title


def _update(widget: Static, content: Any) -> None:
    """Update a Static, asking for a layout pass only when its line count changes, and
    not at all when it shows the same thing (text and styles) as before.

    A tick redraws every row once a second; a full layout of the screen each time was
    most of the cockpit's idle CPU, and repainting the unchanged header, state and notes
    lines each tick a tenth of what was left.
    """
    if isinstance(content, (str, Text)) and type(content) is type(getattr(widget, "_cockpit_shown", None)) \
            and content == widget._cockpit_shown:  # type: ignore[attr-defined]
        return  # (Text compares its text and its styled spans)
    text = getattr(content, "plain", content)
    lines = text.count("\n") if isinstance(text, str) else -1
    changed = lines < 0 or getattr(widget, "_cockpit_lines", None) != lines
    widget._cockpit_lines = lines  # type: ignore[attr-defined]
    widget._cockpit_shown = content.copy() if isinstance(content, Text) else content  # type: ignore[attr-defined]
    widget.update(inert_renderable(content), layout=changed)  # GPU names, host errors: host output
