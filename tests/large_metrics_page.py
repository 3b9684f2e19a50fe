"""A large /metrics page for `cockpit diagnose` (issue 34: a 31 MB page of 700,000 series took
24-30 s and 640 MB): SGLang 0.5's page of the families the rules read (the DP2 x TP4
fixture, tests/data/metrics) with families nobody reads around and between them, as a
server with per-request or per-adapter series serves: a counter per request id, a histogram
whose name starts like a used one's, the router's `sglang_` spelling, and a bare comment."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "metrics"
USED_PAGE = DATA / "sglang-0.5-dp2-tp4-pid-a.txt"


def large_page(series: int) -> str:
    """The used page, then `series` series of families no rule reads, split around it."""
    used = USED_PAGE.read_text(encoding="utf-8")
    head = ["# a bare comment line, kept out as every other unread family",
            "# HELP sglang:request_seen_total Requests seen, one series per request id.",
            "# TYPE sglang:request_seen_total counter"]
    half = series // 2
    head += [f'sglang:request_seen_total{{m="q",r="{i:07d}"}} {i % 7}' for i in range(half)]
    # a histogram named like a used one (e2e_request_latency_seconds), then the bulk
    tail = ["# HELP sglang_e2e_request_latency_seconds_lora LoRA latency (unread).",
            "# TYPE sglang_e2e_request_latency_seconds_lora histogram",
            'sglang_e2e_request_latency_seconds_lora_bucket{a="1",le="+Inf"} 2',
            'sglang_e2e_request_latency_seconds_lora_count{a="1"} 2',
            'sglang_e2e_request_latency_seconds_lora_sum{a="1"} 0.5',
            "# TYPE sglang_lora_s histogram"]
    for a in range(max(1, (series - half) // 3)):
        tail += [f'sglang_lora_s_bucket{{a="{a:06d}",le="+Inf"}} {a}', f'sglang_lora_s_count{{a="{a:06d}"}} {a}',
                 f'sglang_lora_s_sum{{a="{a:06d}"}} {a}']
    return "\n".join(head) + "\n" + used + "\n".join(tail) + "\n"
