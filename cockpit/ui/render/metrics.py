"""What the metrics pane says about a `ServerMetrics`, as plain lines (no widgets here).

Figures are never invented: a latency with no request in the window is `—`, a family the
endpoint lacks is named on its own line with a hint, and a failing scrape says why while
the last figures stay (dimmed by the pane).
"""

from __future__ import annotations

from cockpit.live.metrics.server_metrics import QUANTILES, ServerMetrics
from cockpit.live.metrics.server_metrics_series import SERIES, ServerMetricsSeries
from cockpit.model.figures import figure, number, share
from cockpit.parse.metrics.sglang_metrics import MISSING_HINTS
from cockpit.ui.render.gpu import SPARK_WINDOW_S
from cockpit.ui.render.gpu_spark import span_of, sparkline

LATENCY_TITLES = (("ttft", "TTFT"), ("itl", "ITL"), ("e2e", "E2E"))
DASH = "—"
RATES_WINDOW = "between the last 2 scrapes"
"""What every rate on the pane (tok/s, req/s, busy, FLOP/s) covers."""


def seconds(v: float | None) -> str:
    """A latency in the one formatter's words: `920 ms`, `12.3 ms` (a tenth of a ms at most:
    `18.21 ms` said more than a percentile over a window holds), `1.85 s`."""
    if v is None:
        return DASH
    return f"{number(v * 1000, decimals=1)} ms" if v < 1 else figure(v, "s")


def _share(v: float | None) -> str:
    return DASH if v is None else share(v)


def state_line(m: ServerMetrics) -> str:
    if m.state == "waiting":
        return "waiting for the first scrape…"
    parts = {"ok": "ok", "failing": f"failing: {m.error}", "not-sglang": "not an SGLang endpoint"}
    text = parts.get(m.state, m.state)
    if m.models:
        text += " · " + ", ".join(m.models)
    if m.run_index:
        text += f" · restarted ({m.run_index}×)"
    return text


def figure_lines(m: ServerMetrics) -> list[str]:
    g = m.gauges
    lines = []
    if g:
        usage = g.get("token_usage")
        lines.append(  # gauges: what the server says now
            f"running {number(g.get('num_running_reqs'))}  queued {number(g.get('num_queue_reqs'))}  "
            f"KV {_share(usage)}  gen {figure(g.get('gen_throughput'), 'tok/s')}")
    r = m.rates
    if r:
        lines.append(
            f"in {figure(r.get('prompt_tokens_per_s'), 'tok/s')}  "
            f"out {figure(r.get('generation_tokens_per_s'), 'tok/s')}  "
            f"{figure(r.get('requests_per_s'), 'req/s')}  ({RATES_WINDOW})")
    elif m.scrapes == 1:
        lines.append("rates from the second scrape on")
    return lines


def latency_lines(m: ServerMetrics) -> list[str]:
    if not m.latency and not m.latency_all:
        return []
    window = m.latency if m.window_span_s > 0 else m.latency_all
    span = f"last {min(m.window_s, m.window_span_s):.0f} s" if m.window_span_s > 0 else "since start"
    head = f"{'':5}" + "".join(f"{name:>9}" for name, _ in QUANTILES) + f"   {span}"
    rows = [head]
    for key, title in LATENCY_TITLES:
        q = window.get(key)
        if q is None:
            continue
        rows.append(f"{title:5}" + "".join(f"{seconds(q.get(name)):>9}" for name, _ in QUANTILES))
    return rows


def _si(v: float, unit: str) -> str:
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= scale:
            return f"{number(v / scale, decimals=1)} {prefix}{unit}"
    return figure(v, unit)


