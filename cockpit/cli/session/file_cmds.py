"""Headless commands on a session file: check, fmt, export, add, bench import."""

from __future__ import annotations

import argparse
import errno
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cockpit.ground.sanitize import sanitize
from cockpit.store.errors import SessionFileError
from cockpit.store.lock import session_lock

if TYPE_CHECKING:
    pass


def _store():
    # Imported on use: `cockpit --help` and the other commands skip the model's imports.
    from cockpit.store import toml_store

    return toml_store


def _report(exc: SessionFileError) -> int:
    print(exc.render(), file=sys.stderr)
    return 1


def _os_error(exc: OSError, path: str | Path) -> int:
    from cockpit.cli.os_errors import report_os_error

    return report_os_error(exc, path)


def _load(path: str):  # noqa: ANN202
    from cockpit.store.cli_load import load_or_report

    return load_or_report(path)


def cmd_check(args: argparse.Namespace) -> int:
    from cockpit.cli.session.check_after_load import problems_after_load

    session = _load(args.session)
    if session is None:
        return 1
    # the bounds a write applies (store/limits.py): a file that passes here is one a write keeps
    from cockpit.store import limits
    from cockpit.store.toml_store import to_data

    try:
        text = _store().read_text(Path(args.session))
    except OSError as exc:
        return _os_error(exc, args.session)
    problems = limits.text_limit_problems(to_data(session), text) + problems_after_load(session, text)
    if problems:
        return _report(SessionFileError(args.session, limits.capped(problems)))
    counts = ", ".join(
        f"{len(getattr(session, name))} {name}" for name in ("tasks", "discoveries", "benchmarks", "files", "launch")
    )
    print(sanitize(f"{args.session}: ok ({counts})"))
    from cockpit.model.bench.targets import score_all

    for score in score_all(session.goal.targets, session.benchmarks):
        # each target as it is judged: its figure and statistic, a point's median over its runs
        state = "no data" if score.best_value is None else "met" if score.met else "not met"
        so_far = f" ({score.value_text()}, {score.best.id})" if score.best is not None else ""
        print(sanitize(f"  target {score.target.id} {score.target.describe()}: {state}{so_far}"))
    return 0


def cmd_fmt(args: argparse.Namespace) -> int:
    store = _store()
    status = 0
    for name in args.sessions:
        path = Path(name)
        try:
            with session_lock(path):
                text = store.read_text(path)
                canonical = store.dumps_session(store.loads_session(text, path))
                if text == canonical:
                    continue
                if args.check:
                    print(sanitize(f"{path}: would be reformatted"), file=sys.stderr)
                    status = 1
                    continue
                store.save_session(store.loads_session(text, path), path)
                print(sanitize(f"{path}: reformatted"))
        except SessionFileError as exc:
            status = _report(exc)
        except OSError as exc:
            status = _os_error(exc, path)
    return status


def cmd_export(args: argparse.Namespace) -> int:
    from cockpit.store.export_json import export_json
    from cockpit.store.handoff.markdown import render_handoff

    session = _load(args.session)
    if session is None:
        return 1
    text = render_handoff(session) if args.format == "md" else export_json(session)
    if args.output:
        try:
            _write_output(Path(args.output), text)
        except OSError as exc:
            return _os_error(exc, args.output)
    else:
        sys.stdout.write(text)
    return 0


def _write_output(path: Path, text: str) -> None:
    """A regular file is replaced atomically (a full disk leaves the old one whole); a
    device or a pipe (/dev/stdout, a FIFO) is written to."""
    if not path.parent.is_dir():
        raise FileNotFoundError(errno.ENOENT, f"no folder {path.parent}")
    if path.exists() and not path.is_file():
        from cockpit.store.atomic_write import resolve_link_chain

        resolve_link_chain(path)  # SaveError for a link another user planted (a FIFO of theirs)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        return
    _store().write_atomic(path, text, keep_backup=False)


