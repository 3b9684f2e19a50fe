"""`cockpit sandbox [DIR]`: a session on this machine that runs on SIMULATORS (cockpit/sandbox/):
its launch profiles start a simulated SGLang server, its sweeps a simulated bench client, so
run, sweep, tune, diagnose and the TUI work without a GPU. The one module outside the
sandbox package that may import it (import-linter contract in pyproject.toml)."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

DEFAULT_DIR = "cockpit-sandbox"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sandbox", help="make a session on SIMULATED servers: try run, sweep and tune without a GPU",
                       description="Make DIR/session.toml: host `local` (this machine), launch profiles l1 and l2 "
                                   "that start a SIMULATED SGLang server (its speed, power and crashes follow the "
                                   "flags, with 3 % noise between launches), sweep s1 run by a SIMULATED bench "
                                   "client, and search q1 over three flags. Nothing here is a GPU's figure. "
                                   "DIR must be new, empty, or an earlier sandbox (whose session is kept). "
                                   "Exit 0 made, 1 not.")
    p.add_argument("dir", nargs="?", default=DEFAULT_DIR, metavar="DIR",
                   help=f"the folder to make (default ./{DEFAULT_DIR})")
    p.set_defaults(func=cmd_sandbox)


def cmd_sandbox(args: argparse.Namespace) -> int:
    from cockpit.ground.sanitize import sanitize
    from cockpit.sandbox.session import SandboxError, make_sandbox

    folder = Path(args.dir)
    try:
        made = make_sandbox(folder)
    except SandboxError as exc:
        print(f"cockpit sandbox: {sanitize(str(exc))}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"cockpit sandbox: {sanitize(str(folder))}: {sanitize(str(exc.strerror or exc))}", file=sys.stderr)
        return 1
    from cockpit.cli import recent

    recent.remember(made.path)
    path = sanitize(shlex.quote(str(made.path)))
    if made.reused:
        print(f"{path}: an earlier sandbox, kept as it was (its records too)")
    else:
        print(f"made {path}: host local (this machine), profiles l1 and l2 start a SIMULATED SGLang server "
              f"on port {made.port}; sweep s1, search q1. No GPU is used: every figure is simulated.")
    print("next:\n"
          f"  cockpit run {path} l1 --wait-ready --yes\n"
          f"  cockpit sweep {path} s1 --yes\n"
          f"  cockpit tune {path} q1 --yes\n"
          f"  cockpit diagnose {path}\n"
          f"  cockpit {path}")
    return 0
