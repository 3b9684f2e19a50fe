"""The campaign on one time axis, and what changed just before throughput dropped.

The timeline merges the session's journal (every edit, as `SessionEditor` records it) with
the benchmarks at the time they ran. A drop is a benchmark whose throughput is more than
`threshold` below the best earlier run of the same workload (concurrency, input and
output length, dataset), a search's trials apart; what changed before it is every journal entry since the previous run of
that workload, and the launch profile diff when the two runs used different profiles.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from cockpit.model.bench.profile_diff import diff_lines, diff_profiles
from cockpit.model.session import Benchmark, JournalEvent, Session

DROP_THRESHOLD = 0.05


@dataclass(frozen=True, slots=True)
class Entry:
    when: datetime
    kind: str
    text: str
    ref: str | None = None


@dataclass(frozen=True, slots=True)
class Drop:
    bench: Benchmark
    best: Benchmark
    previous: Benchmark
    fraction: float
    """How far below the best: 0.12 is 12 % lower."""
    changes: tuple[Entry, ...]
    profile_changes: tuple[str, ...]
    """The launch profile diff (previous -> this run's), as lines; empty if the same profile."""

    def to_dict(self) -> dict[str, object]:
        return {"bench": self.bench.id, "best": self.best.id, "previous": self.previous.id,
                "drop_pct": round(self.fraction * 100, 1),
                "changes": [{"when": e.when.isoformat(), "kind": e.kind, "text": e.text} for e in self.changes],
                "profile_changes": list(self.profile_changes)}


def throughput(b: Benchmark) -> float | None:
    return b.total_tok_s if b.total_tok_s is not None else b.output_tok_s


def bench_text(b: Benchmark) -> str:
    value = throughput(b)
    unit = "total tok/s" if b.total_tok_s is not None else "output tok/s"
    figure = f"{value:,.1f} {unit}" if value is not None else "no throughput"
    where = ", ".join(x for x in (f"c={b.concurrency}" if b.concurrency else "",
                                  f"profile {b.profile}" if b.profile else "") if x)
    return f"{b.id} {b.label}: {figure}" + (f" ({where})" if where else "")


def _bench_times(session: Session) -> dict[str, datetime]:
    """When each benchmark ran: its own `when`, else when it was recorded (the journal)."""
    added = {e.ref: e.when for e in session.journal if e.kind == "benchmark.added" and e.ref}
    return {b.id: b.when or added[b.id] for b in session.benchmarks if b.when or b.id in added}


def _recorded(e: JournalEvent, session: Session, times: dict[str, datetime]) -> bool:
    """Is this journal entry the recording of a benchmark the timeline shows itself?"""
    if e.kind != "benchmark.added":
        return False
    if e.ref is not None:
        return e.ref in times
    # older journals have no ref: the editor's text names the label
    return any(e.text == f"benchmark added: {b.label}" for b in session.benchmarks if b.id in times)


def timeline(session: Session) -> list[Entry]:
    """Oldest first. A recorded benchmark appears once, at the time it ran."""
    times = _bench_times(session)
    entries = [Entry(e.when, e.kind, e.text, e.ref) for e in session.journal if not _recorded(e, session, times)]
    entries += [Entry(times[b.id], "benchmark", bench_text(b), b.id) for b in session.benchmarks if b.id in times]
    return sorted(entries, key=lambda e: e.when)


def drops(session: Session, threshold: float = DROP_THRESHOLD) -> list[Drop]:
    times = _bench_times(session)
    entries = timeline(session)
    profiles = {p.id: p for p in session.launch}
    # a search's trials explore configurations on purpose: one trial lower than another is the
    # search's answer, not a regression, so trials are neither compared nor compared against
    trials = {ref for search in session.searches for trial in search.trial for ref in trial.benchmarks}
    # each workload's runs (concurrency, lengths, dataset) in time order, with their throughput
    # (runs without one cannot drop)
    runs: dict[tuple[int | None, int | None, int | None, str | None], list[tuple[Benchmark, float]]] = {}
    for b in sorted((b for b in session.benchmarks if b.id in times and b.id not in trials), key=lambda b: times[b.id]):
        value = throughput(b)
        if value is not None:
            runs.setdefault((b.concurrency, b.input_len, b.output_len, b.dataset), []).append((b, value))
    out: list[Drop] = []
    for group in runs.values():
        for i, (bench, value) in enumerate(group[1:], start=1):
            best, best_value = max(group[:i], key=lambda run: run[1])
            fraction = 1 - value / best_value if best_value else 0.0
            if fraction <= threshold:
                continue
            previous = group[i - 1][0]
            # other runs and records are not changes to what runs
            changes = tuple(e for e in entries if times[previous.id] < e.when <= times[bench.id]
                            and not e.kind.startswith("benchmark"))
            old, new = profiles.get(previous.profile or ""), profiles.get(bench.profile or "")
            lines: tuple[str, ...] = ()
            if old is not None and new is not None and old.id != new.id:
                lines = (f"launch {old.id} -> {new.id}",) + tuple(
                    text for kind, text in diff_lines(diff_profiles(old, new)) if kind not in ("heading", "note"))
            out.append(Drop(bench, best, previous, fraction, changes, lines))
    return sorted(out, key=lambda d: times[d.bench.id])
