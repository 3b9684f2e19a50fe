"""What the Fleet tab shows, as Rich `Text`: a row per host, a row per server under it.

Host row: name, one block per GPU (its power as a share of its limit), the host's power
of its limit, mean utilisation, and its power over the history. Server row: generation
tokens/s, TTFT and ITL p50/p99, and its throughput over the history. A host or family
Prometheus lacks is a line that says so, in the warning colour, never a zero.
Pure functions of a `FleetSnapshot`, a width and the theme's palette.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.style import Style
from rich.text import Text

from cockpit.model.figures import number, share
from cockpit.parse.metrics.fleet_snapshot import FleetHost, FleetServer, FleetSnapshot, bin_series
from cockpit.ui.render.gpu_spark import BLOCKS, sparkline

Pal = Callable[..., Style]
DASH = "–"
NAME_MIN, NAME_MAX = 10, 22
SPARK_MIN = 6

ADD_ONE = (  # the prose is one line so it wraps at any width; the snippet fits in 64 columns
    "No Prometheus in this session. The Fleet tab reads every host's GPUs (dcgm-exporter) "
    "and every SGLang server through a Prometheus that scrapes them. Add one to the session file:\n"
    "\n"
    "[[prometheus]]\n"
    'name = "lab"\n'
    'url = "http://prometheus.lab:9090"\n'
    'auth_env = "PROM_AUTH"  # optional: env var, user:pass or token\n'
    "interval_s = 5          # refresh\n"
    "history_h = 3           # history loaded on open\n"
    'match = {cluster = "a"} # optional: only the targets it names\n'
)


def _ms(v: float | None) -> str:
    """A latency in the one formatter's number, unit glued (the column is narrow): `920ms`,
    `12.3ms`, `1.8s`."""
    if v is None:
        return DASH
    return f"{number(v * 1000, decimals=1)}ms" if v < 1 else f"{number(v, decimals=1)}s"




def power_text(h: FleetHost) -> str:
    """`4.9/5.6 kW 87%`, `4.9 kW no limit`, or a dash (the one formatter's numbers)."""
    p, lim = h.power_w, h.limit_w
    if p is None:
        return DASH
    unit = "kW" if max(p, lim or 0) >= 1000 else "W"

    def watts(w: float) -> str:  # both on the unit of the larger
        return number(w / 1000, decimals=1) if unit == "kW" else number(w)

    if lim:
        return f"{watts(p)}/{watts(lim)} {unit} {share(p / lim)}"
    return f"{watts(p)} {unit} no limit"


def gpu_blocks(h: FleetHost) -> str:
    """One block per GPU: its power share of its limit (`?` without a limit)."""
    out = []
    for g in h.gpus:
        if g.power_w is None:
            out.append(" ")
        elif not g.limit_w:
            out.append("?")
        else:
            frac = min(1.0, max(0.0, g.power_w / g.limit_w))
            out.append(BLOCKS[min(len(BLOCKS) - 1, int(frac * len(BLOCKS)))])
    return "".join(out)


def _spark(points: tuple[tuple[float, float], ...], snap: FleetSnapshot, width: int) -> str:
    if width < SPARK_MIN:
        return ""
    values = bin_series(points, width, start=snap.at - snap.history_s, end=snap.at)
    return sparkline(values, width)


def _history_words(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.3g} h"
    return f"{seconds / 60:.3g} min" if seconds >= 60 else f"{seconds:.0f} s"


class Layout:
    def __init__(self, snap: FleetSnapshot, width: int) -> None:
        names = [h.name for h in snap.hosts] + ["  " + s.instance for h in snap.hosts for s in h.servers]
        self.name = max(NAME_MIN, min(NAME_MAX, max((len(n) for n in names), default=0)))
        self.gpus = max([len(h.gpus) for h in snap.hosts] + [4])
        self.power = 16
        self.util = 5
        used = self.name + 1 + self.gpus + 1 + self.power + 1 + self.util + 1
        self.spark = max(0, width - used - 1)
        # server row: tok/s, TTFT p50/p99, ITL p50/p99
        self.srv_used = self.name + 1 + 11 + 1 + 16 + 1 + 14 + 1
        self.srv_spark = max(0, width - self.srv_used - 1)


def _cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def header(snap: FleetSnapshot, width: int, pal: Pal) -> Text:
    lay = Layout(snap, width)
    muted = pal("foreground-muted")
    t = Text(style=muted)
    t.append(f"{'HOST':{lay.name}} {'GPUS':{lay.gpus}} {'POWER OF LIMIT':{lay.power}} {'UTIL':>{lay.util}} ")
    if lay.spark >= SPARK_MIN:
        t.append(_cut(f"power, last {_history_words(snap.history_s)}", lay.spark))
    t.append("\n")
    t.append(f"{'  server':{lay.name}} {'gen tok/s':>11} {'TTFT p50/p99':>16} {'ITL p50/p99':>14} ")
    if lay.srv_spark >= SPARK_MIN:
        t.append(_cut(f"tok/s, last {_history_words(snap.history_s)}", lay.srv_spark))
    return t


def host_row(h: FleetHost, snap: FleetSnapshot, lay: Layout, pal: Pal, selected: bool) -> Text:
    t = Text()
    name_style = pal("primary", bold=True) if selected else Style(bold=True)
    mark = "▸" if selected else " "
    t.append(f"{mark}{_cut(h.name, lay.name - 1):{lay.name - 1}}", style=name_style)
    t.append(" ")
    if h.state != "ok":
        t.append(_cut(f"{h.state}: {h.note}", max(10, lay.gpus + lay.power + lay.util + lay.spark + 3)),
                 style=pal("warning"))
        return t
    t.append(f"{gpu_blocks(h):{lay.gpus}} ", style=pal("power-ok"))
    frac = (h.power_w / h.limit_w) if h.power_w and h.limit_w else None
    role = "foreground-muted" if frac is None else "power-near-limit" if frac >= 0.95 else "power-ok"
    t.append(f"{power_text(h):{lay.power}} ", style=pal(role))
    util = share(h.util_pct / 100) if h.util_pct is not None else DASH
    t.append(f"{util:>{lay.util}} ")
    t.append(_spark(h.power_history, snap, lay.spark), style=pal("primary"))
    return t


def server_row(s: FleetServer, snap: FleetSnapshot, lay: Layout, pal: Pal) -> Text:
    t = Text()
    t.append(f"  {_cut(s.instance, lay.name - 2):{lay.name - 2}} ", style=pal("foreground-muted"))
    gen = s.get("gen_tok_s")
    t.append(f"{(number(gen) if gen is not None else DASH):>11} ")
    ttft = f"{_ms(s.get('ttft_p50'))}/{_ms(s.get('ttft_p99'))}" if "ttft_p50" in s.figures else "no TTFT"
    itl = f"{_ms(s.get('itl_p50'))}/{_ms(s.get('itl_p99'))}" if "itl_p50" in s.figures else "no ITL"
    t.append(f"{ttft:>16} ", style=None if "ttft_p50" in s.figures else pal("warning"))
    t.append(f"{itl:>14} ", style=None if "itl_p50" in s.figures else pal("warning"))
    t.append(_spark(s.history, snap, lay.srv_spark), style=pal("accent"))
    return t


def render_fleet(snap: FleetSnapshot, width: int, pal: Pal, cursor: int = 0) -> Text:
    """The table: host rows (cursor on one), server rows, and what is missing."""
    lay = Layout(snap, width)
    out = header(snap, width, pal)
    warn = pal("warning")
    for i, h in enumerate(snap.hosts):
        out.append("\n")
        out.append_text(host_row(h, snap, lay, pal, i == cursor))
        if h.state == "ok" and h.note:
            out.append("\n   " + _cut(h.note, width - 4), style=warn)
        for name in h.missing:
            out.append("\n   " + _cut(f"no {name} in Prometheus: not in dcgm-exporter's counters?", width - 4),
                       style=warn)
        if h.state == "ok" and not h.gpus:
            out.append("\n   " + _cut("no DCGM series for this host (is dcgm-exporter scraped?)", width - 4),
                       style=pal("foreground-muted"))
        for s in h.servers:
            out.append("\n")
            out.append_text(server_row(s, snap, lay, pal))
            for fam in s.missing:
                out.append("\n     " + _cut(f"no {fam} for {s.instance}", width - 6), style=warn)
    if not snap.hosts and snap.state == "ok":
        out.append("\nPrometheus has no DCGM_FI_DEV_* nor sglang: series: is it scraping dcgm-exporter and "
                   "the servers (started with --enable-metrics)?", style=warn)
    return out


def state_line(snap: FleetSnapshot | None, description: str, pal: Pal) -> Text:
    if snap is None:
        return Text(description, style=pal("foreground-muted"))
    if snap.state == "connecting":
        return Text(f"{description} · connecting…", style=pal("foreground-muted"))
    t = Text(description, style=pal("foreground-muted"))
    hosts = [h for h in snap.hosts if h.state == "ok"]
    t.append(f" · {len(hosts)} host{'s' if len(hosts) != 1 else ''}"
             f", {sum(len(h.servers) for h in hosts)} server{'s' if sum(len(h.servers) for h in hosts) != 1 else ''}"
             f", {sum(len(h.gpus) for h in hosts)} GPUs")
    if snap.rate_window_note:
        t.append(f" · {snap.rate_window_note}")
    if snap.state == "failing":
        kept = "figures below are the last good ones" if snap.hosts else "no figures from it yet"
        t.append(f"\n⚠ {snap.error_kind}: {snap.error} ({kept})", style=pal("error"))
    for note in snap.notes:
        t.append(f"\n{note}", style=pal("warning"))
    return t
