"""`cockpit diagnose SESSION [--log FILE] [--metrics FILE ...] [--gpus CSV] [--topo FILE]
[--json] [--accept KEY | --dismiss KEY]`: the diagnosis over files that stand in for the
live hosts (what a colleague pasted), with the session's benchmarks and decisions."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("diagnose", help="evidence-backed hypotheses from a log, /metrics, nvidia-smi and topo files",
                       description="Reads the files given (they stand in for the live hosts) and the session's "
                                   "benchmarks, and prints findings, most confident first. Findings the session "
                                   "has accepted or dismissed are not shown again.")
    p.add_argument("session")
    p.add_argument("--log", type=Path, help="an SGLang server log")
    p.add_argument("--metrics", type=Path, nargs="+", default=[], help="/metrics pages, oldest first")
    p.add_argument("--gpus", type=Path, help="nvidia-smi --query-gpu CSV (cockpit's fields) or the nvidia-smi table")
    p.add_argument("--topo", type=Path, help="nvidia-smi topo -m output")
    p.add_argument("--json", action="store_true", help="print the findings as JSON")
    p.add_argument("--accept", metavar="KEY", help="accept the finding with this key as a discovery (hypothesis)")
    p.add_argument("--dismiss", metavar="KEY", help="dismiss the finding with this key (not proposed again)")
    p.set_defaults(func=cmd_diagnose)


def cmd_diagnose(args: argparse.Namespace) -> int:
    from cockpit.ground.sanitize import sanitize
    from cockpit.live.diagnosis.engine import decided_keys, diagnose
    from cockpit.live.diagnosis.load import InputFileError, inputs_from_files
    from cockpit.store.cli_load import load_or_report

    session = load_or_report(args.session)
    if session is None:
        return 1
    try:
        inputs = inputs_from_files(session, log=args.log, metrics=args.metrics, gpus=args.gpus, topo=args.topo)
    except (InputFileError, OSError) as exc:
        print(sanitize(str(exc)))
        return 1
    found = diagnose(inputs, decided=decided_keys(inputs))
    key = args.accept or args.dismiss
    if key:
        return _decide(args, found, key)
    if args.json:
        print(json.dumps({"findings": [f.to_dict() for f in found],
                          "decided": [d.model_dump(mode="json") for d in session.findings]}, indent=2))
        return 0
    if not found:
        print("no findings: nothing in these inputs crosses a rule's threshold")
        return 0
    for f in found:
        print(sanitize(f"{f.kind:<18} {f.confidence:.0%}  {f.claim}"))
        for e in f.evidence:
            print(sanitize(f"    · {e.describe()}"))
        print(sanitize(f"    next: {f.next_experiment}"))
        if f.flags:
            print(sanitize("    candidate flags: " + " ".join(f"{k} {v}".strip() for k, v in f.flags.items())))
        print(sanitize(f"    key: {f.key}"))
    return 0


def _decide(args: argparse.Namespace, found: list, key: str) -> int:
    from cockpit.control.diagnosis import accept_in_file, dismiss_in_file
    from cockpit.ground.sanitize import sanitize
    from cockpit.model.edit.edits import PERSON, EditError
    from cockpit.model.finding_decisions import DecisionError

    finding = next((f for f in found if f.key == key), None)
    if finding is None:
        print(sanitize(f"no open finding with key {key} in these inputs (cockpit diagnose ... lists them)"))
        return 1
    try:
        if args.accept:
            ident = accept_in_file(args.session, finding, PERSON)
            print(sanitize(f"accepted as discovery {ident} (hypothesis): {finding.claim}"))
        else:
            dismiss_in_file(args.session, finding, PERSON)
            print(sanitize(f"dismissed: {finding.claim}"))
    except (DecisionError, EditError, OSError) as exc:
        print(sanitize(str(exc)))
        return 1
    return 0
