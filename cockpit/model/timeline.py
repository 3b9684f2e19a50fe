"""The campaign on one time axis, and what changed just before throughput dropped.

The timeline merges the session's journal (every edit, as `SessionEditor` records it) with
the benchmarks at the time they ran. A drop is a benchmark whose throughput is more than
`threshold` below the best earlier point of the same workload (concurrency, input and
output length, dataset), a search's trials apart; what changed before it is every journal entry since the previous run of
that workload, and the launch profile diff when the two runs used different profiles.

Never a best-of-N (issue 35): the best earlier point is the profile whose earlier runs of the
workload have the highest median, never its luckiest run, and a sweep's repeats of one point
(one sweep run) are judged once, at their last, on their median: one noisy repeat is no drop.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import datetime

from cockpit.model.bench.profile_diff import diff_lines, diff_profiles
from cockpit.model.figures import number
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
    value: float = 0.0
    """The figure judged: the run's, or the median of its sweep run's repeats of the point."""
    runs: int = 1
    best_value: float = 0.0
    """The best earlier point: the median of its profile's earlier runs of the workload."""
    best_runs: int = 1

    def reference(self) -> str:
        """What it fell below: `b1`, or `l1's median of 3 runs (b1)` (b1: the median run)."""
        if self.best_runs == 1:
            return self.best.id
        return f"{self.best.profile or 'no profile'}'s median of {self.best_runs} runs ({self.best.id})"

    def to_dict(self) -> dict[str, object]:
        return {"bench": self.bench.id, "best": self.best.id, "previous": self.previous.id,
                "drop_pct": round(self.fraction * 100, 1), "value": self.value, "runs": self.runs,
                "best_median": self.best_value, "best_runs": self.best_runs,
                "changes": [{"when": e.when.isoformat(), "kind": e.kind, "text": e.text} for e in self.changes],
                "profile_changes": list(self.profile_changes)}


def throughput(b: Benchmark) -> float | None:
    return b.total_tok_s if b.total_tok_s is not None else b.output_tok_s


def throughput_unit(b: Benchmark) -> str:
    """What `throughput(b)` is: a run's total tok/s reads five times its output tok/s at 4:1
    input to output, so the figure never goes without saying which."""
    return "total tok/s" if b.total_tok_s is not None else "output tok/s"


def bench_text(b: Benchmark) -> str:
    value = throughput(b)
    unit = throughput_unit(b)
    figure = f"{number(value)} {unit}" if value is not None else "no throughput"
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


def drops(session: Session, threshold: float = DROP_THRESHOLD, *, same_profile: bool = False) -> list[Drop]:
    """The runs below the best earlier point of their workload; `same_profile`: like with like
    (issue 37), the best earlier point of the run's own profile only (the diagnosis' regressions),
    where the timeline's ▼ compares across profiles."""
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
        for i, (bench, _value) in enumerate(group[1:], start=1):
            mine = [(b, v) for b, v in group if _same_point(b, bench)]
            if mine[-1][0] is not bench:
                continue  # a repeat with more to come: the point is judged at its last repeat
            earlier = [(b, v) for b, v in group[:i] if not _same_point(b, bench)
                       and (not same_profile or b.profile == bench.profile)]
            if not earlier:
                continue
            judged = statistics.median(v for _, v in mine)
            best, best_value, best_runs = _best_point(earlier)
            fraction = 1 - judged / best_value if best_value else 0.0
            if fraction <= threshold:
                continue
            previous = earlier[-1][0]
            # other runs and records are not changes to what runs
            changes = tuple(e for e in entries if times[previous.id] < e.when <= times[bench.id]
                            and not e.kind.startswith("benchmark"))
            old, new = profiles.get(previous.profile or ""), profiles.get(bench.profile or "")
            lines: tuple[str, ...] = ()
            if old is not None and new is not None and old.id != new.id:
                lines = (f"launch {old.id} -> {new.id}",) + tuple(
                    text for kind, text in diff_lines(diff_profiles(old, new)) if kind not in ("heading", "note"))
            out.append(Drop(bench, best, previous, fraction, changes, lines, judged, len(mine), best_value, best_runs))
    return sorted(out, key=lambda d: times[d.bench.id])


def _same_point(a: Benchmark, b: Benchmark) -> bool:
    """Repeats of one point: the same sweep run and profile (a run outside a sweep is its own)."""
    return a is b or (a.sweep_run is not None and a.sweep_run == b.sweep_run and a.profile == b.profile)


def _best_point(earlier: list[tuple[Benchmark, float]]) -> tuple[Benchmark, float, int]:
    """The profile whose earlier runs have the highest median: its median run, the median, n."""
    by_profile: dict[str | None, list[tuple[Benchmark, float]]] = {}
    for b, v in earlier:
        by_profile.setdefault(b.profile, []).append((b, v))
    medians = [(statistics.median(v for _, v in rows), rows) for rows in by_profile.values()]
    median, rows = max(medians, key=lambda m: m[0])
    run = min(rows, key=lambda bv: (abs(bv[1] - median), -bv[1]))[0]
    return run, median, len(rows)
