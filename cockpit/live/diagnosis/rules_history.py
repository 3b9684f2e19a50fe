"""regression: a run well below the earlier runs of its own profile and workload, with what
changed before it (the timeline's edits, package drift, patched files its discoveries cite).

Like with like (issue 37): a run on another profile than the workload's best is a different
configuration, not a regression (the timeline's ▼ still shows it), and a search's trials are
never compared (the timeline's drops leave them out)."""

from __future__ import annotations

import re

from cockpit.live.diagnosis.findings import Evidence, Finding, clamp
from cockpit.live.diagnosis.inputs import DiagnosisInputs
from cockpit.live.diagnosis.rules_gpu import bench_power_share
from cockpit.model.session import Benchmark, Session
from cockpit.model.timeline import drops, throughput, throughput_unit

DROP = 0.2  # 20 % below the best: beyond run-to-run noise
_DOWN_FROM = re.compile(r"down from ~?([\d,]+(?:\.\d+)?)", re.I)
_POWER_TO = re.compile(r"power dropped to ~?(\d+(?:\.\d+)?) ?W", re.I)


def _changes_for(session: Session, bench: Benchmark) -> list[Evidence]:
    out = []
    cited = [d for d in session.discoveries if bench.id in d.benchmarks]
    files = {f.id: f for f in session.files}
    for d in cited:
        for fid in d.files:
            f = files.get(fid)
            if f is not None and f.state.value in ("applied", "problematic"):
                out.append(Evidence(f"patched before it: {f.path} ({f.state.value}): {f.change or ''}".rstrip(": "),
                                    "session", benchmarks=(bench.id,)))
    return out


def regression(inputs: DiagnosisInputs) -> list[Finding]:
    session = inputs.session
    if session is None:
        return []
    out: list[Finding] = []
    seen: set[str] = set()
    drift = [r for r in inputs.drift if r.status == "changed"]
    for drop in drops(session, DROP, same_profile=True):
        b = drop.bench
        seen.add(b.id)
        unit = throughput_unit(b)
        said = (f"{throughput(b):,.0f} {unit}" if drop.runs == 1
                else f"{drop.value:,.0f} {unit} (median of {drop.runs} repeats)")
        best = (f"{drop.best.id} ({drop.best_value:,.0f})" if drop.best_runs == 1
                else f"the median of {drop.best_runs} earlier runs ({drop.best_value:,.0f}, {drop.best.id})")
        where = f"profile {b.profile} and workload" if b.profile else "workload (no profile)"
        evidence = [Evidence(f"{b.id}: {said}, {drop.fraction:.0%} below {best} of the same {where}",
                             "benchmarks", benchmarks=(b.id, drop.best.id))]
        evidence += [Evidence(f"changed since {drop.previous.id}: {c.text}", "session", benchmarks=(b.id,))
                     for c in drop.changes[:6]]
        evidence += _changes_for(session, b)
        evidence += [Evidence(f"package drift: {r.package.name} {r.package.version} -> {r.now}", "session") for r in drift[:4]]
        out.append(_finding(b, drop.fraction, evidence, f"the run before it ({drop.previous.id})"))
    for b in session.benchmarks:
        if b.id in seen or not b.notes or (m := _DOWN_FROM.search(b.notes)) is None:
            continue
        value = throughput(b)
        before = float(m.group(1).replace(",", ""))
        if value is None or before <= 0 or 1 - value / before <= DROP:
            continue
        fraction = 1 - value / before
        evidence = [Evidence(f"{b.id} {b.label}: {value:,.0f} {throughput_unit(b)}, down from {before:,.0f} ({fraction:.0%} "
                             "lower, as its notes record)", "benchmarks", benchmarks=(b.id,))]
        if (p := _POWER_TO.search(b.notes)) is not None:
            evidence.append(Evidence(f"power fell to ~{float(p.group(1)):.0f} W per GPU during it", "benchmarks",
                                     benchmarks=(b.id,)))
        elif (share := bench_power_share(b)) is not None:
            evidence.append(Evidence(f"power during it: {share[1]}", "benchmarks", benchmarks=(b.id,)))
        evidence += _changes_for(session, b)
        evidence += [Evidence(f"package drift: {r.package.name} {r.package.version} -> {r.now}", "session") for r in drift[:4]]
        out.append(_finding(b, fraction, evidence, "the configuration before the change"))
    return out


def _finding(b: Benchmark, fraction: float, evidence: list[Evidence], baseline: str) -> Finding:
    cause = next((e.text.split(": ", 1)[1] for e in evidence if e.text.startswith("patched before it")), None)
    claim = f"{b.id} ({b.label}) is a regression: {fraction:.0%} below the best run"
    if cause:
        claim += f", after {cause.split(' (')[0]}"
    return Finding("regression", claim, tuple(evidence), clamp(0.5 + fraction * 0.5),
                   f"re-run {baseline} unchanged to confirm the drop, then undo the changes listed one at a time",
                   f"regression:{b.id}")
