"""The command line: `cockpit [SESSION]` opens the TUI; subcommands are headless.

Each subcommand module exposes `register(subparsers)` and sets `func` on its parser;
`func(args) -> int` is the exit status. The TUI is imported lazily so the headless
commands never load Textual.
"""

from __future__ import annotations

import argparse
import sys
from importlib import import_module

from cockpit import __version__
from cockpit.ground.quiet_warnings import quiet_known_warnings

# Modules that add subcommands; each owns its own parsers and handlers.
_COMMAND_MODULES = (
    "cockpit.cli.session.file_cmds",
    "cockpit.cli.watch.log_cmds",
    "cockpit.cli.watch.tail_cmd",
    "cockpit.cli.watch.log_tui_cmd",
    "cockpit.cli.watch.gpu_cmds",
    "cockpit.cli.session.diff_cmd",
    "cockpit.cli.session.drift_cmd",
    "cockpit.cli.session.timeline_cmd",
    "cockpit.cli.watch.diagnose_cmd",
    "cockpit.cli.mcp_cmd",
    "cockpit.cli.watch.metrics_cmd",
    "cockpit.cli.experiment.sweep_cmd",
    "cockpit.cli.experiment.run_cmds",
    "cockpit.cli.session.new_cmd",
    "cockpit.cli.experiment.tune_cmd",
    "cockpit.cli.experiment.search_cmd",
    "cockpit.cli.sandbox_cmd",
)
# Which module serves which command, so a run imports only what it needs (the session
# model alone costs ~0.2 s of imports; `parse-log` should start as fast as grep).
COMMANDS = {
    "check": "cockpit.cli.session.file_cmds",
    "fmt": "cockpit.cli.session.file_cmds",
    "export": "cockpit.cli.session.file_cmds",
    "add": "cockpit.cli.session.file_cmds",
    "bench": "cockpit.cli.session.file_cmds",
    "parse-log": "cockpit.cli.watch.log_cmds",
    "tail": "cockpit.cli.watch.tail_cmd",
    "log": "cockpit.cli.watch.log_tui_cmd",
    "gpus": "cockpit.cli.watch.gpu_cmds",
    "topo": "cockpit.cli.watch.gpu_cmds",
    "diff": "cockpit.cli.session.diff_cmd",
    "drift": "cockpit.cli.session.drift_cmd",
    "timeline": "cockpit.cli.session.timeline_cmd",
    "diagnose": "cockpit.cli.watch.diagnose_cmd",
    "mcp": "cockpit.cli.mcp_cmd",
    "metrics": "cockpit.cli.watch.metrics_cmd",
    "sweep": "cockpit.cli.experiment.sweep_cmd",
    "run": "cockpit.cli.experiment.run_cmds",
    "stop": "cockpit.cli.experiment.run_cmds",
    "new": "cockpit.cli.session.new_cmd",
    "tune": "cockpit.cli.experiment.tune_cmd",
    "search": "cockpit.cli.experiment.search_cmd",
    "sandbox": "cockpit.cli.sandbox_cmd",
}


def build_parser(modules: tuple[str, ...] = _COMMAND_MODULES) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cockpit",
        description="Headless commands of cockpit. Run `cockpit [SESSION.toml]` to open the TUI.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        try:
            module = import_module(name)
        except ModuleNotFoundError as exc:  # a command module not written yet
            if exc.name != name:
                raise
            continue
        module.register(sub)
    return parser


