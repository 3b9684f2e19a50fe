"""Held-out diagnosis scenarios (issue 37): cut from real material, kept apart from the 41
of tests/data/diagnosis so the rules are measured on cases they were not written with.

Sources: the public corpus (SGLang logs and nvidia-smi pastes, kept in
tests/data/corpus), the demo's captures (sessions/demo: a real-format nvidia-smi
CSV and log), the /metrics pages in tests/data/metrics and the example session. Every
scenario folder holds copies of what it uses (tests read only the repository), and a
`scenario.toml`:

- `expect`: the top-1 finding kind, or "healthy" (no finding at all);
- `also`: for two causes at once, the other kind that must be found too (either may be top-1);
- `trap`: the class of careless reading the scenario is built to catch;
- `quotes` / `never`: text a finding must / must not carry (figures true to the inputs);
- `source` and `changed`: what it was cut from and every figure edited.

The truth was written from the situation each scenario describes, before the rules ran on it.
Run: .venv/bin/python tests/data/diagnosis_heldout/make_heldout.py
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
CORPUS = REPO / "tests" / "data" / "corpus"
DEMO = REPO / "sessions" / "demo"
METRICS = REPO / "tests" / "data" / "metrics"
SESSION = REPO / "sessions" / "glm5-nvfp4.toml"

FIELDS = ("timestamp", "index", "name", "uuid", "power.draw", "enforced.power.limit", "utilization.gpu",
          "utilization.memory", "memory.used", "memory.total", "temperature.gpu", "clocks.sm", "clocks.max.sm",
          "pcie.link.gen.current", "pcie.link.gen.max", "pcie.link.width.current", "pcie.link.width.max",
          "clocks_throttle_reasons.active")
ARGS_LINE = (DEMO / "sglang-server.log").read_text().splitlines()[0]  # server_args: tp 8


def corpus(*parts: str) -> str:
    return (CORPUS.joinpath(*parts)).read_text()


Row = dict[str, str]


def demo_rows(keep: set[int], per_gpu: int = 40) -> list[Row]:
    """The demo's nvidia-smi CSV rows of GPUs `keep`, the first `per_gpu` ticks of each."""
    out: list[Row] = []
    seen: dict[int, int] = {}
    for line in (DEMO / "nvidia-smi-query.csv").read_text().splitlines():
        cells = line.split(", ")
        gpu = int(cells[1])
        if gpu in keep and seen.get(gpu, 0) < per_gpu:
            seen[gpu] = seen.get(gpu, 0) + 1
            out.append(dict(zip(FIELDS, cells, strict=True)))
    return out


def csv(rows: list[Row], fields: tuple[str, ...] = FIELDS, header: bool = True,
        extra: dict[str, str] | None = None) -> str:
    """Rows as `--query-gpu` CSV (nounits); `extra`: more columns, name -> value."""
    names = list(fields) + list(extra or {})
    lines = [", ".join(names)] if header else []
    for r in rows:
        lines.append(", ".join([r[f] for f in fields] + list((extra or {}).values())))
    return "\n".join(lines) + "\n"


def edit(rows: list[Row], fn: Callable[[Row], None]) -> list[Row]:
    for r in rows:
        fn(r)
    return rows


def metrics_page(base: str, edits: dict[str, str] | None = None, extra: str = "") -> str:
    text = (METRICS / base).read_text()
    for pattern, value in (edits or {}).items():
        text, n = re.subn(pattern, value, text, flags=re.M)
        assert n, (base, pattern)
    return text + extra


def per_dp(name: str, values: dict[str, float]) -> dict[str, str]:
    """Regex edits setting gauge `name` of each dp_rank to its value."""
    return {rf'(sglang:{name}\{{[^}}]*dp_rank="{dp}"[^}}]*\}}) [\d.e+-]+': rf"\g<1> {v}" for dp, v in values.items()}


QWEN = 'model_name="Qwen/Qwen3-32B",engine_type="unified",tp_rank="0",pp_rank="0"'