def edit_by_person(path: str, change) -> int:
    """One session transaction (control/transaction.py): lock, load, change through the
    editor, save atomically. The actor is the person: a `cockpit` command is typed by the
    same hand as the TUI, and a note's journal line is their words as typed.

    A missing SESSION is an error, not a new file (a typo would start an empty session)."""
    from cockpit.control.transaction import edit_session
    from cockpit.model.edit.edits import PERSON, EditError

    if not Path(path).is_file():  # checked before the lock, whose file would be created beside it
        if Path(path).is_dir():
            print(sanitize(f"{path}: Is a directory"), file=sys.stderr)
        else:
            print(sanitize(f"{path}: no such file (a session is created by opening it: cockpit {path})"), file=sys.stderr)
        return 1
    try:
        edited = edit_session(path, change, PERSON)
        result = edited.result
        from cockpit.store.cli_load import warn_if_exposed

        warn_if_exposed(path, edited.session)
    except SessionFileError as exc:
        return _report(exc)
    except (EditError, ValueError) as exc:
        print(sanitize(f"{path}: {exc}", multiline=True), file=sys.stderr)  # may quote a value
        return 1
    except OSError as exc:  # unreadable, no room to save, no right to write the folder
        return _os_error(exc, path)
    if isinstance(result, list):  # lines: an id and what it changed (`add profile --from`)
        for line in result:
            print(sanitize(str(line)))
    elif result:
        print(sanitize(str(result)))  # an id, or versions a host reported (`drift --record`)
    return 0


# kind -> (collection, the field TEXT fills, required options, optional options)
_RECORD_KINDS = {
    "package": ("packages", "name", ("version",), ("host",)),
    "file": ("files", "path", (), ("host", "lines", "change", "state")),
    "profile": ("launch", "name", (), ("host", "notes")),  # _add_profile: --command or --from
}


def cmd_add(args: argparse.Namespace) -> int:
    from cockpit.model.enums import DiscoveryStatus, TaskStatus

    kind = args.kind
    if kind == "task":
        return edit_by_person(args.session, lambda e: e.add_task(args.text, TaskStatus(args.status or "todo"), args.notes))
    if kind == "discovery":
        return edit_by_person(
            args.session,
            lambda e: e.add_discovery(args.text, args.evidence, DiscoveryStatus(args.status or "hypothesis")),
        )
    if kind == "note":
        return edit_by_person(args.session, lambda e: e.add_note(args.text))
    if kind == "search":
        return _add_search(args)
    if kind == "target":
        from cockpit.cli.session.add_target import target_fields

        try:
            target = target_fields(args.text, args.concurrency_range, args.label)
        except ValueError as exc:
            print(sanitize(f"cockpit add target: {exc}"), file=sys.stderr)
            return 2
        return edit_by_person(args.session, lambda e: e.add_target(**target))
    if kind in _RECORD_KINDS:
        collection, first, required, optional = _RECORD_KINDS[kind]
        fields = {first: args.text, **{f: getattr(args, f) for f in required + optional if getattr(args, f)}}
        missing = [f"--{f.replace('_', '-')}" for f in required if not getattr(args, f)]
        if missing:
            print(f"cockpit add {kind}: {', '.join(missing)} is needed", file=sys.stderr)
            return 2
        if kind == "profile":
            return _add_profile(args)
        return edit_by_person(args.session, lambda e: e.add_record(collection, **fields))
    if kind == "sweep":
        from cockpit.cli.session.add_sweep import sweep_fields

        try:
            sweep = sweep_fields(args)
        except ValueError as exc:
            print(sanitize(f"cockpit add sweep: {exc}"), file=sys.stderr)
            return 2
        return edit_by_person(args.session, lambda e: e.add_record("sweeps", **sweep))
    fields = {
        key: getattr(args, key)
        for key in ("profile", "concurrency", "input_len", "output_len", "total_tok_s", "output_tok_s", "ttft_ms", "itl_ms",
                    "notes")
        if getattr(args, key) is not None
    }
    return edit_by_person(args.session, lambda e: e.add_benchmark(label=args.text, **fields))


