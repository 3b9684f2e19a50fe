"""`cockpit mcp SESSION`: serve the session to an AI assistant over MCP (stdio)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cockpit.ground.sanitize import sanitize

if TYPE_CHECKING:
    from cockpit.assistant.live_state import LiveState


def cmd_mcp(args: argparse.Namespace) -> int:
    from cockpit.store.cli_load import load_or_report

    path = Path(args.session)
    if not path.is_file():  # never create one: a typo would give the assistant an empty campaign
        print(sanitize(f"{path}: no such session file (create it by opening it: cockpit {path})"), file=sys.stderr)
        return 1
    if load_or_report(path) is None:  # a broken file: say where, start nothing, write nothing
        return 1
    from cockpit.assistant.mcp_server import build_server  # lazy: the SDK's imports cost ~0.5 s

    build_server(path, live=live_state_for(args)).run("stdio")
    return 0


def live_state_for(args: argparse.Namespace) -> LiveState:
    """The live resources' feeds, reaching hosts with the SSH options the other commands take."""
    from functools import partial

    from cockpit.assistant.live_state import LiveState
    from cockpit.sources.session_feeds import sources_for_session

    config = tuple(args.ssh_config) if args.ssh_config else None
    return LiveState(partial(sources_for_session, ssh_config=config, known_hosts=args.known_hosts))


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mcp", help="serve SESSION to an AI assistant: a Model Context Protocol server on stdio "
                                   "(reads the handoff, records tasks, discoveries, benchmarks; runs no commands)")
    p.add_argument("session")
    p.add_argument("--ssh-config", action="append", metavar="FILE",
                   help="ssh_config file(s) to read instead of ~/.ssh/config (for the live resources' hosts)")
    p.add_argument("--known-hosts", metavar="FILE",
                   help="known_hosts file (default: from ssh_config, else ~/.ssh/known_hosts)")
    p.set_defaults(func=cmd_mcp)
