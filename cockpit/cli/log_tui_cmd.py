"""`cockpit log TARGET`: open the log pane alone on a local path, `[user@]host:path`, or a
command on a host, like `cockpit tail` but in the TUI (search, filter, metrics)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "log",
        help="open the log pane alone on a local or remote log",
        description="Open the cockpit's log pane full screen on a log: follow, search, filter, "
        "error labels and the run's metrics, without a session.",
    )
    p.add_argument("target", metavar="TARGET",
                   help="a local path, [user@]host:path, ssh://[user@]host[:port]/path, or a host with --cmd")
    p.add_argument("--cmd", metavar="COMMAND",
                   help='follow a command on the host instead of a file, e.g. "docker logs -f --tail 1000 sglang"')
    start = p.add_mutually_exclusive_group()
    start.add_argument("-n", "--lines", type=int, default=50_000, metavar="N",
                       help="start with the last N lines (default 50000, the pane's ring)")
    start.add_argument("--from-start", action="store_true", help="start at the first byte of the file")
    p.add_argument("--theme", help="theme name (cockpit-dark, cockpit-light, cockpit-contrast, ...)")
    p.add_argument("--known-hosts", metavar="PATH", help="known_hosts file to verify the host key against")
    p.add_argument("--ssh-config", metavar="PATH", action="append",
                   help="ssh_config file(s) to read instead of ~/.ssh/config")
    p.set_defaults(func=run)


def feed_for(args: argparse.Namespace) -> Any:
    """The LogFeed for TARGET (raises ValueError for a target that cannot be followed)."""
    from cockpit.sources.log_feed import LogFeed
    from cockpit.sources.log_tail import LocalFile, ResumableTail

    fields: dict[str, Any] = {}
    if args.ssh_config:
        fields["config"] = tuple(args.ssh_config)
    if args.known_hosts:
        fields["known_hosts"] = args.known_hosts
    if args.lines < 0:
        raise ValueError("-n must be 0 or more")
    source = ResumableTail.parse_source(args.target, command=args.cmd, **fields)
    if isinstance(source, LocalFile):
        return LogFeed.local(source.path, lines=args.lines, from_start=args.from_start)
    return LogFeed.ssh(source, lines=args.lines, from_start=args.from_start)


def run(args: argparse.Namespace) -> int:
    try:
        feed = feed_for(args)
    except ValueError as exc:
        print(f"cockpit log: {exc}", file=sys.stderr)
        return 2
    from cockpit.ui.log_app import LogApp  # lazy: Textual only for this command

    LogApp(feed, max_lines=max(args.lines, 1000), theme=args.theme).run()
    return 0
