"""The newer SGLang families (names as in srt/metrics/collector.py, 0.5.x), read where a
page has them; the pane's line for them; a page without them shows nothing new."""

from __future__ import annotations

from pathlib import Path

from cockpit.parse.metrics.prom_text import parse_exposition
from cockpit.parse.metrics.sglang_metrics import sglang_scrape

DATA = Path(__file__).resolve().parents[2] / "data" / "metrics"
L = 'model_name="m",engine_type="unified",pp_rank="0",moe_ep_rank="0"'


def page(graph: float, none: float, busy: float, retracted: float, flops: float, tp_ranks: int = 2) -> str:
    rows = []
    for family, kind, values in (
        ("cuda_graph_passes_total", "counter", [('mode="decode_cuda_graph"', graph), ('mode="decode_none"', none)]),
        ("forward_execution_seconds_total", "counter", [('category="decode"', busy)]),
        ("num_retracted_requests_total", "counter", [("", retracted)]),
        ("estimated_flops_per_gpu_total", "counter", [("", flops)]),
        ("spec_accept_length", "gauge", [("", 2.5)]),
    ):
        rows.append(f"# TYPE sglang:{family} {kind}")
        for tp in range(tp_ranks):  # every TP rank repeats its group's figure: counted once
            for extra, value in values:
                labels = ",".join(x for x in (L, f'tp_rank="{tp}"', 'dp_rank="0"', extra) if x)
                rows.append(f"sglang:{family}{{{labels}}} {value}")
    rows += ["# TYPE sglang:eplb_balancedness summary",
             f'sglang:eplb_balancedness_count{{{L},tp_rank="0",dp_rank="0",forward_mode="decode"}} 10',
             f'sglang:eplb_balancedness_sum{{{L},tp_rank="0",dp_rank="0",forward_mode="decode"}} 6.5']
    return "\n".join(rows) + "\n"


def test_newer_families_are_read_once_per_group() -> None:
    s = sglang_scrape(parse_exposition(page(900, 100, 12.5, 3, 1e15)))
    assert s.by_label["cuda_graph_passes_total"] == {"decode_cuda_graph": 900, "decode_none": 100}
    assert s.counters["forward_execution_seconds_total"] == 12.5
    assert s.counters["num_retracted_requests_total"] == 3
    assert s.gauges["eplb_balancedness"] == 0.65 and s.gauges["spec_accept_length"] == 2.5
