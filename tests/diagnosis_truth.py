"""Is every figure a finding quotes true to its inputs? (issue 37: "no figure the inputs do
not contain or imply")

A figure in a claim or an evidence text passes when it is a number of the scenario's input
files, a per-GPU mean / min / max of a CSV column (all samples, or the loaded ones), a
count the inputs hold (lines, samples, batches, GPUs), or, for a percentage, a share the
inputs hold (0.55 -> 55 %, a throttle reason's share of samples) or a share or a drop
between two figures the finding itself quotes (`x / y`, `1 - x / y`), or the median of a
profile's first runs of one workload (what a drop compares with). Labels (b2, GPU5, gen5, x16, TP8,
dp0) are names, not figures, and are skipped. A scenario's `quotes` / `never` add what the
figures must say there (`11` retracted, never `0 requests retracted`).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from pathlib import Path
from statistics import fmean

from cockpit.live.diagnosis.findings import Finding
from cockpit.live.diagnosis.load import gpus_from_text

# a number not glued to a word on its left (b2, TP8, gen5, x16, dp0 are names)
_FIGURE = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)(?![\w])(\s?%)?")
_RAW = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?")
BUSY = 20.0
PAIRS = {n * (n - 1) / 2 for n in range(2, 17)}  # the GPU pairs of a group of n


def figures_in(text: str) -> list[tuple[float, bool, str]]:
    """(value, is a percentage, as written) for every figure in `text`."""
    out = []
    for m in _FIGURE.finditer(text):
        raw = m.group(1).rstrip(",")
        if raw.count(",") and not re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", raw):
            continue  # "1,2" is a list of GPUs, not a number
        out.append((float(raw.replace(",", "")), bool(m.group(2)), m.group(0).strip()))
    return out


def _gpu_figures(text: str) -> set[float]:
    samples = gpus_from_text(text)
    by_gpu: dict[object, list[object]] = {}
    for s in samples:
        by_gpu.setdefault(s.key, []).append(s)
    out: set[float] = {float(len(samples)), float(len(by_gpu))}
    for rows in by_gpu.values():
        out.add(float(len(rows)))
        busy = [r for r in rows if (getattr(r, "util_gpu_pct", None) or 0) >= BUSY]
        out.add(float(len(busy)))
        for reason in {x for r in rows for x in getattr(r, "throttle_reasons", ())}:
            for group in (rows, busy):
                if group:  # the share of samples a throttle reason was set in
                    out.add(sum(reason in getattr(r, "throttle_reasons", ()) for r in group) / len(group))
        for attr in ("power_w", "power_limit_w", "util_gpu_pct", "temp_c", "sm_clock_mhz", "sm_clock_max_mhz"):
            for group in (rows, busy):
                values = [float(v) for r in group if (v := getattr(r, attr)) is not None]
                if values:
                    out |= {fmean(values), min(values), max(values)}
    return out


def sources(folder: Path) -> tuple[set[float], int]:
    """Every figure the scenario's inputs hold or imply, and their largest count (lines)."""
    values: set[float] = set()
    most = 0
    for path in folder.iterdir():
        if path.name == "scenario.toml" or not path.is_file():
            continue
        text = path.read_text()
        most = max(most, len(text.splitlines()))
        values |= {float(x) for x in _RAW.findall(text.replace(",", "")) if len(x) < 24}
        values |= {float(x) for x in _RAW.findall(text)}
        if path.name == "gpus.txt":
            values |= _gpu_figures(text)
        if path.name.startswith("metrics-"):
            values |= _metric_deltas(folder)
        if path.name == "session.toml":
            values |= _point_medians(path)
    return values, most


def _point_medians(path: Path) -> set[float]:
    """The medians a drop compares with (issue 35: a profile's earlier runs of one workload,
    never its best run): of every first k runs of each (profile, workload), in time order."""
    from statistics import median

    from cockpit.store.toml_store import load_session

    groups: dict[tuple[object, ...], list[tuple[str, float]]] = {}
    for b in load_session(path).benchmarks:
        value = b.total_tok_s if b.total_tok_s is not None else b.output_tok_s
        if value is not None:
            key = (b.profile, b.concurrency, b.input_len, b.output_len, b.dataset)
            groups.setdefault(key, []).append((b.when.isoformat() if b.when else "", value))
    out: set[float] = set()
    for runs in groups.values():
        ordered = [v for _, v in sorted(runs, key=lambda r: r[0])]
        out |= {median(ordered[:k]) for k in range(2, len(ordered) + 1)}
    return out


def _metric_deltas(folder: Path) -> set[float]:
    from cockpit.control.diagnosis import inputs_from_folder

    scrapes = inputs_from_folder(folder).metrics
    out: set[float] = set()
    for s in scrapes:
        out |= set(s.gauges.values()) | set(s.counters.values())
        for per in (*s.gauges_by_dp.values(), *s.counters_by_dp.values(), *s.by_label.values()):
            out |= set(per.values())
    if len(scrapes) > 1:
        first, last = scrapes[0], scrapes[-1]
        out |= {v - first.counters.get(k, 0.0) for k, v in last.counters.items()}
        for name, per in last.by_label.items():
            start = first.by_label.get(name, {})
            deltas = {k: v - start.get(k, 0.0) for k, v in per.items()}
            out |= set(deltas.values()) | {sum(deltas.values())}
    return out


def _close(value: float, pool: Iterable[float], written: str) -> bool:
    decimals = len(written.split(".")[1]) if "." in written else 0
    tol = 0.5 * 10 ** -decimals + 1e-9
    return any(abs(value - p) <= tol for p in pool)


def _share_of(pct: float, pool: Iterable[float], quoted: list[float]) -> bool:
    """A share the inputs hold (0.55 -> 55%), or one between two figures the finding quotes."""
    want = pct / 100
    tol = 0.005 + 1e-9
    if any(abs(want - p) <= tol for p in pool if p <= 1.5):
        return True
    nums = [p for p in quoted if p > 0]
    for x in nums:
        for y in nums:
            r = x / y
            if abs(want - r) <= tol or abs(want - (1 - r)) <= tol or abs(want - x / (x + y)) <= tol:
                return True
    return False


def untrue_figures(finding: Finding, folder: Path) -> list[str]:
    """The figures of `finding` that its inputs neither hold nor imply."""
    pool, most = sources(folder)
    texts = (finding.claim, *(e.text for e in finding.evidence))
    quoted = [v for text in texts for v, pct, _ in figures_in(text) if not pct]
    bad = []
    for text in texts:
        for value, pct, written in figures_in(text):
            if pct:  # a share, or a figure read in percent (utilisation)
                if not (_share_of(value, pool, quoted) or _close(value, pool, written.rstrip("% "))):
                    bad.append(f"{written} in {text!r}")
            elif not (_close(value, pool, written) or (value == int(value) and (value <= most or value in PAIRS))):
                bad.append(f"{written} in {text!r}")
    return bad


def quote_problems(findings: list[Finding], folder: Path) -> list[str]:
    """The scenario's `quotes` missing from its expected findings, its `never` present in any."""
    meta = tomllib.loads((folder / "scenario.toml").read_text())
    kinds = {meta["expect"], *meta.get("also", [])}
    said = " ".join(f.claim + " " + " ".join(e.text for e in f.evidence) for f in findings if f.kind in kinds)
    every = " ".join(f.claim + " " + " ".join(e.text for e in f.evidence) for f in findings)
    out = [f"missing {q!r}" for q in meta.get("quotes", []) if findings and q not in said]
    out += [f"says {n!r}" for n in meta.get("never", []) if n in every]
    return out
