"""Run every rule over one DiagnosisInputs: findings, most confident first, less the ones
a person already dismissed or accepted (by evidence key)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from cockpit.live.diagnosis.findings import KINDS, Finding, states_non_finite
from cockpit.live.diagnosis.inputs import DiagnosisInputs
from cockpit.live.diagnosis.rules_gpu import pcie_downgrade, power_starved, throttle
from cockpit.live.diagnosis.rules_history import regression
from cockpit.live.diagnosis.rules_ranks import dp_imbalance, eplb_imbalance, spec_low_accept
from cockpit.live.diagnosis.rules_serving import cuda_graph_ceiling, kv_pressure, queue_cap
from cockpit.live.diagnosis.rules_topology import comm_bound, numa_split

Rule = Callable[[DiagnosisInputs], list[Finding]]

RULES: dict[str, Rule] = {
    "cuda_graph_ceiling": cuda_graph_ceiling, "kv_pressure": kv_pressure, "queue_cap": queue_cap,
    "power_starved": power_starved, "throttle": throttle, "pcie_downgrade": pcie_downgrade,
    "numa_split": numa_split, "comm_bound": comm_bound, "dp_imbalance": dp_imbalance,
    "regression": regression, "spec_low_accept": spec_low_accept, "eplb_imbalance": eplb_imbalance,
}
assert tuple(RULES) == KINDS


def diagnose(inputs: DiagnosisInputs, *, decided: Iterable[str] = ()) -> list[Finding]:
    """Every rule's findings, most confident first; `decided`: evidence keys a person has
    accepted or dismissed (the session's `findings`), which are not proposed again."""
    skip = set(decided)
    found = [f for rule in RULES.values() for f in _proposals(rule, inputs) if f.key not in skip]
    order = {kind: i for i, kind in enumerate(KINDS)}
    rank = _explained(found)
    return sorted(found, key=lambda f: (-rank.get(f.key, f.confidence), order[f.kind], f.key))


SYMPTOMS = ("power_starved", "comm_bound", "throttle")
"""Kinds that describe what the GPUs do, which a specific cause (a regression after a change)
can explain."""


def _explained(found: list[Finding]) -> dict[str, float]:
    """Sort confidences: a symptom that cites a run a regression with its change (a patched
    file, an edit, a launch diff) also cites ranks just under that regression, since the
    change explains it."""
    causes = [f for f in found if f.kind == "regression" and any(e.source == "session" for e in f.evidence)]
    out: dict[str, float] = {}
    for f in found:
        if f.kind not in SYMPTOMS:
            continue
        above = [c.confidence for c in causes if set(c.benchmarks) & set(f.benchmarks)]
        if above and f.confidence >= min(above):
            out[f.key] = min(above) - 0.01
    return out


def _proposals(rule: Rule, inputs: DiagnosisInputs) -> list[Finding]:
    """A rule's findings, less any that would state inf or nan. The parsers keep such values
    out (parse/gpu, parse/metrics); this is the net under them: a figure that overflows in a
    rule (a share of a near-zero limit) drops that rule's finding, never every finding."""
    try:
        found = rule(inputs)
    except (ArithmeticError, ValueError):
        return []
    return [f for f in found if not states_non_finite(f)]


def decided_keys(inputs: DiagnosisInputs) -> set[str]:
    session = inputs.session
    return {d.key for d in session.findings} if session is not None else set()
