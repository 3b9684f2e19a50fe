"""`cockpit timeline SESSION [--json]`: the campaign on one time axis (journal and
benchmarks), each throughput drop with what changed just before it."""

from __future__ import annotations

import argparse
import json

from cockpit.ground.sanitize import sanitize


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("timeline", help="the campaign's edits and benchmarks in time order, with throughput drops",
                       description="The journal and the benchmarks on one time axis (oldest first). A "
                                   "benchmark more than 5% below the best earlier point of the same workload (the "
                                   "profile whose earlier runs have the highest median; a sweep's repeats judged "
                                   "on their median) is marked, with the edits and launch profile changes since "
                                   "the previous run.")
    p.add_argument("session")
    p.add_argument("--json", action="store_true", help="print entries and drops as JSON")
    p.set_defaults(func=cmd_timeline)


def cmd_timeline(args: argparse.Namespace) -> int:
    from cockpit.model.timeline import drops, timeline
    from cockpit.store.cli_load import load_or_report

    session = load_or_report(args.session)
    if session is None:
        return 1
    entries, found = timeline(session), drops(session)
    if args.json:
        print(json.dumps({
            "entries": [{"when": e.when.isoformat(), "kind": e.kind, "text": e.text, "ref": e.ref} for e in entries],
            "drops": [d.to_dict() for d in found]}, indent=2))
        return 0
    if not entries:
        print("no dated entries: the journal is empty and no benchmark has a `when`")
        return 0
    by_bench = {d.bench.id: d for d in found}
    for e in entries:
        print(sanitize(f"{e.when:%Y-%m-%d %H:%M}  {e.kind:<18} {e.text}"))
        drop = by_bench.get(e.ref) if e.kind == "benchmark" and e.ref is not None else None
        if drop is not None:
            print(f"{'':18}  ▼ {drop.fraction:.1%} below {drop.reference()}; changed since {drop.previous.id}:")
            for line in [f"{c.kind}: {c.text}" for c in drop.changes] + list(drop.profile_changes) or ["(nothing recorded)"]:
                print(f"{'':22}{sanitize(line)}")
    return 0
