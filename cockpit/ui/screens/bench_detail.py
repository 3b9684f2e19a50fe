"""A benchmark's record in full, read-only: every figure the run recorded, grouped.

Opened with Enter on the Benchmarks tab (the table shows only what fits); `e` edits it (the
screen asks for the form), esc closes. Reuses the Files detail's dialog and keys.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from cockpit.ground.redact import redact_text
from cockpit.model.figures import number
from cockpit.model.session import Benchmark, Session
from cockpit.ui.keys.actions import specs_for
from cockpit.ui.safe_text import safe
from cockpit.ui.screens.file_detail import FileDetailScreen

NUMBER = "number"
"""The one formatter's number (model/figures.py): the small ratios (tok/J, req/s)."""
# (heading, ((field, label, format), ...)): figures not recorded are left out of their group.
_GROUPS: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...] = (
    ("Throughput", (("total_tok_s", "total tok/s", "{:,.1f}"), ("output_tok_s", "output tok/s", "{:,.1f}"),
                    ("output_tok_s_per_stream", "per-stream tok/s", "{:,.1f}"),
                    ("request_throughput", "requests/s", NUMBER))),
    ("Latency (client)", (("ttft_ms", "TTFT mean ms", "{:,.1f}"), ("ttft_median_ms", "TTFT p50 ms", "{:,.1f}"),
                          ("ttft_p90_ms", "TTFT p90 ms", "{:,.1f}"), ("ttft_p95_ms", "TTFT p95 ms", "{:,.1f}"),
                          ("ttft_p99_ms", "TTFT p99 ms", "{:,.1f}"), ("itl_ms", "ITL mean ms", "{:,.2f}"),
                          ("itl_median_ms", "ITL p50 ms", "{:,.2f}"), ("itl_p90_ms", "ITL p90 ms", "{:,.2f}"),
                          ("itl_p95_ms", "ITL p95 ms", "{:,.2f}"), ("itl_p99_ms", "ITL p99 ms", "{:,.2f}"),
                          ("tpot_ms", "TPOT mean ms", "{:,.2f}"), ("tpot_median_ms", "TPOT p50 ms", "{:,.2f}"),
                          ("tpot_p90_ms", "TPOT p90 ms", "{:,.2f}"), ("tpot_p95_ms", "TPOT p95 ms", "{:,.2f}"),
                          ("tpot_p99_ms", "TPOT p99 ms", "{:,.2f}"), ("e2e_latency_ms", "E2E mean ms", "{:,.1f}"),
                          ("e2e_median_ms", "E2E p50 ms", "{:,.1f}"), ("e2e_p90_ms", "E2E p90 ms", "{:,.1f}"),
                          ("e2e_p95_ms", "E2E p95 ms", "{:,.1f}"), ("e2e_p99_ms", "E2E p99 ms", "{:,.1f}"),
                          ("request_goodput", "goodput req/s", NUMBER))),
    ("Power over the measured run", (("power_mean_w", "mean W", "{:,.0f}"), ("power_peak_w", "peak W", "{:,.0f}"),
                                     ("power_share", "share of limit", "{:.0%}"),
                                     ("tok_per_joule", "tok/J total", NUMBER),
                                     ("output_tok_per_joule", "tok/J output", NUMBER),
                                     ("energy_j", "energy J (∫ W dt)", "{:,.1f}"),
                                     ("energy_counter_j", "energy counter J", "{:,.1f}"),
                                     ("energy_check", "check", "{}"))),
    ("Power in steady state", (("steady_from", "window from", "{}"), ("steady_s", "window s", "{:,.2f}"),
                               ("steady_power_w", "mean W", "{:,.0f}"), ("steady_j", "energy J (∫ W dt)", "{:,.1f}"),
                               ("steady_counter_j", "energy counter J", "{:,.1f}"),
                               ("steady_tok_per_joule", "tok/J total", NUMBER),
                               ("steady_output_tok_per_joule", "tok/J output", NUMBER),
                               ("steady_check", "check", "{}"))),
    ("Server (its /metrics histograms)",
     (("max_concurrent_requests", "achieved concurrency", "{}"), ("peak_running", "peak running", "{}"),
      ("peak_queued", "peak queued", "{}"),
      *((f"server_{short}_{q}_ms", f"{short.upper()} {q} ms", "{:,.1f}" if short == "ttft" else "{:,.2f}")
        for short in ("ttft", "itl") for q in ("p50", "p90", "p95", "p99")))),
)
_WIDTH = 22


def _bucket(bench: Benchmark, key: str) -> str:
    """`  in bucket 10–20`: a histogram percentile is known only to lie in its bucket."""
    bucket = bench.server_buckets.get(key)
    return f"  (interpolated in bucket {bucket[0]:g}–{bucket[1]:g})" if bucket else ""


def _version(bench: Benchmark) -> str | None:
    return f"({bench.bench_client_version})" if bench.bench_client_version else None


def bench_detail(bench: Benchmark) -> Content:
    parts: list[str | tuple[str, str]] = [(safe(bench.label), "bold")]
    run = [("profile", bench.profile), ("concurrency", bench.concurrency),
           ("in / out", f"{bench.input_len or '—'} / {bench.output_len or '—'}"),
           ("dataset", bench.dataset), ("sweep", bench.sweep), ("repeat", bench.repeat),
           ("bench client", " ".join(x for x in (bench.bench_client, _version(bench)) if x) or None),
           ("duration s", bench.duration_s), ("when", bench.when.strftime("%Y-%m-%d %H:%M") if bench.when else None)]
    for label, value in run:
        if value is not None:
            parts += ["\n", (f"{label:<{_WIDTH}}", "bold"), safe(str(value))]
    for heading, fields in _GROUPS:
        # text figures (an energy check names its GPU source) go through the one sanitizer
        shown = [(label, safe(value) if isinstance(value, str)
                  else (number(value) if fmt == NUMBER else fmt.format(value)) + _bucket(bench, key))
                 for key, label, fmt in fields if (value := getattr(bench, key)) is not None]
        if shown:
            parts += ["\n\n", (heading, "bold underline")]
            for label, text in shown:
                parts += ["\n", (f"{label:<{_WIDTH}}", "bold"), text]
    if bench.error_labels:
        parts += ["\n\n", ("Errors", "bold underline"), "\n", safe(", ".join(bench.error_labels))]
    command = redact_text(bench.command) if bench.command else None  # an --api-key value never shown
    for heading, said in (("Command (as the server was started)", command), ("Notes", bench.notes)):
        if said:
            parts += ["\n\n", (heading, "bold underline"), "\n", safe(said, multiline=True)]
    return Content.assemble(*parts)


class BenchDetailScreen(FileDetailScreen):
    """Dismisses with "edit" when `e` is pressed, else None."""

    def __init__(self, session: Session, bench: Benchmark) -> None:
        super().__init__(session, None)  # type: ignore[arg-type]  # the file record is not used here
        self.bench = bench

    def compose(self) -> ComposeResult:
        keys = " · ".join(f"{spec.key_display or spec.keys.split(',')[0]}: {spec.verb.lower()}"
                          for spec in specs_for("detail"))
        with Vertical(id="dialog"):
            yield Static(f"Benchmark {self.bench.id} (read-only)", classes="form-title", markup=False)
            with VerticalScroll():
                yield Static(bench_detail(self.bench), id="bench-detail")
            yield Static(keys, classes="form-hint", markup=False)
