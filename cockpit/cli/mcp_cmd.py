"""`cockpit mcp SESSION`: serve the session to an AI assistant over MCP (stdio)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cockpit.parse.sanitize import sanitize


def cmd_mcp(args: argparse.Namespace) -> int:
    from cockpit.store.cli_load import load_or_report

    path = Path(args.session)
    if not path.is_file():  # never create one: a typo would give the assistant an empty campaign
        print(sanitize(f"{path}: no such session file (create it by opening it: cockpit {path})"), file=sys.stderr)
        return 1
    if load_or_report(path) is None:  # a broken file: say where, start nothing, write nothing
        return 1
    from cockpit.assistant.mcp_server import build_server  # lazy: the SDK's imports cost ~0.5 s

    build_server(path).run("stdio")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mcp", help="serve SESSION to an AI assistant: a Model Context Protocol server on stdio "
                                   "(reads the handoff, records tasks, discoveries, benchmarks; runs no commands)")
    p.add_argument("session")
    p.set_defaults(func=cmd_mcp)
