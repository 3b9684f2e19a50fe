"""Writes the exposition fixtures of this folder. MADE BY COCKPIT'S AUTHORS, not captured
from a server: the shapes (names, labels, bucket bounds, HELP/TYPE lines) follow the public
formats of SGLang's `python/sglang/srt/metrics/collector.py` and docs/references/
production_metrics.md, and dcgm-exporter's README / default-counters.csv; the numbers are
invented. Run it to regenerate: python tests/data/metrics/make_fixtures.py
"""
from pathlib import Path

HERE = Path(__file__).resolve().parent
TTFT_LE = [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 120, 160]
ITL_LE = [0.002, 0.004, 0.006, 0.008, 0.010, 0.015, 0.020, 0.025, 0.030, 0.035, 0.040, 0.060,
          0.080, 0.100, 0.200, 0.400, 0.600, 0.800, 1.0, 2.0, 4.0, 6.0, 8.0]
E2E_LE = [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400, 800]


def fmt(v):
    return repr(float(v))


def lab(d):
    return "{" + ",".join(f'{k}="{v}"' for k, v in d.items()) + "}"


def cum(bounds, share_at, n):
    """Cumulative counts: n observations spread around bound index share_at."""
    out, c = [], 0
    for i, _ in enumerate(bounds):
        w = {share_at - 1: 0.2, share_at: 0.5, share_at + 1: 0.25, share_at + 2: 0.05}.get(i, 0)
        c += round(n * w)
        out.append(c)
    return out + [c]


def sglang(prefix, step, *, dp=2, tp=2, typed=True, old=False, model="Qwen/Qwen3-32B"):
    p = prefix
    lines = []
    def head(name, typ, help_):
        if typed:
            lines.append(f"# HELP {p}{name} {help_}")
            lines.append(f"# TYPE {p}{name} {typ}")
    ranks = [(d, t) for d in range(dp) for t in range(tp)]
    def base(d, t):
        if old:
            return {"name": model}
        return {"model_name": model, "engine_type": "unified", "tp_rank": t, "pp_rank": 0, "dp_rank": d}
    gauges = {"num_running_reqs": ("The number of running requests.", lambda d: 12 + d + step),
              "num_queue_reqs": ("The number of requests in the waiting queue.", lambda d: 3 * d),
              "num_used_tokens": ("The number of used tokens.", lambda d: 40000 + 1000 * d),
              "token_usage": ("The token usage.", lambda d: 0.30 + 0.1 * d),
              "gen_throughput": ("The generation throughput (token/s).", lambda d: 800.0 + 50 * d),
              "cache_hit_rate": ("The prefix cache hit rate.", lambda d: 0.25)}
    for name, (h, f) in gauges.items():
        head(name, "gauge", h)
        for d, t in ranks:
            lines.append(f"{p}{name}{lab(base(d, t))} {fmt(f(d))}")
    # counters come from the tokenizer manager: one series per model, no rank labels
    ml = {"name": model} if old else {"model_name": model}
    counters = {"prompt_tokens_total": 1_000_000 + 60_000 * step,
                "generation_tokens_total": 500_000 + 18_000 * step}
    if not old:
        counters["num_requests_total"] = 2000 + 40 * step
        counters["cached_tokens_total"] = 250_000 + 15_000 * step
    for name, v in counters.items():
        head(name, "counter", f"Number of {name[:-6].replace('_', ' ')} processed.")
        lines.append(f"{p}{name}{lab(ml)} {fmt(v)}")
    itl = "time_per_output_token_seconds" if old else "inter_token_latency_seconds"
    # cumulative, so a later scrape adds observations (slower TTFT since the first scrape)
    hists = [("time_to_first_token_seconds", TTFT_LE, 3, 2000, 5, 40 * step),
             (itl, ITL_LE, 5, 500_000, 6, 18_000 * step),
             ("e2e_request_latency_seconds", E2E_LE, 8, 2000, 9, 40 * step)]
    for name, bounds, at, n0, at2, n1 in hists:
        head(name, "histogram", f"Histogram of {name.replace('_', ' ')}.")
        counts = [a + b for a, b in zip(cum(bounds, at, n0), cum(bounds, at2, n1))]
        count = counts[-1]
        total = sum(b * (counts[i] - (counts[i - 1] if i else 0)) for i, b in enumerate(bounds))
        lines.append(f"{p}{name}_sum{lab(ml)} {fmt(total)}")
        for b, c in zip([*bounds, "+Inf"], counts):
            le = "+Inf" if b == "+Inf" else repr(float(b))
            lines.append(f"{p}{name}_bucket{lab({'le': le, **ml})} {fmt(c)}")
        lines.append(f"{p}{name}_count{lab(ml)} {fmt(count)}")
    return "\n".join(lines) + "\n"


