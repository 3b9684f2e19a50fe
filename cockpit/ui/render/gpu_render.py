"""What the GPU pane shows, as Rich `Text`: the per-GPU table, the total, the footnotes.

Pure functions of the samples, the `PowerHistory` and the theme's variables, so the pane
only decides *when* to render and in which mode. Colours come from theme roles
(`power-starved`, `power-ok`, `power-near-limit`, `warning`, `foreground-muted`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text

from cockpit.live.gpu.power_history import Headroom, PowerHistory, headroom_of, tokens_per_joule
from cockpit.parse.gpu.gpu_sample import GpuSample
from cockpit.ui.render.gpu_spark import Point, bar, ratio_series, resample, span_of, sparkline
from cockpit.ui.theme.themes import role_style

DASH = "–"
SPARK_WINDOW_S = 5 * 60.0
"""The span of the sparklines: the last five minutes."""
STALE_ROW = Style(dim=True)
"""A host whose stream dropped: its last figures stay, dimmed, until it is back."""
SPARK_MIN_SPAN = 0.10
"""A power sparkline's scale spans at least this fraction of the limit."""
SPAN_LABEL = 20
"""Width of the `318-362 W over 60 s` label in front of a full-mode sparkline."""
BUSY_UTIL_PCT = 10
"""Below this utilisation a lower PCIe generation is power saving, not a fault."""

HEADROOM_ROLE = {
    Headroom.STARVED: "power-starved",
    Headroom.OK: "power-ok",
    Headroom.NEAR_LIMIT: "power-near-limit",
    Headroom.UNKNOWN: "foreground-muted",
}

# field -> the word a footnote uses; fields sharing a word share a footnote
FIELD_WORDS: dict[str, str] = {
    "power_w": "power",
    "power_limit_w": "power limit",
    "util_gpu_pct": "util",
    "mem_used_mib": "memory",
    "mem_total_mib": "memory",
    "temp_c": "temp",
    "sm_clock_mhz": "SM clock",
    "pcie_gen": "pcie",
    "pcie_width": "pcie",
    "pcie_gen_max": "pcie max",
    "pcie_width_max": "pcie max",
    "numa_node": "numa",
}


class Palette:
    """Rich styles for the theme roles, looked up once per render."""

    def __init__(self, variables: dict[str, str]) -> None:
        self._variables = variables
        self._cache: dict[tuple[str, bool], Style] = {}

    def __call__(self, role: str, *, bold: bool = False) -> Style:
        key = (role, bold)
        if key not in self._cache:
            self._cache[key] = role_style(self._variables, role, bold=bold)
        return self._cache[key]


def short_name(name: str | None) -> str:
    if not name:
        return DASH
    for prefix in ("NVIDIA ",):
        if name.startswith(prefix):
            name = name[len(prefix):]
    return name


def _num(v: float | int | None, fmt: str = "{:.0f}") -> str | None:
    return None if v is None else fmt.format(v)


def pcie_downgraded(s: GpuSample) -> bool:
    """Narrower than the slot allows, or a lower generation while the GPU is busy."""
    if s.pcie_width is not None and s.pcie_width_max is not None and s.pcie_width < s.pcie_width_max:
        return True
    if s.pcie_gen is not None and s.pcie_gen_max is not None and s.pcie_gen < s.pcie_gen_max:
        return s.util_gpu_pct is None or s.util_gpu_pct >= BUSY_UTIL_PCT
    return False


def pcie_text(s: GpuSample, *, full: bool) -> str | None:
    if s.pcie_gen is None and s.pcie_width is None:
        return None
    now = f"{_num(s.pcie_gen) or '?'}x{_num(s.pcie_width) or '?'}"
    if not pcie_downgraded(s):
        return f"gen{now}" if full else now
    best = f"{_num(s.pcie_gen_max) or '?'}x{_num(s.pcie_width_max) or '?'}"
    return f"gen{now}<{best}" if full else f"{now}!"


