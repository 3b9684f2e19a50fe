"""What the GPU pane shows, as Rich `Text`: the per-GPU table, the total, the footnotes.

Pure functions of the samples, the `PowerHistory` and the theme's variables, so the pane
only decides *when* to render and in which mode. Colours come from theme roles
(`power-starved`, `power-ok`, `power-near-limit`, `warning`, `foreground-muted`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from rich.style import Style
from rich.text import Text

from cockpit.live.gpu.power_history import Headroom, PowerHistory, headroom_of, tokens_per_joule
from cockpit.model.figures import number
from cockpit.parse.gpu.sample import GpuSample
from cockpit.ui.render.gpu_columns import DASH, MIN_SPARK, Layout, gpu_label, pcie_downgraded, short_name
from cockpit.ui.render.gpu_spark import Point, bar, ratio_series, resample, span_of, sparkline

SPARK_WINDOW_S = 5 * 60.0
"""The span of the sparklines: the last five minutes."""
STALE_ROW = Style(dim=True)
"""A host whose stream dropped: its last figures stay, dimmed, until it is back."""
SPARK_MIN_SPAN = 0.10
"""A power sparkline's scale spans at least this fraction of the limit."""
SPAN_LABEL = 20
"""Width of the `318-362 W over 60 s` label in front of a full-mode sparkline."""

HEADROOM_ROLE = {
    Headroom.STARVED: "power-starved",
    Headroom.OK: "power-ok",
    Headroom.NEAR_LIMIT: "power-near-limit",
    Headroom.UNKNOWN: "foreground-muted",
}


RoleStyle = Callable[..., Style]
"""`(variables, role, *, bold=False) -> Style`: the theme's `role_style` (ui/theme/themes.py).
Passed in, not imported: it parses colours with Textual, and ui/render stays Textual-free
(an import-linter contract) so the command line can print with these renderers."""


class Palette:
    """Rich styles for the theme roles, looked up once per render."""

    def __init__(self, variables: dict[str, str], role_style: RoleStyle) -> None:
        self._variables = variables
        self._role_style = role_style
        self._cache: dict[tuple[str, bool], Style] = {}

    def __call__(self, role: str, *, bold: bool = False) -> Style:
        key = (role, bold)
        if key not in self._cache:
            self._cache[key] = self._role_style(self._variables, role, bold=bold)
        return self._cache[key]


def _cell(text: str | None, width: int, right: bool) -> str:
    text = DASH if text is None else text
    if len(text) > width:
        text = text[: width - 1] + "…"
    return text.rjust(width) if right else text.ljust(width)


def _labelled_spark(out: Text, values: Sequence[float | None], width: int, unit: str, style: Style,
                    label_style: Style, *, min_span: float) -> None:
    """Append a right-aligned sparkline of `width` columns with `low–high unit` just before it
    (the one formatter's numbers: a tok/J of 0.003 must not read 0.00)."""
    span = span_of(values)
    label = "" if span is None else f"{number(span[0])}–{number(span[1])} {unit} "
    spark = sparkline(values, len(values), min_span=min_span)
    pad = max(0, width - len(spark) - len(label))
    out.append(" " * pad)
    out.append(label[: max(0, width - len(spark))], style=label_style)
    out.append(spark, style=style)


def render_header(layout: Layout, pal: Palette) -> Text:
    parts = ["#".rjust(layout.label_width)]
    if layout.full:
        parts.append("name".ljust(layout.name_width))
    parts.append("power".ljust(layout.bar_width))
    parts.extend(_cell(c.header, c.width, c.right) for c in layout.columns)
    if not layout.full and layout.spark_width:
        parts.append("last 5 min".ljust(layout.spark_width)[: layout.spark_width])
    return Text(" ".join(parts), style=pal("foreground-muted", bold=True), no_wrap=True, overflow="crop")