def family(name: str, kind: str, rows: list[tuple[str, float]]) -> str:
    body = "".join(f"sglang:{name}{{{labels}}} {value}\n" for labels, value in rows)
    return f"# HELP sglang:{name} {name}\n# TYPE sglang:{name} {kind}\n" + body


def session_with(benchmarks: str, extra: str = "", *, launch: str | None = None) -> str:
    """The example session with its benchmarks replaced (discoveries' links to them dropped)."""
    text = SESSION.read_text()
    head = re.sub(r"\nbenchmarks = \[[^\]]*\]", "", text.split("[[benchmarks]]")[0])
    if launch is not None:
        head = head.split("[[launch]]")[0] + launch
    tail = text.split("[last_action]", 1)[1]
    return head + benchmarks + extra + "[last_action]" + tail


def bench(ident: str, label: str, tok: float, *, profile: str = "l1", conc: int = 64, when: str | None = None,
          power_share: float | None = None, sweep: str | None = None, dataset: str | None = None,
          inp: int = 1024, out: int = 1024) -> str:
    lines = [f'[[benchmarks]]\nid = "{ident}"\nlabel = "{label}"\nprofile = "{profile}"',
             f"concurrency = {conc}\ninput_len = {inp}\noutput_len = {out}\ntotal_tok_s = {tok}"]
    for name, value in (("when", when), ("power_share", power_share)):
        if value is not None:
            lines.append(f"{name} = {value}")
    for name, text in (("sweep", sweep), ("dataset", dataset)):
        if text is not None:
            lines.append(f'{name} = "{text}"')
    return "\n".join(lines) + "\n\n"


SWEEP = '[[sweeps]]\nid = "s1"\nname = "ramp"\nconcurrencies = [1, 8, 32, 64, 512, 1024]\n\n'
SCENARIOS: list[dict[str, object]] = []


def add(name: str, expect: str, trap: str, source: str, changed: str, *, also: tuple[str, ...] = (),
        quotes: tuple[str, ...] = (), never: tuple[str, ...] = (), **files: str) -> None:
    SCENARIOS.append({"name": name, "expect": expect, "also": list(also), "trap": trap, "source": source,
                      "changed": changed, "quotes": list(quotes), "never": list(never), "files": files})