def gpu_label(s: GpuSample, multi_host: bool) -> str:
    return f"{s.host}:{s.index}" if multi_host and s.host else str(s.index)


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    width: int
    cell: Callable[[GpuSample, bool], str | None]
    """(sample, full) -> text, None when the figure is missing."""
    right: bool = True


def _watts(s: GpuSample, full: bool) -> str | None:
    if s.power_w is None and s.power_limit_w is None:
        return None
    unit = " W" if full else "W"
    return f"{_num(s.power_w) or DASH}/{_num(s.power_limit_w) or DASH}{unit}"


def _mem(s: GpuSample, full: bool) -> str | None:
    if s.mem_used_mib is None and s.mem_total_mib is None:
        return None
    used = None if s.mem_used_mib is None else s.mem_used_mib / 1024
    total = None if s.mem_total_mib is None else s.mem_total_mib / 1024
    fmt = "{:.1f}" if full else "{:.0f}"
    return f"{_num(used, fmt) or DASH}/{_num(total, fmt) or DASH}" + (" GiB" if full else "G")


def _pct(s: GpuSample, full: bool) -> str | None:
    frac = s.power_fraction
    return None if frac is None else f"{frac * 100:.0f}%"


COLUMNS_COMPACT: tuple[Column, ...] = (
    Column("pct", "pwr", 4, _pct),
    Column("watts", "W", 9, _watts),
    Column("util", "util", 4, lambda s, f: _num(s.util_gpu_pct, "{:.0f}%")),
    Column("mem", "mem", 7, _mem),
    Column("temp", "temp", 4, lambda s, f: _num(s.temp_c, "{:.0f}°C")),
    Column("sm", "SM", 4, lambda s, f: _num(s.sm_clock_mhz)),
    Column("pcie", "pcie", 5, lambda s, f: pcie_text(s, full=False)),
    Column("numa", "numa", 4, lambda s, f: _num(s.numa_node)),
)
COLUMNS_FULL: tuple[Column, ...] = (
    Column("pct", "pwr", 4, _pct),
    Column("watts", "draw/limit", 11, _watts),
    Column("util", "util", 4, lambda s, f: _num(s.util_gpu_pct, "{:.0f}%")),
    Column("mem", "memory", 15, _mem),
    Column("temp", "temp", 4, lambda s, f: _num(s.temp_c, "{:.0f}°C")),
    Column("sm", "SM clock", 8, lambda s, f: _num(s.sm_clock_mhz, "{:.0f} MHz")),
    Column("pcie", "pcie", 12, lambda s, f: pcie_text(s, full=True), right=False),
    Column("numa", "numa", 4, lambda s, f: _num(s.numa_node)),
)
# Which compact columns go first when the pane is narrow (pct and watts always stay).
DROP_ORDER = ("numa", "sm", "temp", "pcie", "mem", "util")
MIN_SPARK = 6
NAME_WIDTH = 22


@dataclass(frozen=True)
class Layout:
    full: bool
    label_width: int
    bar_width: int
    columns: tuple[Column, ...]
    name_width: int
    spark_width: int


def plan_layout(width: int, samples: Sequence[GpuSample], *, full: bool, multi_host: bool) -> Layout:
    """The columns that fit `width`: everything in full mode, else drop the least useful."""
    label_width = max((len(gpu_label(s, multi_host)) for s in samples), default=1)
    if full:
        fixed = label_width + 1 + NAME_WIDTH + 1 + 16 + 1 + sum(c.width + 1 for c in COLUMNS_FULL)
        if fixed <= width:
            return Layout(True, label_width, 16, COLUMNS_FULL, NAME_WIDTH, max(0, width - label_width - 1))
    bar_width = 10 if width >= 70 else 6
    columns = list(COLUMNS_COMPACT)

    def used(cols: Iterable[Column]) -> int:
        return label_width + 1 + bar_width + 1 + sum(c.width + 1 for c in cols)

    for key in DROP_ORDER:
        if used(columns) + MIN_SPARK <= width:
            break
        columns = [c for c in columns if c.key != key]
    spark = width - used(columns)
    return Layout(False, label_width, bar_width, tuple(columns), 0, spark if spark >= MIN_SPARK else 0)