def signal_lines(m: ServerMetrics) -> list[str]:
    """The newer SGLang families, only where the server exposes them: per-DP-rank running /
    queued (`--enable-metrics-for-all-schedulers`), decode passes without a CUDA graph,
    retractions, GPU busy time, EPLB balancedness, speculative accept length, MFU counters."""
    g, r, out = m.gauges, m.rates, []
    running, queued = m.gauges_by_dp.get("num_running_reqs", {}), m.gauges_by_dp.get("num_queue_reqs", {})
    ranks = sorted((k for k in running if k != ""), key=lambda k: (len(k), k))
    if len(ranks) >= 2:
        out.append("per DP rank run/queue " + "  ".join(
            f"dp{k} {number(running[k])}/{number(queued.get(k, 0))}" for k in ranks))
    parts = []
    graph, none = m.graph_passes.get("decode_cuda_graph", 0.0), m.graph_passes.get("decode_none", 0.0)
    if graph + none > 0:
        parts.append(f"decode w/o graph {share(none / (graph + none))}")
    if "retracted_per_s" in r:
        parts.append(f"retract {figure(r['retracted_per_s'], 'req/s')}")
    if "gpu_busy" in r:
        parts.append(f"GPU busy {share(min(1.0, r['gpu_busy']))}")
    if "eplb_balancedness" in g:
        parts.append(f"EPLB bal {number(g['eplb_balancedness'])}")
    if g.get("spec_accept_length"):
        parts.append(f"accept len {figure(g['spec_accept_length'], 'tok')}")
    if "flops_per_s" in r:
        parts.append(_si(r["flops_per_s"], "FLOP/s"))
    if "read_bytes_per_s" in r:
        parts.append(_si(r["read_bytes_per_s"], "B/s read"))
    if parts:
        rated = any(key in r for key in ("retracted_per_s", "gpu_busy", "flops_per_s", "read_bytes_per_s"))
        out.append("  ".join(parts) + (f"  ({RATES_WINDOW})" if rated else ""))
    return out


def missing_lines(m: ServerMetrics) -> list[str]:
    if m.state == "not-sglang":
        return []
    out = []
    for name in m.missing:
        hint = MISSING_HINTS.get(name.removeprefix("sglang:"))
        out.append(f"no {name}" + (f": {hint}" if hint else ""))
    return out


def time_buckets(points: list[tuple[float, float]], width: int, *, window_s: float,
                 t_end: float | None) -> list[float | None]:
    """`width` columns of equal time over the whole window ending at `t_end` (the mean of the
    points in each; None where there is none): a column is the same time span in every chart,
    so a short history sits at the right, not stretched over the width."""
    if width <= 0 or not points:
        return []
    end = points[-1][0] if t_end is None else t_end
    start = end - window_s
    sums, counts = [0.0] * width, [0] * width
    for t, v in points:
        if start < t <= end:
            i = min(width - 1, int((t - start) / window_s * width))
            sums[i] += v
            counts[i] += 1
    return [total / n if n else None for total, n in zip(sums, counts)]


def chart_lines(series: ServerMetricsSeries, width: int, *, t_end: float | None,
                window_s: float = SPARK_WINDOW_S) -> list[str]:
    """A sparkline per series over the last `window_s` ending at `t_end`: the GPU pane's
    power sparklines end at the same time and span the same window, so they line up."""
    if not series:
        return []
    label_w = max(len(label) for _, label, *_ in SERIES) + 1
    spark_w = max(8, width - label_w - 16)
    lines = [f"{'':{label_w}}last {window_s / 60:.0f} min, the power chart's time axis"]
    for name, label, _where, _key in SERIES:
        points = series.series(name)
        values = time_buckets(points, spark_w, window_s=window_s, t_end=t_end)
        if sum(v is not None for v in values) < 2:  # one point is no chart
            continue
        span = span_of(values)
        assert span is not None
        # the label names the unit (`out tok/s`, `req/s`); a latency says its own (ms or s)
        word = seconds if name.endswith("_p50") else number
        lines.append(f"{label:<{label_w}}{sparkline(values, spark_w)} {word(span[0])}–{word(span[1])}")
    return lines if len(lines) > 1 else []
