"""`cockpit metrics prom:NAME` / `--prometheus URL`: the fleet through Prometheus, headless.

The same figures as the Fleet tab (sources/metrics/fleet_feed.py), printed as its text (`--width`
columns, sparklines of the history) or as one JSON object per refresh (`--json`).
Exit status 1 when the last refresh failed (unreachable, 401, timeout, bad query).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from cockpit.ground.sanitize import sanitize


def _fail(message: str, code: int = 1) -> int:
    print(sanitize(f"cockpit: {message}", multiline=True), file=sys.stderr)
    return code


def fleet_text(snap: Any, width: int, description: str) -> str:
    """The Fleet tab's text, without colours."""
    from rich.style import Style

    from cockpit.ui.render.fleet import render_fleet, state_line

    def pal(role: str, *, bold: bool = False) -> Style:
        return Style()

    head = state_line(snap, description, pal).plain
    return sanitize(head + "\n\n" + render_fleet(snap, width, pal, cursor=-1).plain, multiline=True)


def cmd_fleet(args: argparse.Namespace) -> int:
    from cockpit.model.prom_match import MatchError, matchers_of
    from cockpit.sources.metrics.fleet_feed import FleetFeed

    match, window = getattr(args, "match", None), getattr(args, "rate_window", None)
    try:
        matchers_of(match)
    except MatchError as exc:
        return _fail(f"--match: {exc}", 2)
    if window is not None and window <= 0:
        return _fail("--rate-window wants a number of seconds above 0", 2)
    if args.prometheus:
        if not args.prometheus.startswith(("http://", "https://")):
            return _fail(f"--prometheus wants an http(s):// URL, not {args.prometheus!r}", 2)
        feed = FleetFeed("prometheus", args.prometheus, auth_env=args.auth_env,
                         interval_s=args.interval or 5.0, history_h=1.0, match=match, window_s=window)
    else:
        from cockpit.cli.recent import named_in_session

        found = named_in_session(args, "prometheus", "[[prometheus]] named", "none: add a [[prometheus]] table")
        if isinstance(found, int):
            return found
        _path, session, source = found
        if args.interval:
            source = source.model_copy(update={"interval_s": args.interval})
        if match is not None or window is not None:  # the command line's, over the session's
            source = source.model_copy(update={k: v for k, v in (("match", match), ("rate_window_s", window))
                                                if v is not None})
        feed = FleetFeed.for_session(source, session)
    if feed.match_error:  # the session's own `match` (it loads; `cockpit check` says where)
        return _fail(feed.match_error, 2)
    return asyncio.run(_loop(feed, args))


async def _loop(feed: Any, args: argparse.Namespace) -> int:
    count = 1 if args.once else args.count
    history_error = await feed.load_history()
    n, status = 0, 0
    while True:
        snap = await feed.refresh()
        n += 1
        status = 1 if snap.state == "failing" else 0
        if args.json:
            out = snap.to_json()
            if history_error:
                out["notes"] = [*out["notes"], f"no history: {history_error}"]
            print(json.dumps(out, indent=2 if count == 1 else None), flush=True)
        else:
            print(fleet_text(snap, args.width, feed.description) + ("\n" if count != 1 else ""), flush=True)
        if snap.state == "failing":
            print(sanitize(f"cockpit: {snap.error}"), file=sys.stderr, flush=True)
        if count and n >= count:
            return status
        await asyncio.sleep(feed.interval_s)
