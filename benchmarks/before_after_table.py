"""The before / after table of the benchmarks (benchmarks/README.md), from before_after.py's runs.

    .venv/bin/python benchmarks/before_after_table.py [--parse-log benchmarks/out/parse_log.json]

Reads benchmarks/out/before_after/runs.jsonl and the JSON each run wrote (raw/SIDE/NAME.rN/),
picks each benchmark's headline figures (FIGURES), takes the median over rounds, and
writes benchmarks/out/before_after.md and before_after.json: benchmark, figure, before,
after, ratio (after / before), goal, and beside them each side's load average and the
CPU time of the whole benchmark run. `--parse-log`: a bench_parse_log.py run made with
`--before DIR` (both checkouts timed in the same rounds) gives the parse-log rows.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "out"
RUNS = OUT / "before_after"
# checkouts of runs recorded before the driver wrote commits: what they held
AFTER_LABELS = {"/work/wt/speed-after": "4bba56d (main, the move)", "/work/wt/speed": "h-speed"}

# bench -> (its JSON file, [(figure, path, goal)]); a path is keys joined by "/", a list
# element picked by "key=value" (its first match), or "median_s(scenarios)" style helpers.
FIGURES: dict[str, tuple[str, list[tuple[str, str, str]]]] = {
    "store": ("store.json", [
        ("save 5,000 items, ms", "median_ms/cockpit save (dump + atomic write)", ""),
        ("  ratio to bare tomli_w.dumps (same run)", "save_ratio", "<= 1.5x"),
        ("load 5,000 items, ms", "median_ms/cockpit load (read + migrate + validate)", ""),
        ("  ratio to bare tomllib.loads + validate (same run)", "load_ratio", "<= 2x"),
    ]),
    "bombs": ("bombs.json", [
        ("refuse 100k nested arrays, ms", "median_ms/refuse: 100k nested arrays", ""),
        ("refuse a 50 MB file, ms", "median_ms/refuse: 50 MB file", ""),
        ("5,000-item session, whole load, ms", "median_ms/5,000-item session: whole load", ""),
    ]),
    "mcp": ("mcp.json", [
        ("start-up (example session), s", "example session/start_s", ""),
        ("a tool call (5,000 items), ms", "5,000 items/tool_call_ms", ""),
        ("handoff read (5,000 items), ms", "5,000 items/handoff_read_ms", ""),
    ]),
    "metrics_parse": ("metrics_parse.json", [
        ("next scrape parsed (ExpositionCache), ms", "step=ExpositionCache.parse, next scrape (goal < 5)/median_ms", "< 5 ms"),
        ("cached parse + map + fold, ms", "step=cached parse + scrape + fold (next scrape)/median_ms", ""),
        ("old path (prometheus-client), ms", "step=parse_exposition (prometheus-client, old path)/median_ms", ""),
    ]),
    "sanitize": ("sanitize.json", [
        ("a clean line, ns", "median/now/clean line (ns)", ""),
        ("a dirty line (ESC), ns", "median/now/dirty line (ESC) (ns)", ""),
        ("LogBuffer.add_events, lines/s", "median/now/LogBuffer.add_events (lines/s)", ""),
    ]),
    "chart": ("chart.json", [
        ("chart on screen, ms wall", "median_ms/chart: on screen/wall", "< 50 ms"),
        ("chart on screen, ms CPU", "median_ms/chart: on screen/cpu", "< 50 ms"),
        ("the plain table on screen, ms wall", "median_ms/table: on screen/wall", ""),
    ]),
    "log_view_keys": ("log_view_keys.json", [
        ("match count from nothing (50k lines), ms", "count_full_ms", ""),
        ("after 1,000 new lines, ms", "count_after_1000_lines_ms", ""),
        ("one 160x50 frame, wrapped, ms", "frame_wrapped_ms", ""),
    ]),
    "log_rows_peaks": ("log_rows_peaks.json", [
        ("log rows of 200k lines, s", "rows_s", ""),
        ("peaks' share of parse + rows", "peaks_share_of_parse_and_rows", ""),
    ]),
    "mcp_live": ("mcp_live.json", [
        ("last line readable after the first read, s", "first_read_to_last_line_s", ""),
        ("a later live/log read, ms", "log_read_ms", ""),
    ]),
    "diagnose": ("diagnose.json", [
        ("top-1 accuracy", "accuracy", ">= 0.8"),
        ("slowest scenario, s", "slowest_s", "< 1 s"),
        ("median scenario, s", "median_s(scenarios)", ""),
    ]),
    "demo": ("demo.json", [
        ("`cockpit --demo` first frame (tmux), s", "first_frame_s", "< 1 s"),
        ("python -c 'import textual.app', s", "python_import_textual_s", ""),
    ]),
    "idle_cpu": ("idle_cpu.json", [
        ("8 GPUs at 1 Hz + quiet log, % of a core", "gpus8_1hz_quiet_log_pct_of_core", "< 1.2 %"),
        ("app with no feeds, % of a core", "no_feeds_pct_of_core", ""),
    ]),
    "big_session": ("big_session.json", [
        ("5,000 tasks: first frame, s", "rows/step=1st frame/big_s", "< 1 s (quiet)"),
        ("example (13 tasks): first frame, s", "rows/step=1st frame/example_s", ""),
        ("5,000 tasks: every task shown, s", "rows/step=all shown/big_s", ""),
        ("5,000 tasks: one edit, s", "rows/step=edit/big_s", "< 1 s"),
        ("5,000 tasks: quit with save, s", "rows/step=quit/big_s", "< 1 s"),
    ]),
    "gpu": ("gpu.json", [
        ("nvidia-smi CSV line parse, us per GPU sample", "parse/parse_query_line_us_per_gpu_sample", ""),
        ("stream parser, us per GPU sample", "parse/stream_parser_us_per_gpu_sample", ""),
        ("1 Hz sampler (8 GPUs), % of a core", "sampler_1hz/cpu_pct_of_one_core", ""),
    ]),
    "fleet": ("fleet.json", [
        ("Fleet tab, 8 hosts x 8 GPUs at 1 Hz, % of a core", "fleet_1hz_pct_of_core", "< 2 %"),
        ("app with no feeds, % of a core", "baseline_pct_of_core", ""),
    ]),
    "tail": ("tail.json", [
        ("cockpit tail over loopback SSH, MB/s", "results/case=cockpit tail/mb_per_s", ""),
        ("  vs ssh cat (same run)", "results/case=cockpit tail/vs_ssh", ">= 0.5x"),
        ("ssh cat, MB/s", "results/case=ssh cat/mb_per_s", ""),
    ]),
    "sweep_overhead": ("sweep_overhead.json", [
        ("overhead per sweep point (local), s", "local/summary/median_overhead_s", "< 1 s"),
        ("the same over loopback SSH, s", "ssh/summary/median_overhead_s", "< 1 s"),
    ]),
    "search": ("search.json", [
        ("launches to within 3 % of the best (median of seeds)", "median/search", "<= 12"),
        ("cockpit's own time per real trial, s", "overhead/median_s", "< 2 s"),
    ]),
    "four_writers": ("four_writers.json", [
        ("records lost (round 1)", "rounds/0/lost", "0"),
        ("records lost (round 2)", "rounds/1/lost", "0"),
    ]),
    "log_pane": ("log_pane.json", [
        ("`cockpit log FILE` (1M lines): last line on screen, s", "open_log_s", "<= 0.5x toolong"),
        ("the whole cockpit on that log, s", "open_session_s", ""),
        ("whole-file figures on screen, s", "open_metrics_s", "< 2 s"),
        ("key -> screen at 20k lines/s, p99 ms (`cockpit log`)", "key_latency/p99_ms", "< 50 ms"),
        ("the same in the whole cockpit, p99 ms", "key_latency_whole_app/p99_ms", "< 50 ms"),
    ]),
}


def pick(data: Any, path: str) -> float | None:
    if path.startswith("median_s(") and path.endswith(")"):
        items = data.get(path[len("median_s("):-1], []) if isinstance(data, dict) else []
        values = [x["median_s"] for x in items if isinstance(x, dict) and "median_s" in x]
        return statistics.median(values) if values else None
    for part in path.split("/"):
        if isinstance(data, list) and part.isdigit():
            data = data[int(part)] if int(part) < len(data) else None
        elif isinstance(data, list):
            key, _, want = part.partition("=")
            data = next((x for x in data if isinstance(x, dict) and str(x.get(key)) == want), None)
        elif isinstance(data, dict):
            data = data.get(part)
        else:
            return None
        if data is None:
            return None
    return float(data) if isinstance(data, (int, float)) and not isinstance(data, bool) else None


def leaves(data: Any, prefix: str = "") -> list[tuple[str, float]]:
    """Every numeric leaf (for benchmarks with no FIGURES yet), lists of dicts by index."""
    out: list[tuple[str, float]] = []
    if isinstance(data, dict):
        for k, v in data.items():
            out += leaves(v, f"{prefix}/{k}" if prefix else str(k))
    elif isinstance(data, list) and len(data) <= 12:
        for i, v in enumerate(data):
            out += leaves(v, f"{prefix}/{i}")
    elif isinstance(data, (int, float)) and not isinstance(data, bool):
        out.append((prefix, float(data)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parse-log", type=Path, default=None)
    ap.add_argument("--since", default=None,
                    help="only runs of before_after.py invocations stamped this or later (e.g. 20261204T000000)")
    args = ap.parse_args()
    runs = [json.loads(line) for line in (RUNS / "runs.jsonl").read_text().splitlines() if line.strip()]
    if args.since:  # one quiet session's runs, not older ones made under other load
        runs = [r for r in runs if (r.get("raw") or "").rsplit(".", 1)[-1] >= args.since]
    rows: list[dict[str, Any]] = []
    for bench, (filename, figures) in FIGURES.items():
        mine = [r for r in runs if r["bench"] == bench and (r["rc"] == 0 or r["json"])]  # rc 1: a goal not met
        # the latest "after" checkout only (a later run on the branch replaces one on main)
        afters = [r for r in mine if r["side"] == "after"]
        if afters:
            latest = afters[-1]["checkout"]
            mine = [r for r in mine if r["side"] == "before" or r["checkout"] == latest]
        if not mine:
            continue
        after_label = next((r.get("commit") or AFTER_LABELS.get(r["checkout"], r["checkout"])
                            for r in mine if r["side"] == "after"), "")
        sides: dict[str, list[Any]] = {"before": [], "after": []}
        meta: dict[str, dict[str, list[float]]] = {s: {"load": [], "cpu": [], "wall": []} for s in sides}
        # runs recorded before the driver stamped its invocations share raw folders per round:
        # the folder holds the latest of them, so only that one is counted
        latest_of = {}
        for r in mine:
            latest_of[r.get("raw") or f"{r['side']}/{bench}.r{r['round']}"] = r
        mine = [r for r in mine if latest_of[r.get("raw") or f"{r['side']}/{bench}.r{r['round']}"] is r]
        for r in mine:
            raw = RUNS / (r.get("raw") or f"raw/{r['side']}/{bench}.r{r['round']}") / filename
            if raw.exists():
                sides[r["side"]].append(json.loads(raw.read_text()))
            meta[r["side"]]["load"] += r["load_1m"]
            meta[r["side"]]["cpu"].append(r["cpu_s"])
            meta[r["side"]]["wall"].append(r["wall_s"])
        if not sides["before"] or not sides["after"]:
            continue
        chosen = figures or [(path, path, "") for path, _ in leaves(sides["after"][0])][:8]
        for label, path, goal in chosen:
            values = {s: [v for d in docs if (v := pick(d, path)) is not None] for s, docs in sides.items()}
            if not values["before"] or not values["after"]:
                continue
            before, after = statistics.median(values["before"]), statistics.median(values["after"])
            rows.append({"benchmark": f"bench_{bench}.py", "figure": label, "before": before, "after": after,
                         "after_is": after_label,
                         "ratio": after / before if before else None, "goal": goal,
                         "load_1m_before": round(statistics.median(meta["before"]["load"]), 1),
                         "load_1m_after": round(statistics.median(meta["after"]["load"]), 1),
                         "run_cpu_s_before": round(statistics.median(meta["before"]["cpu"]), 1),
                         "run_cpu_s_after": round(statistics.median(meta["after"]["cpu"]), 1),
                         "rounds": len(values["after"])})
    if args.parse_log is not None and args.parse_log.exists():
        doc = json.loads(args.parse_log.read_text())
        for mix, r in doc["mixes"].items():
            if "before_parse_log_s" not in r:
                continue
            for label, b, a, goal in (
                    (f"{mix}: parse-log, s", r["before_parse_log_s"], r["cockpit_parse_log_s"], ""),
                    (f"{mix}: x grep -c (same run)", r["ratio_before_to_grep"], r["ratio_cockpit_to_grep"], "<= 5x")):
                rows.append({"benchmark": "bench_parse_log.py", "figure": label, "before": b, "after": a,
                             "after_is": "h-speed",
                             "ratio": a / b if b else None, "goal": goal,
                             "load_1m_before": doc["load_average_1m"][0], "load_1m_after": doc["load_average_1m"][1],
                             "run_cpu_s_before": r["cpu_s"].get("parse_log_before"),
                             "run_cpu_s_after": r["cpu_s"].get("parse_log"), "rounds": r["runs"]})
    pinned = {side: [json.loads(f.read_text()) for f in sorted(OUT.glob(f"big_session_pinned_{side}_r*.json"))]
              for side in ("before", "after")}
    if pinned["before"] and pinned["after"]:  # bench_big_session.py --pin 0,1 --json ..., both sides by one script
        for label, step, key, goal in (("5,000 tasks: first frame, CPU s", "  its CPU", "big_s", "< 1 s"),
                                       ("5,000 tasks: first frame, wall s", "1st frame", "big_s", "< 1 s (quiet)"),
                                       ("example: first frame, CPU s", "  its CPU", "example_s", ""),
                                       ("5,000 tasks: every task shown, CPU s", None, "big_s", "")):
            def value(doc: dict, step: str | None = step, key: str = key) -> float:
                cpu_rows = [r for r in doc["rows"] if r["step"] == "  its CPU"]
                if step is None:  # the second "its CPU" row: every task shown
                    return float(cpu_rows[1][key])
                return float(next(r for r in doc["rows"] if r["step"] == step)[key])
            b = statistics.median(value(d) for d in pinned["before"])
            a = statistics.median(value(d) for d in pinned["after"])
            loads = {side: [x for d in docs for x in d.get("load_average_1m", [])] for side, docs in pinned.items()}
            rows.append({"benchmark": "bench_big_session.py --pin 0,1", "figure": label, "before": b, "after": a,
                         "after_is": "h-speed", "ratio": a / b if b else None, "goal": goal,
                         "load_1m_before": round(statistics.median(loads["before"]), 1) if loads["before"] else None,
                         "load_1m_after": round(statistics.median(loads["after"]), 1) if loads["after"] else None,
                         "run_cpu_s_before": None, "run_cpu_s_after": None, "rounds": len(pinned["after"])})
    (OUT / "before_after.json").write_text(json.dumps(rows, indent=2) + "\n")
    lines = ["| benchmark | figure | before (2e51703) | after | after is | ratio | goal | load 1m before / after "
             "| CPU s of the run before / after |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        ratio = f"{r['ratio']:.2f}x" if r["ratio"] is not None else ""
        lines.append(f"| {r['benchmark']} | {r['figure']} | {r['before']:.4g} | {r['after']:.4g} | {r['after_is']} "
                     f"| {ratio} | {r['goal']} "
                     f"| {r['load_1m_before']} / {r['load_1m_after']} | {r['run_cpu_s_before']} / {r['run_cpu_s_after']} |")
    (OUT / "before_after.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
