"""`cockpit [SESSION]`: find or create the session, load it strictly, run the TUI.

* no SESSION: reopen the most recently used one, or offer to create one;
* SESSION missing: create it (an empty campaign titled after the file);
* SESSION broken: print its errors (file:line:col) to stderr, exit 1, file untouched;
* `--demo`: built by `cockpit.sources.demo.build_demo(args) -> (session_path, LiveSources)`.

Textual is imported only once there is something to show, so this module is headless.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from cockpit.model.session import Session, now
from cockpit.parse.sanitize import sanitize
from cockpit.store.cli_load import load_or_report
from cockpit.store.toml_store import save_session
from cockpit.cli import recent
from cockpit.sources.feeds import LiveSources

DEFAULT_NEW = "cockpit-session.toml"


def create_session(path: Path) -> Session:
    session = Session(title=path.stem.replace("_", " ").replace("-", " "), created=now())
    path.parent.mkdir(parents=True, exist_ok=True)
    save_session(session, path)
    return session


def _ask_for_new() -> Path | None:
    if not sys.stdin.isatty():
        print(f"cockpit: no session given and none used before; run `cockpit {DEFAULT_NEW}` to create one",
              file=sys.stderr)
        return None
    answer = input(f"No session given and none used before. Create one? [path, default {DEFAULT_NEW}; n to stop] ")
    answer = answer.strip()
    if answer.lower() in ("n", "no", "q"):
        return None
    return Path(answer or DEFAULT_NEW)


def resolve_session(arg: str | None) -> tuple[Path, Session, bool] | int:
    """The session to open and whether it was just created, or an exit status."""
    if arg is None:
        path = recent.most_recent()
        if path is None or not path.exists():
            path = _ask_for_new()
            if path is None:
                return 2
    else:
        path = Path(arg)
    if not path.exists():
        try:
            session = create_session(path)
        except OSError as exc:
            print(sanitize(f"cockpit: cannot create {path}: {exc}"), file=sys.stderr)
            return 1
        # Said in the TUI as it opens (a toast), not on stderr: the TUI's screen would hide
        # that line until it exits, where it reads as if printed at exit.
        return path, session, True
    loaded = load_or_report(path)
    return 1 if loaded is None else (path, loaded, False)


def _demo(args: Any) -> tuple[Path, LiveSources] | int:
    from cockpit.live.demo_fleet import demo_fleet_feed
    from cockpit.sources.demo import build_demo

    session_path, sources = build_demo(args)
    if sources.fleet is None:  # here, not in build_demo: sources cannot import live's FleetFeed
        sources.fleet = demo_fleet_feed()
    return session_path, sources


def run_tui(args: Any, *, sources: LiveSources | None = None) -> int:
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
    path, session, created = resolved
    recent.remember(path)
    from cockpit.ui.app import CockpitApp  # Textual only once there is something to show

    if sources is None:
        from cockpit.sources.session_feeds import sources_for_session

        sources = sources_for_session(session)
    if session.prometheus and sources.fleet is None:
        from cockpit.live.fleet_sources import FleetSources  # the Fleet tab: one [[prometheus]] at a time

        sources.fleet = FleetSources.for_session(session)
    # Not in the demo: its session has no servers of its own to find.
    app = CockpitApp(session, path, sources=sources, theme=getattr(args, "theme", None),
                     attach_servers=not getattr(args, "demo", False))
    if created:
        app.startup_notes.append(f"Created {path}: an empty campaign (its title is the file's name)")
    app.run()
    for note in sources.exit_notes:
        print(sanitize(note, multiline=True), file=sys.stderr)
    return 0
