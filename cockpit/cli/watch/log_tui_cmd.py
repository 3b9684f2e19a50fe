"""`cockpit log TARGET`: open the log pane alone on a local path, `[user@]host:path`, or a
command on a host, like `cockpit tail` but in the TUI (search, filter, metrics)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from cockpit.cli.watch.target_args import add_target_args, source_of
from cockpit.ground.sanitize import sanitize

if TYPE_CHECKING:
    from cockpit.sources.log.feed import LogFeed


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "log",
        help="open the log pane alone on a local or remote log",
        description="Open the cockpit's log pane full screen on a log: follow, search, filter, "
        "error labels and the run's metrics, without a session.",
    )
    add_target_args(p, lines=50_000, lines_help="start with the last N lines (default 50000, the pane's ring)",
                    cmd_example="docker logs -f --tail 1000 sglang")
    p.add_argument("--theme", help="theme name (cockpit-dark, cockpit-light, cockpit-contrast, ...)")
    p.set_defaults(func=run)


def feed_for(args: argparse.Namespace) -> LogFeed:
    """The LogFeed for TARGET (raises ValueError for a target that cannot be followed)."""
    from cockpit.sources.log.feed import LogFeed
    from cockpit.sources.log.tail_sources import LocalFile

    if args.lines < 0:
        raise ValueError("-n must be 0 or more")
    source = source_of(args)
    if isinstance(source, LocalFile):
        return LogFeed.local(source.path, lines=args.lines, from_start=args.from_start)
    return LogFeed.ssh(source, lines=args.lines, from_start=args.from_start)


def run(args: argparse.Namespace) -> int:
    try:
        feed = feed_for(args)
    except ValueError as exc:
        print(sanitize(f"cockpit log: {exc}"), file=sys.stderr)
        return 2
    from cockpit.ui.log_app import LogApp  # lazy: Textual only for this command

    LogApp(feed, max_lines=max(args.lines, 1000), theme=args.theme).run()
    return 0
