"""`cockpit drift SESSION [--host HOST] [--python PY] [--json]`: the session's recorded
package, driver and CUDA versions against what the host runs now.

Exit status: 0 nothing drifted, 1 something changed or is missing, 2 a host could not be
checked (unreachable, no such python). Each package is checked on its recorded host (a
session host name: its `ssh`, or this machine when it has none); packages with no host
on `--host` (a session host name or an SSH target), else on this machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING

from cockpit.cli.watch.target_args import add_ssh_options
from cockpit.ground.sanitize import sanitize

if TYPE_CHECKING:
    from cockpit.model.edit.edits import SessionEditor
    from cockpit.model.session import Session


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("drift", help="recorded package/driver versions vs what the host runs now",
                       description="Compare the session's recorded package, driver and CUDA versions with "
                                   "what the host runs now (exit 1 if something drifted, 2 if a host "
                                   "could not be checked).")
    p.add_argument("session")
    p.add_argument("--host", help="where packages with no recorded host run: a session host or [user@]host")
    p.add_argument("--python", help="the server's interpreter on the host (default: the working launch "
                                    "profile's, else python3)")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.add_argument("--record", action="store_true",
                   help="then write the versions read now over the changed ones (journaled; exit 0)")
    add_ssh_options(p)
    p.set_defaults(func=cmd_drift)


async def _check(session: Session, args: argparse.Namespace) -> tuple[list, list[str]]:
    from cockpit.sources.server.drift_check import check_drift
    from cockpit.sources.transport.ssh_pool import SshPool

    async with SshPool() as pool:
        return await check_drift(session, pool=pool, host=args.host, python=args.python,
                                 ssh_config=tuple(args.ssh_config) if args.ssh_config else None,
                                 known_hosts=args.known_hosts)


def cmd_drift(args: argparse.Namespace) -> int:
    from cockpit.model.package_drift import drifted
    from cockpit.store.cli_load import load_or_report

    session = load_or_report(args.session)
    if session is None:
        return 1
    if not session.packages:
        print(sanitize(f"{args.session}: no packages recorded"), file=sys.stderr)
        return 0
    from cockpit.sources.server.drift_check import HOST_NOT_CHECKED

    rows, notes = asyncio.run(_check(session, args))
    failed = any(r.why == HOST_NOT_CHECKED for r in rows)
    if args.json:
        print(json.dumps({"checked": notes, "rows": [r.to_dict() for r in rows]}, indent=2))
    else:
        print(sanitize(render(rows, notes), multiline=True))  # versions and errors: host output
    if args.record:
        return _record(args.session, [r for r in rows if r.status == "changed"]) or (2 if failed else 0)
    return 1 if drifted(rows) else 2 if failed else 0


def _record(path: str, changed: list) -> int:
    """Take the versions read now as the record (under the session lock, like `cockpit add`)."""
    from cockpit.cli.session.file_cmds import edit_by_person
    from cockpit.model.session import now

    if not changed:
        return 0

    def change(editor: SessionEditor) -> str:
        stamp = now()
        for row in changed:
            editor.edit_record("packages", row.package.id, version=row.now, captured=stamp)
        return "recorded: " + ", ".join(f"{r.package.id} {r.package.name} {r.now}" for r in changed)
    return edit_by_person(path, change)


def render(rows: list, notes: list[str]) -> str:
    from cockpit.model.package_drift import summary

    head = summary(rows).lower()
    table = [("id", "host", "name", "recorded", "now", "status")] + [
        (r.package.id, r.host, r.package.name, r.package.version, r.now or "—",
         r.status + (f" ({r.why})" if r.why and r.status != "missing" else "")) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(5)]
    lines = [head, *("  checked on " + n for n in notes), ""]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[5] for row in table]
    return "\n".join(line.rstrip() for line in lines)