def dcgm(step, *, with_limit=True, ngpu=2, host="gpu-node-1"):
    fields = [("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", lambda g: 1980 - 15 * g),
              ("DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", lambda g: 2619),
              ("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", lambda g: 61 + g),
              ("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", lambda g: 612.5 - 20 * g + step),
              ("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter",
               "Total energy consumption since boot (in mJ).", lambda g: 9_876_543_210 + 600_000 * step),
              ("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries.", lambda g: 3 * g),
              ("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", lambda g: 97 - g),
              ("DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", lambda g: 41),
              ("DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).", lambda g: 3012),
              ("DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", lambda g: 77543),
              ("DCGM_FI_DEV_FB_RESERVED", "gauge", "Framebuffer memory reserved (in MiB).", lambda g: 604)]
    if with_limit:
        fields.append(("DCGM_FI_DEV_POWER_MGMT_LIMIT", "gauge", "Power management limit (in W).",
                       lambda g: 700.0))
    lines = []
    for name, typ, h, f in fields:
        lines.append(f"# HELP {name} {h}")
        lines.append(f"# TYPE {name} {typ}")
        for g in range(ngpu):
            labels = {"gpu": g, "UUID": f"GPU-5f1c2a{g}e-0b7d-4c1e-9a3f-{g:012x}", "pci_bus_id": f"00000000:{0x18 + g:02X}:00.0",
                      "device": f"nvidia{g}", "modelName": "NVIDIA H100 80GB HBM3", "Hostname": host,
                      "DCGM_FI_DRIVER_VERSION": "550.90.07"}
            lines.append(f"{name}{lab(labels)} {f(g)}")
    return "\n".join(lines) + "\n"