def render_rows(samples: Sequence[GpuSample], history: PowerHistory, layout: Layout, pal: Palette,
                *, multi_host: bool, window_s: float = SPARK_WINDOW_S,
                stale_hosts: Collection[str | None] = ()) -> Text:
    """One line per GPU (two in full mode: the second is its power sparkline); the rows of
    `stale_hosts` (their stream dropped: the figures are the last ones) are dimmed."""
    total = history.total_series()
    t_end = total[-1][0] if total else None
    out = Text(no_wrap=True, overflow="crop")
    muted = pal("foreground-muted")
    for n, s in enumerate(samples):
        if n:
            out.append("\n")
        row_start = len(out)
        room = history.headroom(s.key) if history.latest(s.key) is not None else headroom_of(
            None if s.power_w is None else float(s.power_w),
            None if s.power_limit_w is None else float(s.power_limit_w))
        colour = pal(HEADROOM_ROLE[room])
        out.append(gpu_label(s, multi_host).rjust(layout.label_width), style=pal(HEADROOM_ROLE[room], bold=True))
        out.append(" ")
        if layout.full:
            out.append(_cell(short_name(s.name), layout.name_width, False))
            out.append(" ")
        filled, empty = bar(s.power_fraction, layout.bar_width)
        out.append(filled, style=colour)
        out.append(empty, style=muted)
        for c in layout.columns:
            out.append(" ")
            value = c.cell(s, layout.full)
            style: Style | str = ""
            if value is None:
                style = muted
            elif c.key in ("pct", "watts"):
                style = colour
            elif c.key == "pcie" and pcie_downgraded(s):
                style = pal("warning", bold=True)
            out.append(_cell(value, c.width, c.right), style=style)
        spark_w = layout.spark_width
        if spark_w:
            min_span = SPARK_MIN_SPAN * float(s.power_limit_w or 0)
            if layout.full:
                width = spark_w
                values = resample(history.series(s.key), width - SPAN_LABEL, window_s=window_s, t_end=t_end)
                out.append("\n" + " " * (layout.label_width + 1))
                _labelled_spark(out, values, width, "W", colour, muted, min_span=min_span)
            else:
                values = resample(history.series(s.key), spark_w - 1, window_s=window_s, t_end=t_end)
                out.append(" ")
                out.append(sparkline(values, spark_w - 1, min_span=min_span), style=colour)
        if s.host in stale_hosts:
            out.stylize(STALE_ROW, row_start, len(out))
    return out


GENERATING_S = 30.0
"""Tokens per joule is a figure of a server at work: shown only while the log reported a
generation throughput above zero within this many seconds of the newest power sample (a
stopped server writes no more batch lines; the old figure would otherwise stay)."""


def generating_at(throughput: Sequence[Point], t_end: float | None) -> bool:
    if t_end is None:
        return False
    return any(v > 0 and t >= t_end - GENERATING_S for t, v in throughput)


