"""`cockpit diff SESSION A B [--json]`: what changes from launch profile A to B."""

from __future__ import annotations

import argparse
import json
import sys

from cockpit.ground.sanitize import sanitize


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("diff", help="what differs between two launch profiles (options, env, host)",
                       description="Compare launch profile B against A: options added, removed or "
                                   "changed (in any order), env, host and program, with each "
                                   "profile's best recorded total tok/s.")
    p.add_argument("session")
    p.add_argument("base", metavar="A", help="launch profile id or name (the base)")
    p.add_argument("other", metavar="B", help="launch profile id or name")
    p.add_argument("--json", action="store_true", help="print the diff as JSON")
    p.set_defaults(func=cmd_diff)


def cmd_diff(args: argparse.Namespace) -> int:
    from cockpit.model.bench.profile_diff import diff_lines, diff_profiles
    from cockpit.model.edit.lookup import by_id_or_name, known_records
    from cockpit.store.cli_load import load_or_report

    session = load_or_report(args.session)
    if session is None:
        return 1
    profiles = []
    for key in (args.base, args.other):
        found = by_id_or_name(session.launch, key)
        if len(found) != 1:
            known = known_records(session.launch)
            what = "no" if not found else "more than one"
            print(sanitize(f"cockpit diff: {what} launch profile {key!r} in {args.session}; profiles: {known}"),
                  file=sys.stderr)
            return 2
        profiles.append(found[0])
    diff = diff_profiles(*profiles)
    best = {p.id: session.best_total_tok_s(p.id) for p in profiles}
    if args.json:
        print(json.dumps({**diff.to_dict(), "best_total_tok_s": best}, indent=2))
        return 0
    base, other = profiles
    print(sanitize(f"{base.id} {base.name} -> {other.id} {other.name}"))
    print("best total tok/s: " + " vs ".join(
        f"{best[p.id]:,.1f} ({p.id})" if best[p.id] is not None else f"none recorded ({p.id})" for p in profiles))
    for kind, text in diff_lines(diff):
        print(sanitize(text if kind == "heading" else f"  {text}"))
    return 0