def sglang_05(step, *, dp=2, tp=4, model="Qwen/Qwen3-235B-A22B"):
    """A 0.5.x page of DP x TP schedulers run with --enable-metrics-for-all-schedulers, as
    prometheus_client's multiprocess collector serves it: the scheduler's labels (model_name,
    engine_type, tp_rank, pp_rank, moe_ep_rank, dp_rank) on every rank's series, and a `pid`
    label, differing per rank, on the gauges (multiprocess_mode "all"; counters and histograms
    are summed over processes, so they carry none). The tokenizer's series: model_name and
    engine_type. Every DP group runs 10 requests at 50 % of its KV pool."""
    lines = []
    def head(name, typ, help_):
        lines.append(f"# HELP sglang:{name} {help_}")
        lines.append(f"# TYPE sglang:{name} {typ}")
    def rank(d, t):
        return {"model_name": model, "engine_type": "unified", "tp_rank": t, "pp_rank": 0,
                "moe_ep_rank": t, "dp_rank": d}
    ranks = [(d, t) for d in range(dp) for t in range(tp)]
    gauges = {"num_running_reqs": ("The number of running requests.", lambda d: 10 + step),
              "num_queue_reqs": ("The number of requests in the waiting queue.", lambda d: 2 * d),
              "num_used_tokens": ("The number of used tokens.", lambda d: 50000 + 1000 * step),
              "max_total_num_tokens": ("Maximum total number of tokens in the KV cache pool.", lambda d: 100000),
              "token_usage": ("The token usage.", lambda d: 0.5 + 0.01 * step),
              "gen_throughput": ("The generation throughput (token/s).", lambda d: 900.0 + 20 * d),
              "cache_hit_rate": ("The prefix cache hit rate.", lambda d: 0.2),
              "num_retracted_reqs": ("The number of retracted requests.", lambda d: 0)}
    for name, (h, f) in gauges.items():
        head(name, "gauge", h)
        for d, t in ranks:
            lines.append(f"sglang:{name}{lab({**rank(d, t), 'pid': 4100 + 10 * d + t})} {fmt(f(d))}")
    # the scheduler's queue time: one histogram per rank, every TP rank of a DP group the same
    head("queue_time_seconds", "histogram", "Histogram of queueing time in seconds.")
    q_le = [0.0, 0.1, 0.2, 0.5, 1, 2, 3, 4, 5, 10]
    for d, t in ranks:
        counts = [a + b for a, b in zip(cum(q_le, 2 + d, 1000), cum(q_le, 3 + d, 20 * step))]
        total = sum(b * (counts[i] - (counts[i - 1] if i else 0)) for i, b in enumerate(q_le))
        lines.append(f"sglang:queue_time_seconds_sum{lab(rank(d, t))} {fmt(total)}")
        for b, c in zip([*q_le, "+Inf"], counts):
            le = "+Inf" if b == "+Inf" else repr(float(b))
            lines.append(f"sglang:queue_time_seconds_bucket{lab({**rank(d, t), 'le': le})} {fmt(c)}")
        lines.append(f"sglang:queue_time_seconds_count{lab(rank(d, t))} {fmt(counts[-1])}")
    tok = {"model_name": model, "engine_type": "unified"}
    counters = {"prompt_tokens_total": 2_000_000 + 60_000 * step,
                "generation_tokens_total": 800_000 + 18_000 * step,
                "num_requests_total": 4000 + 40 * step, "cached_tokens_total": 400_000 + 15_000 * step}
    for name, v in counters.items():
        head(name, "counter", f"Number of {name[:-6].replace('_', ' ')} processed.")
        lines.append(f"sglang:{name}{lab(tok)} {fmt(v)}")
    hists = [("time_to_first_token_seconds", TTFT_LE, 3, 4000, 5, 40 * step),
             ("inter_token_latency_seconds", ITL_LE, 5, 800_000, 6, 18_000 * step),
             ("e2e_request_latency_seconds", E2E_LE, 8, 4000, 9, 40 * step)]
    for name, bounds, at, n0, at2, n1 in hists:
        head(name, "histogram", f"Histogram of {name.replace('_', ' ')}.")
        counts = [a + b for a, b in zip(cum(bounds, at, n0), cum(bounds, at2, n1))]
        total = sum(b * (counts[i] - (counts[i - 1] if i else 0)) for i, b in enumerate(bounds))
        lines.append(f"sglang:{name}_sum{lab(tok)} {fmt(total)}")
        for b, c in zip([*bounds, "+Inf"], counts):
            le = "+Inf" if b == "+Inf" else repr(float(b))
            lines.append(f"sglang:{name}_bucket{lab({**tok, 'le': le})} {fmt(c)}")
        lines.append(f"sglang:{name}_count{lab(tok)} {fmt(counts[-1])}")
    return "\n".join(lines) + "\n"


NOTICE = ("# MADE BY COCKPIT'S AUTHORS from public formats (SGLang collector.py and docs, dcgm-exporter\n"
          "# README); invented numbers, not captured from a server. See make_fixtures.py.\n")
files = {
    "sglang-0.4-dp2-a.txt": sglang("sglang:", 0),
    "sglang-0.4-dp2-b.txt": sglang("sglang:", 5),
    "sglang-0.3-old-names.txt": sglang("sglang:", 0, dp=1, tp=1, old=True),
    "router-sglang_-a.txt": sglang("sglang_", 0, dp=1, tp=1, typed=False),
    "router-sglang_-b.txt": sglang("sglang_", 5, dp=1, tp=1, typed=False),
    "sglang-0.5-dp2-tp4-pid-a.txt": sglang_05(0),
    "sglang-0.5-dp2-tp4-pid-b.txt": sglang_05(5),
    "dcgm-exporter-a.txt": dcgm(0),
    "dcgm-exporter-defaults.txt": dcgm(0, with_limit=False),
}
for name, text in files.items():
    (HERE / name).write_text(NOTICE + text)
