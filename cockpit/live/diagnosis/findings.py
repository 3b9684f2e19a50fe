"""A finding: one evidence-backed hypothesis a rule proposes (never a confirmed fact).

Plain data, JSON-ready. `key` names the situation (the rule, the host and GPUs, the launch
profile, the state seen), not the exact figures nor the runs that show it, so a finding
dismissed once is recognised on the next reading of the same situation, whatever new
benchmarks arrive, and not proposed again; a new situation (another GPU, another profile,
a different link width, a regression of another run) has another key.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

KINDS: tuple[str, ...] = (
    "cuda_graph_ceiling", "kv_pressure", "queue_cap", "power_starved", "throttle", "pcie_downgrade",
    "numa_split", "comm_bound", "dp_imbalance", "regression", "spec_low_accept", "eplb_imbalance",
)


@dataclass(frozen=True, slots=True)
class Evidence:
    """One reading behind a finding: the figures in words, and where they come from."""

    text: str
    source: str
    """gpus, log, metrics, topology, benchmarks or session."""
    time_range: tuple[str, str] | None = None
    benchmarks: tuple[str, ...] = ()
    log_lines: tuple[int, ...] = ()
    """1-based line numbers in the log read (the first and last of a run of lines)."""
    gpus: tuple[int, ...] = ()

    def describe(self) -> str:
        parts = [self.text]
        if self.time_range is not None:
            start, end = self.time_range
            parts.append(f"[{start}]" if start == end else f"[{start} .. {end}]")
        if self.log_lines:
            lines = self.log_lines
            parts.append(f"(log line {lines[0]})" if len(lines) == 1 else f"(log lines {lines[0]}-{lines[-1]})")
        if self.benchmarks:
            parts.append("(" + ", ".join(self.benchmarks) + ")")
        return " ".join(parts)

    def to_dict(self) -> dict[str, object]:
        return {"text": self.text, "source": self.source,
                "time_range": list(self.time_range) if self.time_range else None,
                "benchmarks": list(self.benchmarks), "log_lines": list(self.log_lines), "gpus": list(self.gpus)}


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str
    claim: str
    evidence: tuple[Evidence, ...]
    confidence: float
    """0..1: how sure the rule is (how far past its thresholds the figures are)."""
    next_experiment: str
    key: str
    flags: dict[str, str] = field(default_factory=dict)
    """A candidate profile's flag changes (`--cuda-graph-max-bs` -> `512`); empty: none."""
    search_space: dict[str, list[str]] = field(default_factory=dict)
    """Values worth sweeping per flag, where one change is not enough."""

    @property
    def benchmarks(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(b for e in self.evidence for b in e.benchmarks))

    def evidence_text(self) -> str:
        """The evidence as a discovery's evidence field: one reading a line, then the next step."""
        lines = [f"- {e.describe()}" for e in self.evidence]
        lines.append(f"Proposed by cockpit's diagnosis ({self.kind}, confidence {self.confidence:.0%}, "
                     f"key {self.key}). Next: {self.next_experiment}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "claim": self.claim, "confidence": round(self.confidence, 2),
                "key": self.key, "evidence": [e.to_dict() for e in self.evidence],
                "next_experiment": self.next_experiment, "flags": dict(self.flags),
                "search_space": {k: list(v) for k, v in self.search_space.items()}}


# `f"{x:.0%}"` of inf is "inf%", of nan "nan%": a figure no rule may state.
_NON_FINITE = re.compile(r"(?<![\w.])[-+]?(?:inf|nan)(?![\w])", re.IGNORECASE)


def states_non_finite(finding: Finding) -> bool:
    """Whether the finding would say inf or nan anywhere (its confidence, its words, a flag)."""
    if not math.isfinite(finding.confidence):
        return True
    texts = [finding.claim, finding.next_experiment, finding.key, *(e.text for e in finding.evidence),
             *finding.flags.values(), *(v for values in finding.search_space.values() for v in values)]
    return any(_NON_FINITE.search(text) for text in texts)


def clamp(value: float, low: float = 0.05, high: float = 0.95) -> float:
    """A confidence: never 0 (then there would be no finding) and never certain."""
    return max(low, min(high, value))
