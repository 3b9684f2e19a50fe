"""Parse cost of a /metrics page of ~2,000 series (goal: under 5 ms per scrape).

    .venv/bin/python benchmarks/bench_metrics_parse.py [--runs 50]

The page: SGLang with 4 DP x 8 TP ranks all reporting (--enable-metrics-for-all-schedulers),
histograms labelled per rank too, as 0.5.x writes them; plus a dcgm-exporter page of 8 GPUs.
Times prometheus-client's parser (parse_exposition: every scrape parsed in full, the old
path), the feeds' ExpositionCache (the next scrape of the same series: only the values
are read, from the plan prometheus-client's first parse left), the SGLang mapping
(sglang_scrape), the fold (ServerMetricsFold.add) and dcgm_samples, all in one run.
Prints a table, writes benchmarks/out/metrics_parse.json.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench_common import timed

from cockpit.live.metrics.server_metrics import ServerMetricsFold
from cockpit.parse.gpu.dcgm_metrics import dcgm_samples
from cockpit.parse.metrics.prom_text import ExpositionCache, parse_exposition
from cockpit.parse.metrics.sglang_metrics import sglang_scrape

OUT = Path(__file__).resolve().parent / "out"
GAUGES = ("num_running_reqs", "num_queue_reqs", "num_used_tokens", "token_usage", "gen_throughput",
          "cache_hit_rate", "num_grammar_queue_reqs", "spec_accept_length", "max_total_num_tokens",
          "num_retracted_reqs", "utilization", "kv_used_tokens")
TTFT = (0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 120, 160)


def sglang_page(step: int, dp: int = 4, tp: int = 8) -> str:  # ~2,000 series
    lines = []
    for g in GAUGES:
        lines.append(f"# TYPE sglang:{g} gauge")
        for d in range(dp):
            for t in range(tp):
                lines.append(f'sglang:{g}{{model_name="m",engine_type="unified",tp_rank="{t}",pp_rank="0",'
                             f'dp_rank="{d}"}} {d + step}')
    for name in ("prompt_tokens_total", "generation_tokens_total", "num_requests_total"):
        lines.append(f"# TYPE sglang:{name} counter")
        lines.append(f'sglang:{name}{{model_name="m"}} {1000 * step + 7}')
    for h in ("time_to_first_token_seconds", "inter_token_latency_seconds", "e2e_request_latency_seconds"):
        lines.append(f"# TYPE sglang:{h} histogram")
        for d in range(dp):
            for t in range(tp * 3 // 4):
                lab = f'model_name="m",tp_rank="{t}",pp_rank="0",dp_rank="{d}"'
                for i, le in enumerate((*TTFT, "+Inf")):
                    lines.append(f'sglang:{h}_bucket{{le="{le}",{lab}}} {i * 10 + step}')
                lines.append(f"sglang:{h}_sum{{{lab}}} {100.0 + step}")
                lines.append(f"sglang:{h}_count{{{lab}}} {170 + step}")
    return "\n".join(lines) + "\n"


def dcgm_page(ngpu: int = 8) -> str:
    fields = ("DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_GPU_UTIL",
              "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_POWER_MGMT_LIMIT")
    return "".join(f'{f}{{gpu="{g}",UUID="GPU-{g}",device="nvidia{g}",modelName="H100",Hostname="n1"}} {g + 1}\n'
                   for f in fields for g in range(ngpu))




def timed_ms(fn, runs: int) -> float:
    return timed(fn, runs) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=50)
    runs = ap.parse_args().runs
    a, b = sglang_page(0), sglang_page(1)
    expo_a, expo_b = parse_exposition(a), parse_exposition(b)
    sa, sb = sglang_scrape(expo_a), sglang_scrape(expo_b)
    d = dcgm_page()
    expo_d = parse_exposition(d)

    cache = ExpositionCache()
    cache.parse(a)  # the first scrape: prometheus-client's full parse, which leaves the plan
    pages = [a, b]

    def next_scrape():  # alternate pages: a new text each time, the same series
        pages.reverse()
        return cache.parse(pages[0])

    def fold() -> None:
        f = ServerMetricsFold()
        f.add(sa, 0.0)
        f.add(sb, 5.0)

    rows = [
        ("parse_exposition (prometheus-client, old path)", expo_a.series, len(a),
         timed_ms(lambda: parse_exposition(a), runs)),
        ("ExpositionCache.parse, next scrape (goal < 5)", expo_a.series, len(a), timed_ms(next_scrape, runs)),
        ("sglang_scrape", expo_a.series, len(a), timed_ms(lambda: sglang_scrape(expo_a), runs)),
        ("ServerMetricsFold.add x2", expo_a.series, len(a), timed_ms(fold, runs) / 2),
        ("parse + scrape + fold (one scrape, old path)", expo_a.series, len(a),
         timed_ms(lambda: sglang_scrape(parse_exposition(a)), runs) + timed_ms(fold, runs) / 2),
        ("cached parse + scrape + fold (next scrape)", expo_a.series, len(a),
         timed_ms(lambda: sglang_scrape(next_scrape()), runs) + timed_ms(fold, runs) / 2),
        ("dcgm: parse + dcgm_samples (8 GPUs)", expo_d.series, len(d),
         timed_ms(lambda: dcgm_samples(parse_exposition(d)), runs)),
    ]
    print(f"{'step':48} {'series':>7} {'bytes':>8} {'median ms':>10}")
    for name, series, size, ms in rows:
        print(f"{name:48} {series:7d} {size:8d} {ms:10.2f}")
    assert cache.misses == 1, "the benchmark's pages should all be read from the plan"
    OUT.mkdir(exist_ok=True)
    (OUT / "metrics_parse.json").write_text(json.dumps(
        [{"step": n, "series": s, "bytes": z, "median_ms": round(m, 3)} for n, s, z, m in rows], indent=2) + "\n")


if __name__ == "__main__":
    main()