def build() -> None:  # noqa: PLR0915 - one scenario after another
    # ---- idle links: trained down at idle, not a fault
    def idle(r: Row) -> None:
        r["power.draw"], r["utilization.gpu"], r["utilization.memory"] = "61.20", "0", "0"
        r["clocks.sm"], r["clocks_throttle_reasons.active"] = "180", "0x0000000000000001"
        r["pcie.link.gen.current"] = "1"
    add("idle-links-gen1", "healthy", "idle downtrained link read as a fault",
        "demo nvidia-smi CSV, GPUs 0-3", "util 0 %, 61 W, SM 180 MHz, reason gpu_idle, link gen 1 (max 5) x16",
        gpus=csv(edit(demo_rows({0, 1, 2, 3}), idle)))

    def idle_narrow(r: Row) -> None:
        idle(r)
        r["pcie.link.width.current"] = "8" if r["index"] in ("4", "5") else r["pcie.link.width.max"]
    add("idle-links-narrow", "healthy", "idle downtrained link read as a fault",
        "demo nvidia-smi CSV, GPUs 4-7", "util 0 %, 61 W, SM 180 MHz, gpu_idle, link gen1; GPUs 4 and 5 at x8 of x16",
        gpus=csv(edit(demo_rows({4, 5, 6, 7}), idle_narrow)))

    def loaded_gpu6_narrow(r: Row) -> None:
        r["power.draw"], r["utilization.gpu"] = "548.00", "96"
        r["pcie.link.width.current"] = "8" if r["index"] == "6" else r["pcie.link.width.max"]
    add("pcie-gpu6-x8-loaded", "pcie_downgrade", "control: a narrow link under load is a fault",
        "demo nvidia-smi CSV, GPUs 4-7", "548 W, util 96 %; GPU 6 at x8 of x16, the others at x16",
        quotes=("GPU 6",), gpus=csv(edit(demo_rows({4, 5, 6, 7}), loaded_gpu6_narrow)))

    def mixed_idle_loaded(r: Row) -> None:
        # GPU 2 idles at gen1 (trained down) while GPUs 0, 1, 3 work at gen5 x16
        if r["index"] == "2":
            idle(r)
        else:
            r["power.draw"], r["utilization.gpu"] = "552.00", "97"
            r["pcie.link.width.current"] = r["pcie.link.width.max"]
    add("idle-one-gpu-beside-loaded", "healthy", "idle downtrained link read as a fault",
        "demo nvidia-smi CSV, GPUs 0-3", "GPUs 0, 1, 3: 552 W, 97 %, full links; GPU 2: idle (0 %, 61 W, gen1)",
        gpus=csv(edit(demo_rows({0, 1, 2, 3}), mixed_idle_loaded)))

    # ---- throttle without the reason column
    no_reason = FIELDS[:-1]

    def hot(r: Row) -> None:
        r["power.draw"], r["enforced.power.limit"], r["utilization.gpu"] = "512.00", "700.00", "99"
        r["temperature.gpu"], r["clocks.sm"], r["clocks.max.sm"] = "88", "1350", "1980"
        r["pcie.link.width.current"] = r["pcie.link.width.max"]
    add("throttle-thermal-no-reasons", "throttle", "throttle seen only through the reason column",
        "demo nvidia-smi CSV, GPU 3 (fields without clocks_throttle_reasons.active)",
        "88 C, SM 1350 of 1980 MHz, 512 W of 700 W, util 99 %; the reason column left out",
        quotes=("88", "1350", "1980"), gpus=csv(edit(demo_rows({3}), hot), no_reason))

    def capped(r: Row) -> None:
        r["power.draw"], r["enforced.power.limit"], r["utilization.gpu"] = "449.60", "450.00", "100"
        r["temperature.gpu"], r["clocks.sm"], r["clocks.max.sm"] = "71", "1560", "1980"
        r["pcie.link.width.current"] = r["pcie.link.width.max"]
    add("throttle-power-held-no-reasons", "throttle", "throttle seen only through the reason column",
        "demo nvidia-smi CSV, GPUs 0-1 (no reason column; power.default_limit column added)",
        "enforced limit 450 W (default 700 W), draw 449.6 W, SM 1560 of 1980 MHz, 71 C, util 100 %",
        quotes=("450",), gpus=csv(edit(demo_rows({0, 1}), capped), no_reason, extra={"power.default_limit": "700.00"}))

    def cool_busy(r: Row) -> None:
        r["power.draw"], r["enforced.power.limit"], r["utilization.gpu"] = "455.00", "700.00", "98"
        r["temperature.gpu"], r["clocks.sm"], r["clocks.max.sm"] = "64", "1935", "1980"
        r["pcie.link.width.current"] = r["pcie.link.width.max"]
    add("busy-cool-no-reasons", "healthy", "throttle inferred from a high utilisation alone",
        "demo nvidia-smi CSV, GPUs 0-3 (no reason column)", "455 W of 700 W, 64 C, SM 1935 of 1980 MHz, util 98 %",
        gpus=csv(edit(demo_rows({0, 1, 2, 3}), cool_busy), no_reason))

    def idle_low_clock(r: Row) -> None:
        idle(r)
        r["pcie.link.gen.current"] = r["pcie.link.gen.max"]
        r["clocks_throttle_reasons.active"] = "0x0000000000000001"
        r["temperature.gpu"] = "34"
    add("idle-low-clocks", "healthy", "low clocks at idle read as throttling",
        "demo nvidia-smi CSV, GPUs 0-3", "util 0 %, 61 W, 34 C, SM 180 of 2617 MHz, reason gpu_idle only",
        gpus=csv(edit(demo_rows({0, 1, 2, 3}), idle_low_clock)))

    # ---- per-rank figures: queues and KV usage per DP rank
    lines034 = corpus("sglang-logs", "034.log").splitlines()
    ranks = {int(m.group(1)) for x in lines034 if (m := re.search(r"DP(\d+) ", x))}

    def dp_log(fn: Callable[[int, str], str], rounds: int = 3) -> str:
        out = []
        for k in range(rounds):
            for dp in range(8):
                base = lines034[k % len(lines034)]
                line = re.sub(r"DP\d+ TP\d+", f"DP{dp} TP{dp}", base)
                out.append(fn(dp, line))
        return "\n".join(out)
    busy_small = dp_log(lambda dp, x: re.sub(r"#queue-req: \d+", f"#queue-req: {1 + dp % 2}",
                                             x.replace("#running-req: 8,", "#running-req: 48,")))
    add("dp8-small-queues-log", "healthy", "healthy small queues read as a running-request cap",
        f"corpus sglang-logs/034.log (DP attention; ranks {sorted(ranks)} seen): its lines relabelled for DP0-7, 3 rounds",
        "#running-req 48 on every rank, #queue-req 1 or 2 (token usage as logged, 0.12-0.13)", log=busy_small)

    small_q = per_dp("num_queue_reqs", {"0": 1.0, "1": 2.0}) | per_dp("num_running_reqs", {"0": 96.0, "1": 101.0}) \
        | per_dp("token_usage", {"0": 0.31, "1": 0.33})
    small_q_b = per_dp("num_queue_reqs", {"0": 2.0, "1": 1.0}) | per_dp("num_running_reqs", {"0": 99.0, "1": 97.0}) \
        | per_dp("token_usage", {"0": 0.32, "1": 0.30})
    add("dp2-small-queues-metrics", "healthy", "healthy small queues read as a running-request cap",
        "tests/data/metrics/sglang-0.5-dp2-tp4-pid-a/b", "per rank: 96-101 running, 1-2 queued, token usage 0.30-0.33",
        metrics_a=metrics_page("sglang-0.5-dp2-tp4-pid-a.txt", small_q),
        metrics_b=metrics_page("sglang-0.5-dp2-tp4-pid-b.txt", small_q_b))

    hot_rank = per_dp("num_queue_reqs", {"0": 9.0, "1": 0.0}) | per_dp("num_running_reqs", {"0": 41.0, "1": 38.0}) \
        | per_dp("token_usage", {"0": 0.93, "1": 0.04})
    add("dp-rank0-kv-full-metrics", "kv_pressure", "per-rank figure averaged over ranks",
        "tests/data/metrics/sglang-0.4-dp2-a/b", "dp0: 41 running, 9 queued, token usage 0.93; dp1: 38 running, "
        "0 queued, 0.04 (the pool-weighted mean is under 0.5)",
        quotes=("0.93",), never=("running-request cap",),
        metrics_a=metrics_page("sglang-0.4-dp2-a.txt", hot_rank), metrics_b=metrics_page("sglang-0.4-dp2-b.txt", hot_rank))

    add("dp-rank0-kv-full-log", "kv_pressure", "per-rank figure averaged over ranks",
        "corpus sglang-logs/034.log relabelled for DP0-7, 3 rounds",
        "DP0: token usage 0.93, #queue-req 6; other ranks as logged (0.12-0.13, none queued)", quotes=("0.93",),
        log=dp_log(lambda dp, x: re.sub(r"#queue-req: \d+", "#queue-req: 6", re.sub(
            r"token usage: [\d.]+", "token usage: 0.93", x)) if dp == 0 else x))

    both_queue = per_dp("num_queue_reqs", {"0": 31.0, "1": 28.0}) | per_dp("num_running_reqs", {"0": 64.0, "1": 64.0}) \
        | per_dp("token_usage", {"0": 0.21, "1": 0.19})
    add("dp2-cap-binds-metrics", "queue_cap", "control: every rank queues with KV room",
        "tests/data/metrics/sglang-0.5-dp2-tp4-pid-a/b", "per rank: 64 running, 28-31 queued, token usage 0.19-0.21",
        metrics_a=metrics_page("sglang-0.5-dp2-tp4-pid-a.txt", both_queue),
        metrics_b=metrics_page("sglang-0.5-dp2-tp4-pid-b.txt", both_queue))

    # ---- a gauge where a counter was expected
    retract_gauge = family("num_retracted_reqs", "gauge", [(QWEN + ',dp_rank="0"', 11.0)])
    full = per_dp("token_usage", {"0": 0.95, "1": 0.95})
    add("retract-gauge-no-counter", "kv_pressure", "absent counter read as zero",
        "tests/data/metrics/sglang-0.4-dp2-a/b", "token_usage 0.95 on both ranks; a num_retracted_reqs gauge of 11 "
        "added (no num_retracted_requests_total counter); queues as captured (0)",
        quotes=("11",), never=("0 requests retracted",),
        metrics_a=metrics_page("sglang-0.4-dp2-a.txt", full, retract_gauge),
        metrics_b=metrics_page("sglang-0.4-dp2-b.txt", full, retract_gauge))
    no_wait = per_dp("token_usage", {"0": 0.92, "1": 0.92}) | per_dp("num_queue_reqs", {"0": 0.0, "1": 0.0})
    add("kv-full-no-wait", "healthy", "a full KV pool with nobody waiting read as pressure",
        "tests/data/metrics/sglang-0.4-dp2-a/b", "token_usage 0.92 on both ranks; num_queue_reqs 0 on both (dp1's "
        "captured 3 set to 0 after the first run showed the page queues: the truth was written for 'nobody "
        "waiting'); no retraction figure",
        metrics_a=metrics_page("sglang-0.4-dp2-a.txt", no_wait), metrics_b=metrics_page("sglang-0.4-dp2-b.txt", no_wait))

    # ---- power claims from loaded points
    sweep_ok = (bench("b1", "sweep c=1", 96.0, conc=1, power_share=0.2, sweep="s1")
                + bench("b2", "sweep c=8", 690.0, conc=8, power_share=0.38, sweep="s1")
                + bench("b3", "sweep c=32", 2250.0, conc=32, power_share=0.71, sweep="s1")
                + bench("b4", "sweep c=64", 3610.0, conc=64, power_share=0.86, sweep="s1"))
    add("power-loaded-points-high", "healthy", "power claim from low-concurrency points",
        "the example session's launch profiles", "one sweep of l1: c=1 0.20, c=8 0.38, c=32 0.71, c=64 0.86 of the "
        "power limit, throughput rising", session=session_with(sweep_ok, SWEEP))
    sweep_low = (bench("b1", "single stream", 41.0, conc=1, power_share=0.2, sweep="s1")
                 + bench("b2", "c=512", 3600.0, conc=512, power_share=0.54, sweep="s1")
                 + bench("b3", "c=1024", 3740.0, conc=1024, power_share=0.55, sweep="s1"))
    add("power-claim-from-loaded-run", "power_starved", "headline figure from the single-stream run",
        "the example session's launch profiles", "l1: c=1 at 0.20, c=512 at 0.54 and c=1024 at 0.55 of the power "
        "limit (3,600 -> 3,740 tok/s)", quotes=("55%",), never=("20%",), session=session_with(sweep_low, SWEEP))
    add("power-single-stream-only", "healthy", "power claim from low-concurrency points",
        "the example session's launch profiles", "one run: c=1, 41 tok/s at 0.18 of the power limit",
        session=session_with(bench("b1", "single stream", 41.0, conc=1, power_share=0.18)))

    # ---- TP groups on non-first GPUs (L40S topology: GPUs 0-3 on socket 0, 4-7 on socket 1)
    l40s = corpus("nvidia-smi", "001.txt")
    add("tp2-base-gpu-3-spans-sockets", "numa_split", "TP group taken as the first N GPUs",
        "corpus nvidia-smi/001.txt (8x L40S, NODE/SYS) + the demo's server_args line",
        "server_args tp_size=8 -> 2 and base_gpu_id=3 added: the group is GPUs 3 and 4 (SYS)", quotes=("3,4",),
        topo=l40s, log=ARGS_LINE.replace("tp_size=8", "tp_size=2, base_gpu_id=3"))
    cvd = ('[[launch]]\nid = "l1"\nname = "tp4 on the second half"\ncommand = "python -m sglang.launch_server '
           '--model-path Qwen/Qwen3-32B --tp 4"\nstatus = "working"\n\n[launch.env]\nCUDA_VISIBLE_DEVICES = "2,3,4,5"\n\n')
    add("tp4-visible-2345-spans-sockets", "numa_split", "TP group taken as the first N GPUs",
        "corpus nvidia-smi/001.txt (8x L40S) + the example session", "its launch replaced by one working profile: "
        "--tp 4 with CUDA_VISIBLE_DEVICES=2,3,4,5; its benchmarks dropped",
        quotes=("2-5",), topo=l40s, session=session_with("", launch=cvd))
    cvd_ok = cvd.replace('"2,3,4,5"', '"4,5,6,7"').replace("tp4 on the second half", "tp4 on socket 1")
    add("tp4-visible-4567-one-socket", "healthy", "TP group taken as the first N GPUs",
        "corpus nvidia-smi/001.txt (8x L40S) + the example session", "one working profile: --tp 4 with "
        "CUDA_VISIBLE_DEVICES=4,5,6,7 (all NODE, one socket); its benchmarks dropped",
        topo=l40s, session=session_with("", launch=cvd_ok))

    # ---- search trials are not regressions of each other
    trials = "".join(bench(f"b{i}", f"trial {i} c=64", tok, profile=f"l{i}", when=f"2026-03-0{i}T10:00:00Z",
                           sweep="s1") for i, tok in ((1, 3100.0), (2, 1850.0), (3, 2900.0)))
    launch3 = "".join(f'[[launch]]\nid = "l{i}"\nname = "trial {i}"\ncommand = "python -m sglang.launch_server '
                      f'--model-path Qwen/Qwen3-32B --tp 8 --chunked-prefill-size {s}"\nstatus = "candidate"\n\n'
                      for i, s in ((1, 4096), (2, 1024), (3, 8192)))
    search = ('[[sweeps]]\nid = "s1"\nname = "c64"\nconcurrencies = [64]\n\n[[searches]]\nid = "q1"\nname = "prefill"\n'
              'profile = "l1"\nsweep = "s1"\n[searches.space]\n"--chunked-prefill-size" = [1024, 4096, 8192]\n'
              + "".join(f'[[searches.trial]]\nnumber = {i - 1}\nprofile = "l{i}"\nstatus = "ok"\nbenchmarks = ["b{i}"]\n'
                        f'[searches.trial.params]\n"--chunked-prefill-size" = {s}\n'
                        for i, s in ((1, 4096), (2, 1024), (3, 8192))) + "\n")
    add("search-trials-not-regressions", "healthy", "search trials read as regressions of each other",
        "the example session", "its launch replaced by three trial profiles of one search (chunked prefill 4096, "
        "1024, 8192), one c=64 run each: 3,100, 1,850, 2,900 tok/s",
        session=session_with(trials, search, launch=launch3))
    # ---- like with like: another dataset is another workload
    other = (bench("b1", "c=64 random", 3100.0, when="2026-03-01T10:00:00Z", dataset="random")
             + bench("b2", "c=64 sharegpt", 1900.0, when="2026-03-01T12:00:00Z", dataset="sharegpt"))
    add("regression-other-dataset", "healthy", "runs of different workloads compared",
        "the example session's launch profiles", "two c=64 runs of l1, random (3,100) then sharegpt (1,900 tok/s)",
        session=session_with(other))
    same = (bench("b1", "c=64", 3100.0, when="2026-03-01T10:00:00Z", dataset="random")
            + bench("b2", "c=64 after edit", 2150.0, when="2026-03-01T12:00:00Z", dataset="random"))
    add("regression-same-workload", "regression", "control: like with like",
        "the example session's launch profiles", "two c=64 random runs of l1: 3,100 then 2,150 tok/s",
        quotes=("3,100", "2,150"), session=session_with(same))

    # ---- two causes at once
    def two(r: Row) -> None:
        r["power.draw"], r["utilization.gpu"] = "560.00", "97"
        r["pcie.link.width.current"] = r["pcie.link.width.max"] if r["index"] != "5" else "8"
        if r["index"] == "2":
            r["temperature.gpu"], r["clocks.sm"], r["clocks_throttle_reasons.active"] = "92", "1650", "0x0000000000000040"
    add("two-causes-throttle-and-pcie", "throttle", "two causes at once", "demo nvidia-smi CSV, GPUs 0-7",
        "560 W, 97 %; GPU 2 at 92 C, 1650 of 2617 MHz, hw_thermal_slowdown; GPU 5 at x8 of x16 (as captured)",
        also=("pcie_downgrade",), gpus=csv(edit(demo_rows(set(range(8)), 20), two)))
    add("two-causes-spec-and-eplb", "spec_low_accept", "two causes at once",
        "tests/data/metrics/sglang-0.5-dp2-tp4-pid-a", "spec_accept_length 1.08 / 1.12 and an eplb_balancedness "
        "summary (mean 0.52) added", also=("eplb_imbalance",),
        metrics_a=metrics_page("sglang-0.5-dp2-tp4-pid-a.txt", extra=family("spec_accept_length", "gauge", [
            (QWEN + ',dp_rank="0"', 1.08), (QWEN + ',dp_rank="1"', 1.12)])
            + "# HELP sglang:eplb_balancedness b\n# TYPE sglang:eplb_balancedness summary\n"
            f'sglang:eplb_balancedness_count{{{QWEN},dp_rank="0",forward_mode="decode"}} 1000\n'
            f'sglang:eplb_balancedness_sum{{{QWEN},dp_rank="0",forward_mode="decode"}} 520\n'))

    # ---- a known cause vs the symptom it explains
    seed = SESSION.read_text().replace('notes = "Down from 1,867 tok/s;',
                                       'power_share = 0.21\nnotes = "Down from 1,867 tok/s;')
    add("known-cause-above-symptom", "regression", "a symptom ranked above the cause that explains it",
        "the example session", "b2 (the allreduce fusion run) gets power_share 0.21 (~125 W of 600 W, as its notes say)",
        also=("power_starved",), session=seed)

    # ---- an idle table paste
    add("idle-a100-pcie-table", "healthy", "an idle GPU read as starved",
        "corpus nvidia-smi/018.txt (2x A100 PCIe, 0 % util, 66-72 W of 300 W)", "nothing: copied",
        gpus=corpus("nvidia-smi", "018.txt"))

    # ---- speculative decoding judged per rank (each DP rank drafts for its own requests)
    def low_dp3(dp: int, x: str) -> str:
        return re.sub(r"accept len: [\d.]+", "accept len: 1.20", x) if dp == 3 else x
    add("spec-log-one-rank-low", "spec_low_accept", "per-rank figure averaged over ranks (one rank low, mean fine)",
        f"corpus sglang-logs/034.log (EAGLE, DP attention; ranks {sorted(ranks)} seen): relabelled for DP0-7, 3 rounds",
        "DP3's accept len set to 1.20 (the others as logged, 2.86-2.94: the mean over ranks is 2.7)",
        quotes=("dp3", "1.20"), never=("dp0:", "dp5:", "2.7"), log=dp_log(low_dp3))
    for name, (low, high), said in (
            ("spec-metrics-one-rank-low", (1.22, 2.58), "one rank low, mean fine"),
            ("spec-metrics-mean-low-one-rank-fine", (1.14, 1.72), "mean low, one rank fine")):
        mean = f"{(low + high) / 2:.2f}"
        add(name, "spec_low_accept", f"per-rank figure averaged over ranks ({said})",
            "tests/data/metrics/sglang-0.5-dp2-tp4-pid-a", f"spec_accept_length dp0 {low}, dp1 {high} added "
            f"(the mean over ranks is {mean})", quotes=("dp0", str(low)), never=(mean, "dp1"),
            metrics_a=metrics_page("sglang-0.5-dp2-tp4-pid-a.txt", extra=family("spec_accept_length", "gauge", [
                (QWEN + ',dp_rank="0"', low), (QWEN + ',dp_rank="1"', high)])))

    # ---- like with like (issue 37): a regression is against the run's own profile
    other_profile = (bench("b1", "c=64", 3100.0, when="2026-03-01T10:00:00Z", dataset="random")
                     + bench("b2", "c=64 again", 3050.0, when="2026-03-01T12:00:00Z", dataset="random")
                     + bench("b3", "c=64 trtllm", 2400.0, profile="l2", when="2026-03-02T09:00:00Z", dataset="random")
                     + bench("b4", "c=64 cutlass again", 3080.0, when="2026-03-02T11:00:00Z", dataset="random"))
    add("new-profile-slower-than-old-best", "healthy", "another profile's best read as a regression",
        "the example session's launch profiles (l1 flashinfer_cutlass, l2 flashinfer_trtllm)",
        "four c=64 random runs: l1 3,100 and 3,050, then l2 2,400 (its first), then l1 3,080",
        session=session_with(other_profile))
    patched = (bench("b1", "c=64", 3100.0, when="2026-03-01T10:00:00Z", dataset="random")
               + bench("b2", "c=64 again", 3100.0, when="2026-03-01T12:00:00Z", dataset="random")
               + bench("b3", "c=64 after the fusion patch", 2325.0, when="2026-03-02T09:00:00Z", dataset="random"))
    add("same-profile-drop-after-patch", "regression", "control: like with like, a cause with its change",
        "the example session (its patched allreduce fusion kernel f1, cited by discovery d2)",
        "three c=64 random runs of l1: 3,100, 3,100, then 2,325 tok/s (25 % lower); d2 cites b3 (was b2)",
        quotes=("3,100", "2,325", "flashinfer allreduce fusion kernel"),
        session=session_with(patched).replace('id = "d2"\n', 'id = "d2"\nbenchmarks = ["b3"]\n', 1))


NAMES = {"log": "server.log", "gpus": "gpus.txt", "topo": "topo.txt", "metrics_a": "metrics-a.txt",
         "metrics_b": "metrics-b.txt", "session": "session.toml"}


def write() -> None:
    for old in HERE.iterdir():
        if old.is_dir():
            shutil.rmtree(old)
    for i, sc in enumerate(SCENARIOS, start=1):
        folder = HERE / f"h{i:02d}-{sc['name']}"
        folder.mkdir()
        files = sc["files"]
        assert isinstance(files, dict)
        for key, text in files.items():
            (folder / NAMES[key]).write_text(text if text.endswith("\n") else text + "\n")
        meta = {k: sc[k] for k in ("expect", "also", "trap", "source", "changed", "quotes", "never")}
        (folder / "scenario.toml").write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in meta.items()))


if __name__ == "__main__":
    build()
    write()
    print(f"{len(SCENARIOS)} scenarios, {sum(s['expect'] == 'healthy' for s in SCENARIOS)} healthy")