def _cell(text: str | None, width: int, right: bool) -> str:
    text = DASH if text is None else text
    if len(text) > width:
        text = text[: width - 1] + "…"
    return text.rjust(width) if right else text.ljust(width)


def _labelled_spark(out: Text, values: Sequence[float | None], width: int, unit: str, style: Style,
                    label_style: Style, *, min_span: float, fmt: str = "{:.0f}") -> None:
    """Append a right-aligned sparkline of `width` columns with `low–high unit` just before it."""
    span = span_of(values)
    label = "" if span is None else f"{fmt.format(span[0])}–{fmt.format(span[1])} {unit} "
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
    # Three significant figures: early in a run the figure is small (0.0186), not zero.
    tpj_text = None if tpj is None else (f"{tpj:.3g} tok/J" if tpj < 100 else f"{tpj:.0f} tok/J")
    if full:
        counts = _headroom_counts(history)
        if counts:
            head.append("   " + counts, style=pal("foreground-muted"))
        if tpj_text:
            head.append("   ")
            head.append(tpj_text, style=pal("foreground", bold=True))
        elif throughput is not None and not generating:
            head.append("   no generation", style=pal("foreground-muted"))
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
                                min_span=0.1 * max(v or 0 for v in values), fmt="{:.2f}")
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


def _gpu_list(labels: Sequence[str], total: int) -> str:
    if len(labels) == total and total > 1:
        return f"all {total} GPUs" if total > 2 else "both GPUs"
    if len(labels) == 1:
        return f"GPU {labels[0]}"
    return f"GPUs {','.join(labels)}"


def missing_reasons(samples: Sequence[GpuSample], *, multi_host: bool = False) -> list[str]:
    """One line per (figure, reason): `numa: [N/A] on all 8 GPUs`, `power limit: [N/A] on GPU 3`,
    plus a line per downgraded PCIe link."""
    groups: dict[tuple[str, str], list[str]] = {}
    for s in samples:
        seen: set[tuple[str, str]] = set()
        for field, word in FIELD_WORDS.items():
            if getattr(s, field) is not None:
                continue
            if field.endswith("_max") and getattr(s, field.removesuffix("_max")) is None:
                continue  # the current figure's note says it already
            key = (word, s.notes.get(field) or "not reported by this source")
            if key not in seen:
                seen.add(key)
                groups.setdefault(key, []).append(gpu_label(s, multi_host))
    lines = [f"{word}: {why} on {_gpu_list(labels, len(samples))}" for (word, why), labels in groups.items()]
    for s in samples:
        if pcie_downgraded(s):
            lines.append(f"pcie: GPU {gpu_label(s, multi_host)} link at gen{_num(s.pcie_gen)}x{_num(s.pcie_width)}, "
                         f"slot and GPU allow gen{_num(s.pcie_gen_max)}x{_num(s.pcie_width_max)}")
    return lines


def gpu_tooltip(samples: Sequence[GpuSample], *, multi_host: bool = False) -> str:
    """Per GPU: its full name and why each missing figure is missing."""
    lines = []
    for s in samples:
        notes = ", ".join(f"{FIELD_WORDS.get(k, k)} {v}" for k, v in s.notes.items())
        throttle = f"; clocks held by {', '.join(s.throttle_reasons)}" if s.throttle_reasons else ""
        lines.append(f"GPU {gpu_label(s, multi_host)}: {s.name or DASH}{' — ' + notes if notes else ''}{throttle}")
    return "\n".join(lines)
