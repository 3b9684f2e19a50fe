"""The benchmark form: a run's label, figures, notes and command, pasted from the bench
client's output or typed (the main screen applies the values through the SessionEditor)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from textual.widget import Widget
from textual.widgets import Input, Select, TextArea

from cockpit.model.session import Benchmark, Session
from cockpit.ui.safe_text import inert
from cockpit.ui.screens.forms.base import FormInvalid, FormScreen, area_input, check_ids, line_input, parse_number

# (field, label, whole number): the figures a person types most, first; then the rest a
# Benchmark holds (the experiment loop's), so that any field can be edited here.
_BENCH_NUMBERS: tuple[tuple[str, str, bool], ...] = (
    ("concurrency", "Concurrency", True),
    ("input_len", "Input len", True),
    ("output_len", "Output len", True),
    ("total_tok_s", "Total tok/s", False),
    ("output_tok_s", "Output tok/s", False),
    ("ttft_ms", "TTFT ms", False),
    ("itl_ms", "ITL ms", False),
)
_BENCH_MORE: tuple[tuple[str, str, bool], ...] = (
    ("request_throughput", "Req/s", False),
    ("tpot_ms", "TPOT ms", False),
    ("e2e_latency_ms", "E2E ms", False),
    ("ttft_p99_ms", "TTFT p99 ms", False),
    ("itl_p99_ms", "ITL p99 ms", False),
    ("output_tok_s_per_stream", "Tok/s/stream", False),
    ("duration_s", "Duration s", False),
    ("power_mean_w", "Power mean W", False),
    ("power_peak_w", "Power peak W", False),
    ("power_share", "Power share", False),
    ("tok_per_joule", "Tok/J total", False),
    ("output_tok_per_joule", "Tok/J output", False),
    ("ttft_median_ms", "TTFT p50 ms", False),
    ("itl_median_ms", "ITL p50 ms", False),
    ("e2e_p99_ms", "E2E p99 ms", False),
    ("max_concurrent_requests", "Achieved conc.", True),
    ("peak_running", "Peak running", True),
    ("peak_queued", "Peak queued", True),
    ("server_ttft_p50_ms", "Srv TTFT p50", False),
    ("server_ttft_p99_ms", "Srv TTFT p99", False),
    ("server_itl_p50_ms", "Srv ITL p50", False),
    ("server_itl_p99_ms", "Srv ITL p99", False),
)
_BENCH_TEXTS = (("dataset", "Dataset"), ("sweep", "Sweep"), ("error_labels", "Error labels"))


def _figure(value: float | int | None) -> str:
    return "" if value is None else str(value)


def bench_label(fields: Mapping[str, object]) -> str:
    """A label for a result recorded from a bench_serving block: its shape."""
    parts = [f"c={fields['concurrency']}" if fields.get("concurrency") else "c=inf"]
    if fields.get("input_len") is not None and fields.get("output_len") is not None:
        parts.append(f"{fields['input_len']}/{fields['output_len']}")
    return " ".join(parts)


class BenchmarkForm(FormScreen[dict[str, object]]):
    """A benchmark result as `bench_serving` reports it; the profile ties it to a launch.

    New (`a`), edited (`bench`: every field, clearing one unsets it) or filled from a
    result block (`figures`: recorded from the log). A `Serving Benchmark Result` block
    pasted into the first field fills the figures it has."""

    def __init__(self, session: Session, bench: Benchmark | None = None,
                 figures: Mapping[str, object] | None = None) -> None:
        super().__init__()
        self.session = session
        self.bench = bench
        self.figures = dict(figures or {})
        if bench is not None:
            self.title_text = f"Edit benchmark {bench.id}"
        elif figures:
            self.title_text = "New benchmark from a bench_serving result"
        else:
            self.title_text = "New benchmark"

    def _value(self, name: str) -> Any:
        if name in self.figures:
            return self.figures[name]
        return getattr(self.bench, name, None) if self.bench is not None else None

    def compose_fields(self) -> Iterable[Widget]:
        paste = area_input("")
        paste.placeholder = "paste a 'Serving Benchmark Result' block here to fill the figures"
        yield from self.row("paste", "Paste result", paste)
        label = self.bench.label if self.bench else (bench_label(self.figures) if self.figures else "")
        yield from self.row("label", "Label", line_input(label, "e.g. c=64 random 1k/1k"))
        if self.bench is not None:
            profile = self.bench.profile
        else:  # a new result is the working profile's unless said otherwise
            profile = next((p.id for p in self.session.launch if p.status.value == "working"), None)
        ids = {p.id for p in self.session.launch}
        yield from self.row("profile", "Profile", Select(
            [(inert(f"{p.id} {p.name}"), p.id) for p in self.session.launch], compact=True,
            prompt="(none)", value=profile if profile in ids else Select.NULL))
        for name, label_text, _integer in _BENCH_NUMBERS:
            yield from self.row(name, label_text, line_input(_figure(self._value(name))))
        yield from self.row("notes", "Notes", line_input(self._value("notes") or ""))
        for name, label_text, _integer in _BENCH_MORE:
            yield from self.row(name, label_text, line_input(_figure(self._value(name))))
        for name, label_text in _BENCH_TEXTS:
            value = self._value(name)
            yield from self.row(name, label_text, line_input(" ".join(value) if isinstance(value, list) else value or ""))
        yield from self.row("command", "Command", area_input(self._value("command") or ""))

    def on_mount(self) -> None:
        self.field("label").focus()  # the paste field is first in the form, not in the way

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area.id != "field-paste":
            return
        from cockpit.parse.bench.bench_serving import record_fields, result_before

        lines = event.text_area.text.splitlines()
        result = result_before(lines, len(lines) - 1)
        if result is None:
            return
        figures = record_fields(result.values)
        for name, value in figures.items():
            self.query_one(f"#field-{name}", Input).value = _figure(value)
        if not self.text("label"):
            self.query_one("#field-label", Input).value = bench_label(figures)
        self.notify(f"Filled {len(figures)} figures from the pasted result", timeout=3)

    def collect(self) -> dict[str, object]:
        """Every field (None where blank): the screen adds what is set, or edits what changed."""
        errors: dict[str, str] = {}
        out: dict[str, object] = {"label": self.text("label")}
        if not out["label"]:
            errors["label"] = "a benchmark needs a label"
        profile = self.query_one("#field-profile", Select).value
        out["profile"] = profile if isinstance(profile, str) else None
        for name, _label, integer in _BENCH_NUMBERS + _BENCH_MORE:
            try:
                out[name] = parse_number(self.text(name), integer=integer, minimum=1 if name == "concurrency" else 0)
            except ValueError as exc:
                errors[name] = str(exc)
        if not errors and out["total_tok_s"] is None and out["output_tok_s"] is None:
            errors["total_tok_s"] = "give total or output tok/s (or both)"
        out["notes"] = self.text("notes") or None
        out["dataset"] = self.text("dataset") or None
        out["command"] = self.text("command") or None
        out["error_labels"] = self.text("error_labels").replace(",", " ").split()
        try:
            sweep = check_ids(self.text("sweep"), (sw.id for sw in self.session.sweeps), "sweep")
            if len(sweep) > 1:
                raise ValueError("one sweep id")
            out["sweep"] = sweep[0] if sweep else None
        except ValueError as exc:
            errors["sweep"] = str(exc)
        if errors:
            raise FormInvalid(errors)
        return out
