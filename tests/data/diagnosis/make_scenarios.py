"""Build the labelled diagnosis scenarios from real inputs: the public corpus (SGLang logs
and nvidia-smi pastes, tests/data/corpus), the demo's captures
(sessions/demo: real-format log, nvidia-smi CSV and topology) and the /metrics pages in
tests/data/metrics. Each scenario is a folder with `scenario.toml` (expect = a finding kind
or "healthy", what it was cut or combined from, and what was changed) and the input files.
Files are copied, cut (lines or GPUs kept) or combined; where a figure was edited to make
the case, `changed` says which. Run: .venv/bin/python tests/data/diagnosis/make_scenarios.py
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
CORPUS = REPO / "tests" / "data" / "corpus"
DEMO = REPO / "sessions" / "demo"
METRICS = REPO / "tests" / "data" / "metrics"
SESSION = REPO / "sessions" / "glm5-nvfp4.toml"

ARGS_LINE = (DEMO / "sglang-server.log").read_text().splitlines()[0]  # server_args: tp 8, graph bs 512


def corpus_log(name: str) -> list[str]:
    return (CORPUS / "sglang-logs" / name).read_text().splitlines()


def demo_log() -> list[str]:
    return (DEMO / "sglang-server.log").read_text().splitlines()


def demo_gpus(keep: set[int], rows: int = 400, edit=None) -> str:
    """The demo's nvidia-smi CSV cut to GPUs `keep`, the first `rows` lines of them; `edit`
    changes the cells of a row (the QUERY_FIELDS order)."""
    out = []
    for line in (DEMO / "nvidia-smi-query.csv").read_text().splitlines():
        cells = line.split(", ")
        if int(cells[1]) not in keep:
            continue
        if edit is not None:
            cells = edit(cells)
        out.append(", ".join(cells))
        if len(out) >= rows:
            break
    return "\n".join(out) + "\n"


def full_link(cells: list[str]) -> list[str]:
    cells[15] = cells[16]
    return cells


def metrics_page(base: str, edits: dict[str, str] | None = None, extra: str = "") -> str:
    text = (METRICS / base).read_text()
    for pattern, value in (edits or {}).items():
        text = re.sub(pattern, value, text, flags=re.M)
    return text + extra


def family(name: str, kind: str, rows: list[tuple[str, float]]) -> str:
    body = "".join(f"sglang:{name}{{{labels}}} {value}\n" for labels, value in rows)
    return f"# HELP sglang:{name} {name}\n# TYPE sglang:{name} {kind}\n" + body


MODEL = 'model_name="meta-llama/Llama-3.1-8B-Instruct",engine_type="unified",tp_rank="0",pp_rank="0"'


def session_with(benchmarks: str, extra: str = "") -> str:
    # the discoveries' links to the example's benchmarks go with them
    head = re.sub(r"\nbenchmarks = \[[^\]]*\]", "", SESSION.read_text().split("[[benchmarks]]")[0])
    tail = SESSION.read_text().split("[last_action]", 1)[1]
    return head + benchmarks + extra + "[last_action]" + tail


def bench(ident: str, label: str, tok: float, *, profile: str | None = "l1", conc: int | None = 64,
          when: str | None = None, notes: str | None = None, power_share: float | None = None) -> str:
    lines = [f'[[benchmarks]]\nid = "{ident}"\nlabel = "{label}"']
    if profile:
        lines.append(f'profile = "{profile}"')
    if conc:
        lines.append(f"concurrency = {conc}\ninput_len = 1024\noutput_len = 1024")
    lines.append(f"total_tok_s = {tok}")
    if when:
        lines.append(f"when = {when}")
    if power_share is not None:
        lines.append(f"power_share = {power_share}")
    if notes:
        lines.append(f'notes = "{notes}"')
    return "\n".join(lines) + "\n\n"


SCENARIOS: list[dict] = []


def add(name: str, expect: str, source: str, changed: str = "nothing: cut or combined only", why: str = "",
        **files: str) -> None:
    """`why`: the reason an expectation changed since the set was written (said, never silent)."""
    SCENARIOS.append({"name": name, "expect": expect, "source": source, "changed": changed, "why": why,
                      "files": files})


def build() -> None:
    demo = demo_log()
    # ---- cuda_graph_ceiling
    roomy = "token usage 0.99 set to 0.62 (the demo's KV is full there too: kept apart here)"
    add("graph-demo-1024-over-512", "cuda_graph_ceiling", "demo log: server_args + its decode lines", roomy,
        log="\n".join([ARGS_LINE] + [x.replace("token usage: 0.99", "token usage: 0.62")
                                     for x in demo if "Decode batch" in x][-30:]))
    add("graph-off-no-args", "cuda_graph_ceiling", "demo log: the last 20 decode lines, no server_args", roomy,
        log="\n".join([x.replace("token usage: 0.99", "token usage: 0.62") for x in demo if "Decode batch" in x][-20:]))
    add("graph-passes-metrics", "cuda_graph_ceiling", "tests/data/metrics/sglang-0.4-dp2-a/b + a cuda_graph_passes_total family",
        "added cuda_graph_passes_total{mode} (SGLang 0.5.x collector.py names) with 40 % decode_none",
        metrics_a=metrics_page("sglang-0.4-dp2-a.txt", extra=family("cuda_graph_passes_total", "counter", [
            (MODEL + ',dp_rank="0",mode="decode_cuda_graph"', 1000.0), (MODEL + ',dp_rank="0",mode="decode_none"', 200.0)])),
        metrics_b=metrics_page("sglang-0.4-dp2-b.txt", extra=family("cuda_graph_passes_total", "counter", [
            (MODEL + ',dp_rank="0",mode="decode_cuda_graph"', 1600.0), (MODEL + ',dp_rank="0",mode="decode_none"', 800.0)])))
    # ---- kv_pressure
    add("kv-corpus-055", "kv_pressure", "corpus sglang-logs/055.log (token usage 0.94, 5 queued)",
        log="\n".join(corpus_log("055.log")))
    add("kv-corpus-056", "kv_pressure", "corpus sglang-logs/056.log (usage 0.93, 12,279 queued)",
        log="\n".join(corpus_log("056.log")))
    retract = [i for i, x in enumerate(demo) if "Retract" in x or "out of memory happened" in x]
    add("kv-demo-retract", "kv_pressure", "demo log: the decode lines before its retraction and the retraction lines",
        log="\n".join(demo[retract[0] - 12: retract[-1] + 1]))
    add("kv-metrics-retracted", "kv_pressure", "tests/data/metrics/sglang-0.4-dp2-a/b",
        "token_usage set to 0.96; num_retracted_requests_total added (12 -> 40)",
        metrics_a=metrics_page("sglang-0.4-dp2-a.txt", {r"(sglang:token_usage\{[^}]*\}) [\d.]+": r"\1 0.96"},
                               family("num_retracted_requests_total", "counter", [(MODEL + ',dp_rank="0"', 12.0)])),
        metrics_b=metrics_page("sglang-0.4-dp2-b.txt", {r"(sglang:token_usage\{[^}]*\}) [\d.]+": r"\1 0.96"},
                               family("num_retracted_requests_total", "counter", [(MODEL + ',dp_rank="0"', 40.0)])))
    # ---- queue_cap
    add("queue-metrics-low-kv", "queue_cap", "tests/data/metrics/sglang-0.4-dp2-a/b",
        "num_queue_reqs set to 40 per DP rank, token_usage 0.2",
        metrics_a=metrics_page("sglang-0.4-dp2-a.txt", {r"(sglang:num_queue_reqs\{[^}]*\}) [\d.]+": r"\1 40.0",
                                                        r"(sglang:token_usage\{[^}]*\}) [\d.]+": r"\1 0.2"}),
        metrics_b=metrics_page("sglang-0.4-dp2-b.txt", {r"(sglang:num_queue_reqs\{[^}]*\}) [\d.]+": r"\1 44.0",
                                                        r"(sglang:token_usage\{[^}]*\}) [\d.]+": r"\1 0.2"}))
    add("queue-log-032", "queue_cap", "corpus sglang-logs/032.log", "#queue-req set to 30 (was 0)",
        log="\n".join(x.replace("#queue-req: 0", "#queue-req: 30") for x in corpus_log("032.log")))
    add("queue-log-043", "queue_cap", "corpus sglang-logs/043.log (decode lines)", "#queue-req set to 57 (was 0)",
        log="\n".join(x.replace("#queue-req: 0", "#queue-req: 57") for x in corpus_log("043.log") if "Decode" in x) * 1
        if sum("Decode" in x for x in corpus_log("043.log")) >= 3 else
        "\n".join(x.replace("#queue-req: 0", "#queue-req: 57") for x in corpus_log("023.log")))
    # ---- power_starved
    add("power-demo-gpus0-3", "power_starved", "demo nvidia-smi CSV, GPUs 0-3 (~330 W of 600 W at ~75 % util)",
        gpus=demo_gpus({0, 1, 2, 3}))
    add("power-demo-gpus0-4-6-7", "power_starved", "demo nvidia-smi CSV, GPUs 0, 4, 6, 7", gpus=demo_gpus({0, 4, 6, 7}))
    add("power-session-flat", "power_starved", "the example session's benchmarks",
        "runs at c=512 and c=1024 with power_share 0.52 added beside b1",
        session=session_with(bench("b1", "c=512", 3600.0, conc=512, power_share=0.52)
                             + bench("b2", "c=1024", 3740.0, conc=1024, power_share=0.55)))
    # ---- throttle
    def power_cap(cells: list[str]) -> list[str]:
        cells[4], cells[6], cells[11], cells[17] = "596.10", "99", "1905", "0x0000000000000004"
        return full_link(cells)

    def thermal(cells: list[str]) -> list[str]:
        cells[4], cells[6], cells[10], cells[11], cells[17] = "520.00", "98", "91", "1700", "0x0000000000000040"
        return full_link(cells)
    add("throttle-power-cap", "throttle", "demo nvidia-smi CSV, GPU 2",
        "power 596 W, util 99 %, SM clock 1905 MHz, reasons 0x4 (sw_power_cap)", gpus=demo_gpus({2}, 200, power_cap))
    add("throttle-thermal", "throttle", "demo nvidia-smi CSV, GPU 6",
        "power 520 W, 91 C, SM clock 1700 MHz, reasons 0x40 (hw_thermal_slowdown)", gpus=demo_gpus({6}, 200, thermal))
    # ---- pcie_downgrade
    def busy(cells: list[str]) -> list[str]:
        cells[4], cells[6] = "560.00", "97"
        return cells
    add("pcie-demo-gpu5", "pcie_downgrade", "demo nvidia-smi CSV, GPU 5 (gen5 x8 of x16)",
        "power 560 W, util 97 % (a GPU under load)", gpus=demo_gpus({5}, 200, busy))
    add("pcie-demo-gpus4-7", "pcie_downgrade", "demo nvidia-smi CSV, GPUs 4-7",
        "power 560 W, util 97 %; GPUs 4, 6, 7 at their full link", gpus=demo_gpus(
            {4, 5, 6, 7}, 400, lambda c: busy(c) if c[1] == "5" else full_link(busy(c))))

    def gen4(cells: list[str]) -> list[str]:
        cells = busy(full_link(cells))
        cells[13] = "4"
        return cells
    add("pcie-gen4-under-load", "pcie_downgrade", "demo nvidia-smi CSV, GPU 1",
        "link gen 4 (of 5) x16 under load (560 W, 97 %)", gpus=demo_gpus({1}, 200, gen4))
    # ---- numa_split (TP size from the demo's server_args line: tp_size 8)
    add("numa-l40s-001", "numa_split", "corpus nvidia-smi/001.txt (8x L40S NODE/SYS) + the demo's server_args line",
        topo=(CORPUS / "nvidia-smi" / "001.txt").read_text(), log=ARGS_LINE)
    add("numa-038", "numa_split", "corpus nvidia-smi/038.txt (8 PCIe GPUs, 4 NUMA nodes) + the demo's server_args line",
        topo=(CORPUS / "nvidia-smi" / "038.txt").read_text(), log=ARGS_LINE)
    # ---- comm_bound
    add("comm-demo", "comm_bound", "demo topology + demo nvidia-smi CSV GPUs 0-3 + server_args (tp 8)",
        topo=(DEMO / "nvidia-smi-topo.txt").read_text(), gpus=demo_gpus({0, 1, 2, 3}), log=ARGS_LINE)
    add("comm-a40-phb", "comm_bound", "corpus nvidia-smi/010.txt (8x A40 all PHB) + demo CSV GPUs 0-3 + server_args",
        topo=(CORPUS / "nvidia-smi" / "010.txt").read_text(), gpus=demo_gpus({0, 1, 2, 3}), log=ARGS_LINE)
    add("comm-seed-session", "comm_bound", "the example session (tp 8, b1 at ~330 W of 600 W) + demo topology",
        topo=(DEMO / "nvidia-smi-topo.txt").read_text(), session=session_with(
            bench("b1", "best config, 1024 concurrency", 3740.0, conc=1024, notes="GPUs at ~330 W of 600 W.")))
    # ---- dp_imbalance
    dp_edit = {r'(sglang:num_running_reqs\{[^}]*dp_rank="0"[^}]*\}) [\d.]+': r"\1 60.0",
               r'(sglang:num_queue_reqs\{[^}]*dp_rank="0"[^}]*\}) [\d.]+': r"\1 11.0",
               r'(sglang:num_running_reqs\{[^}]*dp_rank="1"[^}]*\}) [\d.]+': r"\1 0.0",
               r'(sglang:num_queue_reqs\{[^}]*dp_rank="1"[^}]*\}) [\d.]+': r"\1 0.0"}
    add("dp-metrics-0.4", "dp_imbalance", "tests/data/metrics/sglang-0.4-dp2-b", "dp0 60 running / 11 queued, dp1 idle",
        metrics_a=metrics_page("sglang-0.4-dp2-b.txt", dp_edit))
    add("dp-metrics-0.5-pid", "dp_imbalance", "tests/data/metrics/sglang-0.5-dp2-tp4-pid-b (per-rank, pid labels)",
        "dp0 60 running / 11 queued, dp1 idle", metrics_a=metrics_page("sglang-0.5-dp2-tp4-pid-b.txt", dp_edit))
    lines034 = corpus_log("034.log")
    add("dp-log-034", "dp_imbalance", "corpus sglang-logs/034.log (DP attention decode lines)",
        "DP0's last line: 8 running / 11 queued; the other ranks' #running-req set to 1",
        log="\n".join(x.replace("#queue-req: 0", "#queue-req: 11") if "DP0 " in x else
                      re.sub(r"#running-req: \d+", "#running-req: 1", x) for x in lines034))
    # ---- regression
    add("regression-seed-b2", "regression", "the example session (b2: 236 tok/s, down from 1,867, ~125 W)",
        session=SESSION.read_text().replace('notes = "GPUs at ~330 W of 600 W."', 'notes = "best run"'))
    add("regression-timeline", "healthy", "the example session's profiles",
        "three dated c=64 runs: 3,100 and 3,050 on l1, then 2,050 on l2",
        why="was regression; issue 37's like-with-like: b3 runs another profile (l2) than l1's b1/b2 and l2 never "
            "ran this workload before, so it is a slower configuration, not a regression (the timeline's ▼ still shows it)",
        session=session_with(bench("b1", "c=64", 3100.0, when="2026-03-01T10:00:00Z")
                             + bench("b2", "c=64 again", 3050.0, when="2026-03-01T12:00:00Z")
                             + bench("b3", "c=64 trtllm", 2050.0, profile="l2", when="2026-03-02T09:00:00Z")))
    add("regression-notes", "regression", "the example session's profiles",
        "one run whose notes say it is down from 5,100",
        session=session_with(bench("b1", "after the driver update", 3200.0, notes="down from 5,100 tok/s")))
    # ---- spec_low_accept
    lines058 = corpus_log("058.log")
    add("spec-log-058", "spec_low_accept", "corpus sglang-logs/058.log (EAGLE3 accept len / rate)",
        "accept len set to 1.1x and accept rate to 0.1x (low acceptance)",
        log="\n".join(re.sub(r"accept rate: [\d.]+", "accept rate: 0.05",
                             re.sub(r"accept len: [\d.]+", "accept len: 1.12", x)) for x in lines058))
    add("spec-metrics", "spec_low_accept", "tests/data/metrics/sglang-0.4-dp2-a", "spec_accept_length family added: 1.15",
        metrics_a=metrics_page("sglang-0.4-dp2-a.txt", extra=family("spec_accept_length", "gauge", [
            (MODEL + ',dp_rank="0"', 1.15), (MODEL + ',dp_rank="1"', 1.2)])))
    # ---- eplb_imbalance
    summary = lambda s, c: family("eplb_balancedness", "summary", [  # noqa: E731
        (MODEL + ',moe_ep_rank="0",dp_rank="0",forward_mode="decode"', 0)])[:0] + (
        "# HELP sglang:eplb_balancedness Balancedness of MoE in expert parallelism.\n"
        "# TYPE sglang:eplb_balancedness summary\n"
        f'sglang:eplb_balancedness_count{{{MODEL},dp_rank="0",forward_mode="decode"}} {c}\n'
        f'sglang:eplb_balancedness_sum{{{MODEL},dp_rank="0",forward_mode="decode"}} {s}\n')
    add("eplb-low", "eplb_imbalance", "tests/data/metrics/sglang-0.4-dp2-a", "eplb_balancedness summary added: mean 0.45",
        metrics_a=metrics_page("sglang-0.4-dp2-a.txt", extra=summary(450.0, 1000.0)))
    add("eplb-0.5", "eplb_imbalance", "tests/data/metrics/sglang-0.5-dp2-tp4-pid-a", "eplb_balancedness mean 0.58",
        metrics_a=metrics_page("sglang-0.5-dp2-tp4-pid-a.txt", extra=summary(580.0, 1000.0)))
    # ---- healthy
    add("healthy-032", "healthy", "corpus sglang-logs/032.log (steady decode, graphs on, no queue)",
        log="\n".join(corpus_log("032.log")))
    add("healthy-043", "healthy", "corpus sglang-logs/043.log", log="\n".join(corpus_log("043.log")))
    add("healthy-023", "healthy", "corpus sglang-logs/023.log (no cuda graph field)", log="\n".join(corpus_log("023.log")))
    add("healthy-034-dp", "healthy", "corpus sglang-logs/034.log (DP attention, accept len ~2.8)",
        log="\n".join(lines034))
    add("healthy-demo-metrics", "healthy", "demo /metrics pages a and b (dp0 12/0, dp1 13/3)",
        metrics_a=(DEMO / "sglang-metrics-a.txt").read_text(), metrics_b=(DEMO / "sglang-metrics-b.txt").read_text())
    add("healthy-a100-idle", "healthy", "corpus nvidia-smi/002.txt (2x A100 idle)",
        gpus=(CORPUS / "nvidia-smi" / "002.txt").read_text())
    add("healthy-h100-nvlink", "healthy", "corpus nvidia-smi/016.txt (4x H100 NV6) + a tp 4 server_args line",
        "the demo's server_args line with tp_size=4", topo=(CORPUS / "nvidia-smi" / "016.txt").read_text(),
        log=ARGS_LINE.replace("tp_size=8", "tp_size=4"))
    add("healthy-demo-busy", "healthy", "demo nvidia-smi CSV, GPUs 0-3", "power 560 W, util 97 %, full links",
        gpus=demo_gpus({0, 1, 2, 3}, 400, lambda c: full_link(busy(c))))


NAMES = {"log": "server.log", "gpus": "gpus.txt", "topo": "topo.txt", "metrics_a": "metrics-a.txt",
         "metrics_b": "metrics-b.txt", "session": "session.toml"}


def write() -> None:
    for old in HERE.iterdir():
        if old.is_dir():
            shutil.rmtree(old)
    for i, sc in enumerate(SCENARIOS, start=1):
        folder = HERE / f"{i:02d}-{sc['name']}"
        folder.mkdir()
        for key, text in sc["files"].items():
            (folder / NAMES[key]).write_text(text if text.endswith("\n") else text + "\n")
        esc = lambda s: s.replace("\\", "\\\\").replace('"', '\\"')  # noqa: E731
        (folder / "scenario.toml").write_text(
            f'expect = "{sc["expect"]}"\nsource = "{esc(sc["source"])}"\nchanged = "{esc(sc["changed"])}"\n'
            + (f'why = "{esc(sc["why"])}"\n' if sc["why"] else ""))


if __name__ == "__main__":
    build()
    write()
    print(f"{len(SCENARIOS)} scenarios, {sum(s['expect'] == 'healthy' for s in SCENARIOS)} healthy")
