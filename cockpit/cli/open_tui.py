"""`cockpit [SESSION]`: find or create the session, load it strictly, run the TUI.

* no SESSION: reopen the most recently used one, or offer to create one;
* SESSION missing: asked at a terminal ("PATH does not exist: create it? [y/N]"), else
  refused with the command that makes it (`cockpit new PATH`): a typo makes no files;
* SESSION broken: print its errors (file:line:col) to stderr, exit 1, file untouched;
* `--demo`: built by `cockpit.demo.build.build_demo(args) -> (session_path, LiveSources)`.

Textual is imported only once there is something to show, so this module is headless.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cockpit.cli import recent
from cockpit.ground.sanitize import sanitize
from cockpit.model.session import Session, now
from cockpit.sources.feeds import LiveSources
from cockpit.store.cli_load import load_or_report_signed
from cockpit.store.signature import DiskSignature
from cockpit.store.toml_store import save_session_with_signature

DEFAULT_NEW = "cockpit-session.toml"


def create_session(path: Path) -> tuple[Session, DiskSignature]:
    """The new session and the signature of its write (what the TUI merges against)."""
    session = Session(title=path.stem.replace("_", " ").replace("-", " "), created=now())
    path.parent.mkdir(parents=True, exist_ok=True)
    return session, save_session_with_signature(session, path)


def _ask_for_new() -> Path | None:
    if not sys.stdin.isatty():
        print(f"cockpit: no session given and none used before; run `cockpit new {DEFAULT_NEW}` to create one",
              file=sys.stderr)
        return None
    answer = input(f"No session given and none used before. Create one? [path, default {DEFAULT_NEW}; n to stop] ")
    answer = answer.strip()
    if answer.lower() in ("n", "no", "q"):
        return None
    return Path(answer or DEFAULT_NEW)


def _confirm_create(path: Path) -> bool:
    """Whether to make the missing `path`: asked at a terminal, else refused with the command that does."""
    from cockpit.ground.sanitize import sanitize

    shown = sanitize(str(path))
    if not sys.stdin.isatty():
        print(f"cockpit: {shown} does not exist; create it with: cockpit new {shown}", file=sys.stderr)
        return False
    try:
        answer = input(f"{shown} does not exist: create it? [y/N] ")
    except EOFError:
        answer = ""
    if answer.strip().lower() in ("y", "yes"):
        return True
    print("cockpit: nothing created", file=sys.stderr)
    return False


def resolve_session(arg: str | None) -> tuple[Path, Session, DiskSignature, bool] | int:
    """The session to open, the signature of the read (or write) it came from, and whether
    it was just created; or an exit status. The signature travels to the TUI's controller:
    an add landing while Textual imports and the sources start is merged at the first look."""
    asked = False  # the person typed the new session's path at the prompt: that is the explicit step
    if arg is None:
        path = recent.most_recent()
        if path is None or not path.exists():
            path = _ask_for_new()
            if path is None:
                return 2
            asked = True
    else:
        path = Path(arg)
    if not path.exists():
        if not asked and not _confirm_create(path):  # a typo makes no files: a new session is an explicit step
            return 2
        try:
            session, sig = create_session(path)
        except OSError as exc:  # a link to nothing is not created through (SaveError says so)
            print(sanitize(f"cockpit: cannot create {path}: {exc.strerror or exc}"), file=sys.stderr)
            return 1
        # Said in the TUI as it opens (a toast), not on stderr: the TUI's screen would hide
        # that line until it exits, where it reads as if printed at exit.
        return path, session, sig, True
    loaded = load_or_report_signed(path, warn=False)  # the TUI says it as it opens
    return 1 if loaded is None else (path, loaded[0], loaded[1], False)


def _demo(args: argparse.Namespace) -> tuple[Path, LiveSources] | int:
    from cockpit.demo.build import build_demo
    from cockpit.demo.fleet import demo_fleet_feed

    session_path, sources = build_demo(args)
    if sources.fleet is None:  # here, not in build_demo: sources cannot import live's FleetFeed
        sources.fleet = demo_fleet_feed()
    return session_path, sources


def run_tui(args: argparse.Namespace, *, sources: LiveSources | None = None) -> int:
    """Entry from the CLI: `args.session` (str | None), `args.demo`, `args.fresh`, `args.theme`."""
    if getattr(args, "fresh", False) and not getattr(args, "demo", False):
        print("cockpit: --fresh goes with --demo (it starts a new demo copy)", file=sys.stderr)
        return 2
    if getattr(args, "demo", False):
        built = _demo(args)
        if isinstance(built, int):
            return built
        session_path, sources = built
        args.session = str(session_path)
    resolved = resolve_session(getattr(args, "session", None))
    if isinstance(resolved, int):
        return resolved
    path, session, sig, created = resolved
    recent.remember(path)
    from cockpit.ui.app import CockpitApp  # Textual only once there is something to show

    if sources is None:
        from cockpit.sources.session_feeds import sources_for_session

        sources = sources_for_session(session)
    if session.prometheus and sources.fleet is None:
        from cockpit.sources.metrics.fleet_sources import FleetSources  # the Fleet tab: one [[prometheus]] at a time

        sources.fleet = FleetSources.for_session(session)
    # Not in the demo: its session has no servers of its own to find.
    app = CockpitApp(session, path, disk_sig=sig, sources=sources, theme=getattr(args, "theme", None),
                     attach_servers=not getattr(args, "demo", False))
    if created:
        app.startup_notes.append(f"Created {path}: an empty campaign (its title is the file's name)")
    from cockpit.store.exposure import exposure_warning

    if (exposed := exposure_warning(path, session)) is not None:
        app.startup_notes.append(exposed)
    try:
        app.run()
    finally:  # a hangup that cut the app's own exit short still removes what the demo wrote
        sources.run_stops()
    for note in sources.exit_notes:
        print(sanitize(note, multiline=True), file=sys.stderr)
    return 0