def render_total(history: PowerHistory, throughput: Sequence[Point] | None, width: int, pal: Palette,
                 *, full: bool, window_s: float = SPARK_WINDOW_S) -> Text:
    """`Σ 2690 W of 4800 W 56%` with the total power sparkline and, given a generation
    throughput series, tokens per joule on the same time axis."""
    draw, limit = history.total_draw_w(), history.total_limit_w()
    room = Headroom.UNKNOWN if draw is None or not limit else headroom_of(draw, limit)
    colour = pal(HEADROOM_ROLE[room], bold=True)
    total = history.total_series()
    t_end = total[-1][0] if total else None
    power_for_tpj = total
    tpj_series = ratio_series(throughput, total) if throughput else []
    generating = bool(throughput) and generating_at(throughput or (), t_end)
    tpj = tokens_per_joule(throughput, power_for_tpj) if throughput and generating else None
    head = Text(no_wrap=True, overflow="crop")
    head.append("Σ " if not full else "Total ", style=pal("foreground-muted", bold=True))
    head.append(history.headline(), style=colour)
    if draw is not None and limit:
        head.append(f" {draw / limit * 100:.0f}%", style=colour)
    # Three significant figures: early in a run the figure is small (0.0186), not zero. What it
    # divides is said (a sweep point's tok/J divides the client's tokens over its main run):
    # the server log's generated tokens over the GPUs' joules, on the span both series cover.
    # Narrow or wide, it says what it divides and over which span (issue 39: `0.00298 out tok/J`
    # said neither): the log's generated tokens over the GPUs' joules, not a sweep point's figure.
    tpj_text = None
    if tpj is not None and throughput:
        span = _overlap_words(throughput, total)
        what = "log gen tok ÷ GPU J" if full else "log gen÷GPU J"
        tpj_text = f"{number(tpj)} tok/J ({what}, {span})"
    if full:
        counts = _headroom_counts(history)
        if counts:
            head.append("   " + counts, style=pal("foreground-muted"))
        if tpj_text:
            head.append("   ")
            head.append(tpj_text, style=pal("foreground", bold=True))
        elif throughput is not None and not generating:
            head.append("   no generation", style=pal("foreground-muted"))
        # the bars' low–high ranges below are over this window (a range says its window)
        head.append(f"   bars: last {window_s / 60:.0f} min", style=pal("foreground-muted"))
        lines = [head]
        label_w = 6
        spark_w = max(0, width - label_w)
        line = Text(no_wrap=True, overflow="crop")
        line.append("power ".rjust(label_w), style=pal("foreground-muted"))
        values = resample(total, spark_w - SPAN_LABEL, window_s=window_s, t_end=t_end)
        _labelled_spark(line, values, spark_w, "W", colour, pal("foreground-muted"),
                        min_span=SPARK_MIN_SPAN * (limit or 0))
        lines.append(line)
        if throughput is not None:
            line = Text(no_wrap=True, overflow="crop")
            line.append("tok/J ".rjust(label_w), style=pal("foreground-muted"))
            if tpj_series:
                values = resample(tpj_series, spark_w - SPAN_LABEL, window_s=window_s, t_end=t_end)
                _labelled_spark(line, values, spark_w, "tok/J", pal("foreground"), pal("foreground-muted"),
                                min_span=0.1 * max(v or 0 for v in values))
            else:
                line.append("no overlap with the throughput series yet", style=pal("foreground-muted"))
            lines.append(line)
        return Text("\n").join(lines)
    rest = width - head.cell_len - (len(tpj_text) + 1 if tpj_text else 0) - 1
    if rest >= MIN_SPARK:
        head.append(" ")
        head.append(sparkline(resample(total, rest, window_s=window_s, t_end=t_end), rest,
                              min_span=SPARK_MIN_SPAN * (limit or 0)), style=colour)
    if tpj_text:
        head.append(" ")
        head.append(tpj_text, style=pal("foreground", bold=True))
    return head


def _overlap_words(throughput: Sequence[Point], power: Sequence[Point]) -> str:
    """The span both series cover, in words (`last 4 min`, `last 40 s`)."""
    if not throughput or not power:
        return "no overlap"
    start = max(min(t for t, _ in throughput), min(t for t, _ in power))
    end = min(max(t for t, _ in throughput), max(t for t, _ in power))
    span = max(0.0, end - start)
    return f"last {span / 60:.0f} min" if span >= 120 else f"last {span:.0f} s"


def render_host_totals(history: PowerHistory, hosts: Sequence[str | None], pal: Palette, *, label_width: int) -> Text:
    """Several hosts: one `gpu1 Σ 690 W of 1200 W 58%` line per host, above the grand total."""
    out = Text(no_wrap=True, overflow="crop")
    for n, host in enumerate(hosts):
        draw, limit = history.total_draw_w(host), history.total_limit_w(host)
        room = Headroom.UNKNOWN if draw is None or not limit else headroom_of(draw, limit)
        if n:
            out.append("\n")
        out.append((host or "local").rjust(label_width), style=pal("foreground-muted", bold=True))
        out.append(" Σ ", style=pal("foreground-muted"))
        out.append(history.headline(host), style=pal(HEADROOM_ROLE[room]))
        if draw is not None and limit:
            out.append(f" {draw / limit * 100:.0f}%", style=pal(HEADROOM_ROLE[room]))
    return out


def _headroom_counts(history: PowerHistory) -> str:
    counts: dict[Headroom, int] = {}
    for room in history.headrooms().values():
        counts[room] = counts.get(room, 0) + 1
    order = (Headroom.STARVED, Headroom.OK, Headroom.NEAR_LIMIT, Headroom.UNKNOWN)
    return " · ".join(f"{counts[r]} {r.value}" for r in order if counts.get(r))
