"""`cockpit new PATH`: make a new, empty session file (the explicit step: opening a path
that does not exist never makes one unasked, so a typo makes no files)."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("new", help="make a new, empty session file (then open it with `cockpit PATH`)",
                       description="Make PATH a new session: an empty campaign titled after the file's name. "
                                   "Refused when PATH exists. Exit 0 made, 1 not made.")
    p.add_argument("path", help="the new session TOML file (e.g. campaign.toml)")
    p.set_defaults(func=cmd_new)


def cmd_new(args: argparse.Namespace) -> int:
    from cockpit.cli import recent
    from cockpit.cli.open_tui import create_session
    from cockpit.ground.sanitize import sanitize

    path = Path(args.path)
    shown = sanitize(str(path))
    if os.path.lexists(path):  # a file, a folder, or a link (even a dangling one): nothing is replaced
        print(f"cockpit new: {shown} exists already; open it with: cockpit {sanitize(shlex.quote(str(path)))}",
              file=sys.stderr)
        return 1
    try:
        session, _sig = create_session(path)
    except OSError as exc:
        print(f"cockpit new: cannot create {shown}: {sanitize(str(exc.strerror or exc))}", file=sys.stderr)
        return 1
    recent.remember(path)
    print(f"created {shown}: an empty campaign titled {sanitize(session.title)!r}; "
          f"open it with: cockpit {sanitize(shlex.quote(str(path)))}")
    return 0