def commands_epilog() -> str:
    """Every registered subcommand with its one-line help, read from the parsers themselves so
    `--help` can never leave one out (a hand-kept list once forgot `sweep`)."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    rows = [(action.dest, action.help or "") for action in sub._choices_actions]
    width = max(len(name) for name, _ in rows)
    lines = [f"  {name.ljust(width)}  {text}" for name, text in rows]
    return "headless commands (see `cockpit COMMAND -h`):\n" + "\n".join(lines)


def build_tui_parser(with_commands: bool = False) -> argparse.ArgumentParser:
    """`with_commands` lists the subcommands in the epilog: only for help, as it imports every
    command module (opening the TUI should not pay for that)."""
    parser = argparse.ArgumentParser(
        prog="cockpit",
        description="Open the cockpit TUI on SESSION (the last used one if omitted;\n`cockpit new PATH` makes one).",
        epilog=commands_epilog() if with_commands else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("session", nargs="?", help="session TOML file")
    parser.add_argument("--version", action="version", version=f"cockpit {__version__}")
    parser.add_argument("--demo", action="store_true", help="open the example session with live replayed panes")
    parser.add_argument("--fresh", action="store_true",
                        help="with --demo: start a new demo copy (the last one is kept as .prev.toml)")
    parser.add_argument("--theme", help="theme name to start with (overrides the session's)")
    return parser


def _parse_command(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """Options anywhere among the positionals (`cockpit stop S --grace 1 HOST`): the command's
    own parser reads them intermixed. A command with its own subcommands (or a REMAINDER
    argument) cannot be read so; it gets the plain parse."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    command = sub.choices[argv[0]]
    try:
        args = command.parse_intermixed_args(argv[1:])
    except TypeError:  # argparse: "parse_intermixed_args: positional arg with nargs=..." / subparsers
        return parser.parse_args(argv)
    if not hasattr(args, "command"):  # as the top parser names it (`add` has a --command of its own)
        args.command = argv[0]
    return args


def _not_a_command(word: str) -> bool:
    """A bare word that is neither a command nor an existing file (`cockpit fleet`): said, with
    the commands, instead of opening (and making) a session of that name."""
    import difflib
    import os
    import re

    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", word) or os.path.lexists(word):
        return False  # a path (x.toml, ./x, dir/x) or a file that exists: the TUI's to open
    from cockpit.ground.sanitize import sanitize

    near = difflib.get_close_matches(word, list(COMMANDS), n=1)
    hint = f" (did you mean `cockpit {near[0]}`?)" if near else ""
    print(f"cockpit: {sanitize(word)!r} is not a command nor a session file{hint}\n"
          f"commands: {', '.join(sorted(COMMANDS))}\n"
          f"to open a session: cockpit FILE.toml; to make a new one: cockpit new {sanitize(word)}.toml",
          file=sys.stderr)
    return True


def main(argv: list[str] | None = None) -> int:
    # before any command imports asyncssh: its import-time deprecations are not the answer
    quiet_known_warnings()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in COMMANDS:
        from cockpit.cli.inert_stderr import InertStderr

        if not isinstance(sys.stderr, InertStderr):  # kept to the end: a traceback is drawn inert too
            sys.stderr = InertStderr(sys.stderr)
        return _run_command(argv)
    wants_help = any(a in ("-h", "--help") for a in argv)  # also `cockpit S.toml --help`
    args = build_tui_parser(with_commands=wants_help).parse_args(argv)
    if args.session is not None and not args.demo and _not_a_command(args.session):
        return 2
    from cockpit.cli.open_tui import run_tui  # lazy: its imports are the model's and the store's

    return run_tui(args)


# Options whose value is itself a flag (`add profile --set --cuda-graph-max-bs=128`): argparse
# would read the value as an option of its own, so it is glued on (`--set=--cuda-graph-max-bs=128`).
_FLAG_VALUED = {"add": ("--set", "--unset")}


def _glue_flag_values(argv: list[str]) -> list[str]:
    names = _FLAG_VALUED.get(argv[0], ())
    out: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] in names and i + 1 < len(argv) and argv[i + 1].startswith("-"):
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def _run_command(argv: list[str]) -> int:
    args = _parse_command(build_parser((COMMANDS[argv[0]],)), _glue_flag_values(argv))
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the last line of defence: a file problem is a line, not a traceback
        from cockpit.cli.os_errors import report_os_error

        return report_os_error(exc)
