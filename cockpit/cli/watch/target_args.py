"""The TARGET arguments that `cockpit tail` and `cockpit log` share, and the tail source
they name (a local file, a remote file, or a command on a host)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cockpit.sources.log.tail_sources import Source


def add_target_args(p: argparse.ArgumentParser, *, lines: int, lines_help: str, cmd_example: str) -> None:
    p.add_argument("target", metavar="TARGET",
                   help="a local path, [user@]host[:port]:path, ssh://[user@]host[:port]/path, "
                        "or [user@]host[:port] with --cmd")
    p.add_argument("--cmd", metavar="COMMAND",
                   help=f'follow a command on the host instead of a file, e.g. "{cmd_example}"')
    start = p.add_mutually_exclusive_group()
    start.add_argument("-n", "--lines", type=int, default=lines, metavar="N", help=lines_help)
    start.add_argument("--from-start", action="store_true", help="start at the first byte of the file")
    p.add_argument("--known-hosts", metavar="PATH", help="known_hosts file to verify the host key against")
    p.add_argument("--ssh-config", metavar="PATH", action="append",
                   help="ssh_config file(s) to read instead of ~/.ssh/config")


def add_ssh_options(p: argparse.ArgumentParser) -> None:
    """--ssh-config and --known-hosts, for every command that reaches a HOST over SSH."""
    p.add_argument("--ssh-config", action="append", metavar="FILE", help="ssh_config file(s) to read instead of ~/.ssh/config")
    p.add_argument("--known-hosts", metavar="FILE", help="known_hosts file (default: from ssh_config, else ~/.ssh/known_hosts)")


def source_of(args: argparse.Namespace) -> Source:
    """The ResumableTail source TARGET names; ValueError when it names none."""
    from cockpit.sources.log.tail import ResumableTail

    fields: dict[str, Any] = {}
    if args.ssh_config:
        fields["config"] = tuple(args.ssh_config)
    if args.known_hosts:
        fields["known_hosts"] = args.known_hosts
    return ResumableTail.parse_source(args.target, command=args.cmd, **fields)