def _add_profile(args: argparse.Namespace) -> int:
    """`cockpit add profile NAME --command ...`, or a copy: `--from l1` with `--set FLAG=VALUE`
    / `--unset FLAG` (each repeatable) changing its command; the copy keeps l1's host, env
    and python unless given, never its confirmation (a new command is confirmed anew)."""
    from cockpit.model.bench.profile_diff import diff_lines, diff_profiles
    from cockpit.model.edit.edits import EditError
    from cockpit.model.edit.lookup import by_id_or_name, known_records
    from cockpit.model.launch.profile_copy import apply_changes, parse_set, parse_unset

    env = [pair.partition("=") for pair in args.env or []]
    if any(not eq or not key for key, eq, _ in env):
        print("cockpit add profile: --env takes KEY=value", file=sys.stderr)
        return 2
    if not args.command and not args.from_profile:
        print("cockpit add profile: --command or --from PROFILE is needed", file=sys.stderr)
        return 2
    try:
        changes = [parse_set(t) for t in args.set or []] + [parse_unset(t) for t in args.unset or []]
    except ValueError as exc:
        print(sanitize(f"cockpit add profile: {exc}"), file=sys.stderr)
        return 2

    def change(e):
        base = None
        if args.from_profile:
            found = by_id_or_name(e.session.launch, args.from_profile)
            if len(found) != 1:
                what = "no launch profile" if not found else "more than one launch profile named"
                raise EditError(f"{what} {args.from_profile!r} (profiles: {known_records(e.session.launch)})")
            base = found[0]
        command = apply_changes(args.command or (base.command if base is not None else ""), changes)
        fields = {"name": args.text, "command": command,
                  "env": {**(base.env if base else {}), **{k: v for k, _, v in env}}}
        for key in ("host", "notes", "python"):
            value = getattr(args, key) or (getattr(base, key) if base is not None and key != "notes" else None)
            if value:
                fields[key] = value
        new_id = e.add_record("launch", **fields)
        if base is None:
            return new_id
        made = next(p for p in e.session.launch if p.id == new_id)
        lines = [text for kind, text in diff_lines(diff_profiles(base, made)) if kind not in ("heading", "note")]
        return [f"{new_id}: a copy of {base.id}", *(f"  {line}" for line in lines or [f"the same launch as {base.id}"])]
    return edit_by_person(args.session, change)


def _add_search(args: argparse.Namespace) -> int:
    from cockpit.model.edit.edits import EditError
    from cockpit.model.search.edits import add_search, parse_dimension

    missing = [flag for flag, value in (("--profile", args.profile), ("--sweep", args.sweep), ("--space", args.space))
               if not value]
    if missing:
        print(f"cockpit add search: {', '.join(missing)} is needed", file=sys.stderr)
        return 2
    try:
        space = dict(parse_dimension(text) for text in args.space)
    except EditError as exc:
        print(sanitize(f"cockpit add search: {exc}"), file=sys.stderr)
        return 2
    fields = {"name": args.text, "profile": args.profile, "sweep": args.sweep, "space": space,
              "constraints": args.constraint or []}
    if args.objective:  # `--objective a,b` or `--objective a --objective b`: a front over both
        names = [n.strip() for text in args.objective for n in text.split(",") if n.strip()]
        fields["objective"] = names[0] if len(names) == 1 else names
    for key in ("at_concurrency", "direction", "trials", "repeats"):
        if getattr(args, key) is not None:
            fields[key] = getattr(args, key)
    return edit_by_person(args.session, lambda e: add_search(e, **fields))


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="validate a session file (errors as file:line:col)")
    p.add_argument("session")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("fmt", help="rewrite session files in canonical form")
    p.add_argument("sessions", nargs="+", metavar="SESSION")
    p.add_argument("--check", action="store_true", help="exit 1 if a file would change; write nothing")
    p.set_defaults(func=cmd_fmt)

    p = sub.add_parser("export", help="the handoff document (Markdown) or the model (JSON)")
    p.add_argument("session")
    p.add_argument("--format", choices=("md", "json"), default="md")
    p.add_argument("-o", "--output", help="write to FILE instead of stdout")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("add", help="add a task, discovery, benchmark, note, package, file, launch profile, sweep, "
                                   "search or target (safe while the TUI is open)")
    p.add_argument("kind", choices=("task", "discovery", "benchmark", "note", "package", "file", "profile", "sweep",
                                    "search", "target"))
    p.add_argument("session")
    p.add_argument("text", help="task title, discovery claim, benchmark label, note text, package name, "
                                "file path, profile name, sweep name, search name, or a target as "
                                "'TTFT p99 <= 2000' (any recorded figure and statistic)")
    p.add_argument("--concurrency-range", metavar="LOW..HIGH",
                   help="target: the concurrencies it holds at (1..64, 8.., ..16, 32)")
    p.add_argument("--label", help="target: a short name for it")
    p.add_argument("--status", help="task: todo|doing|done|blocked; discovery: hypothesis|confirmed|refuted")
    p.add_argument("--notes")
    p.add_argument("--version", help="package: its version (needed)")
    p.add_argument("--host", help="package, file, profile: a [[hosts]] name")
    p.add_argument("--lines", help="file: the lines changed, e.g. 120-134")
    p.add_argument("--change", help="file: what changed")
    p.add_argument("--state", choices=("applied", "reverted", "harmless", "problematic"), help="file: its state")
    p.add_argument("--command", help="profile: the launch command (needed unless --from)")
    p.add_argument("--env", action="append", metavar="KEY=VALUE", help="profile: an environment variable (repeat)")
    p.add_argument("--python", help="profile: the interpreter of its environment on the host (runs the bench client)")
    p.add_argument("--from", dest="from_profile", metavar="PROFILE",
                   help="profile: a copy of PROFILE (id or name): its command, host, env and python")
    p.add_argument("--set", action="append", metavar="FLAG=VALUE",
                   help="profile: set a flag of the command (repeat): --set --cuda-graph-max-bs=128; "
                        "--set --enable-torch-compile for a switch")
    p.add_argument("--unset", action="append", metavar="FLAG", help="profile: remove a flag of the command (repeat)")
    p.add_argument("--evidence")
    p.add_argument("--profile", help="benchmark: launch profile id; search: the base profile (needed)")
    p.add_argument("--sweep", help="search: the sweep every trial runs (needed)")
    p.add_argument("--space", action="append", metavar="DIM",
                   help="search: a dimension, repeat: cuda-graph-max-bs=32,64,128 | "
                        "mem-fraction-static=0.80:0.92:0.02 | enable-torch-compile=switch | env:NAME=a,b")
    p.add_argument("--objective", action="append",
                   help="search: the benchmark figure to optimise (default output_tok_s); two or three "
                        "(repeat, or a,b) for a Pareto front a person picks from")
    p.add_argument("--at-concurrency", type=int, help="search: the sweep point whose figure counts")
    p.add_argument("--direction", choices=("maximize", "minimize"), help="search: default maximize")
    p.add_argument("--constraint", action="append", metavar="TARGET", help="search: a target that must hold (repeat)")
    p.add_argument("--trials", type=int, help="search: the launch budget (default 12)")
    p.add_argument("--repeats", type=int, help="search: launches beyond --trials for the race between the leader "
                                               "and the runner-up (default 0); sweep: runs of each point per "
                                               "sweep run (default 1)")
    for flag, kind in (("--concurrency", int), ("--input-len", int), ("--output-len", int), ("--total-tok-s", float),
                       ("--output-tok-s", float), ("--ttft-ms", float), ("--itl-ms", float)):
        p.add_argument(flag, type=kind)
    from cockpit.cli.session.add_sweep import add_sweep_options

    add_sweep_options(p)
    p.set_defaults(func=cmd_add)

    _register_bench(sub)


def cmd_bench_import(args: argparse.Namespace) -> int:
    from cockpit.parse.bench.bench_serving import bench_fields, refused_rows
    from cockpit.parse.log.events import BenchResult
    from cockpit.parse.log.sglang_log import parse_text
    from cockpit.sources.input_file import InputTooLarge, read_input

    try:
        data = read_input(args.file)
    except OSError as exc:
        print(sanitize(f"{args.file}: {exc.strerror}"), file=sys.stderr)
        return 1
    except InputTooLarge as exc:
        print(sanitize(str(exc)), file=sys.stderr)
        return 1
    refused = refused_rows(data.decode("utf-8", "replace").splitlines())
    if refused:  # a row of 1e999 or 1e308 is no measurement: nothing of the block is recorded
        for line, why in refused:
            print(sanitize(f"{args.file}:{line}: {why}"), file=sys.stderr)
        return 1
    results = [e for e in parse_text(data) if isinstance(e, BenchResult)]
    if not results:
        print(sanitize(f"{args.file}: no 'Serving Benchmark Result' block found"), file=sys.stderr)
        return 1
    fields = bench_fields(results[-1].values)
    if args.profile:
        fields["profile"] = args.profile
    if args.notes:
        fields["notes"] = args.notes
    label = args.label or Path(args.file).stem
    return edit_by_person(args.session, lambda e: e.add_benchmark(label=label, **fields))


def _register_bench(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="benchmarks: import an sglang.bench_serving result")
    inner = p.add_subparsers(dest="bench_command", metavar="import", required=True)
    imp = inner.add_parser("import", help="add the result block of FILE (bench_serving output) to SESSION")
    imp.add_argument("session")
    imp.add_argument("file", metavar="FILE|-")
    imp.add_argument("--label", help="benchmark label (default: the file name)")
    imp.add_argument("--profile", help="launch profile id that produced it")
    imp.add_argument("--notes")
    imp.set_defaults(func=cmd_bench_import)
