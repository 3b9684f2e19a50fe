"""`cockpit search front SESSION SEARCH [--json]` prints a search's Pareto front (two or three
objectives); `cockpit search pick SESSION SEARCH TRIAL` records the person's pick from it
as the search's best (the TUI's `b` in the Search view).

Exit status: 0 done; 1 the session, the search or the trial is wrong (said on stderr:
e.g. the trial is not on the front, and which trial dominates it).
"""

from __future__ import annotations

import argparse
import json
import sys

from cockpit.ground.sanitize import sanitize


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("search", help="a search's Pareto front (several objectives) and the person's pick from it",
                       description="A search with two or three objectives (`objective = [\"output_tok_s\", "
                                   "\"output_tok_per_joule\"]`) finds a Pareto front; a person picks its best.")
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    front = verbs.add_parser("front", help="print the front: per point its flags and each objective's median, "
                                           "min–max and n, and which points are within the noise of another")
    front.add_argument("session")
    front.add_argument("search", metavar="SEARCH", help="a search id (q1) or name")
    front.add_argument("--json", action="store_true", help="one JSON object: the front, the noise, the pick")
    front.set_defaults(func=cmd_front)
    pick = verbs.add_parser("pick", help="record TRIAL's configuration, a point of the front, as the search's best "
                                         "(your choice; `cockpit tune` never makes it)")
    pick.add_argument("session")
    pick.add_argument("search", metavar="SEARCH", help="a search id (q1) or name")
    pick.add_argument("trial", type=int, metavar="TRIAL", help="a trial number on the front (or a relaunch of one)")
    pick.set_defaults(func=cmd_pick)


def _say(text: str, *, err: bool = False) -> None:
    print(sanitize(text, multiline=True), file=sys.stderr if err else sys.stdout, flush=True)


def cmd_front(args: argparse.Namespace) -> int:
    from cockpit.control.search.front_json import front_json
    from cockpit.control.search.front_lines import front_parts
    from cockpit.control.search.loop import find_search
    from cockpit.store.cli_load import load_or_report

    session = load_or_report(args.session)
    if session is None:
        return 1
    try:
        search = find_search(session, args.search)
    except ValueError as exc:
        _say(f"cockpit search front: {exc}", err=True)
        return 1
    if not search.multi:
        _say(f"cockpit search front: search {search.id} has one objective ({search.primary}): no front; "
             "`cockpit tune` names its best", err=True)
        return 1
    if args.json:
        print(json.dumps({"search": search.id, **front_json(search)}), flush=True)
        return 0
    head, parts, tail = front_parts(session, search)
    _say(head + (":" if parts else ""))
    for part in parts:
        _say(f"  {part}")
    if tail:
        _say(tail)
    return 0


def cmd_pick(args: argparse.Namespace) -> int:
    from cockpit.cli.session.file_cmds import edit_by_person
    from cockpit.control.search.loop import find_search
    from cockpit.model.edit.edits import EditError, SessionEditor
    from cockpit.model.search.pareto import pick_point

    def change(editor: SessionEditor) -> str:
        try:
            search = find_search(editor.session, args.search)
        except ValueError as exc:
            raise EditError(str(exc)) from exc
        chosen = pick_point(editor, search.id, args.trial)
        return f"search {search.id}: trial {chosen}'s configuration picked as the best (your choice)"
    return edit_by_person(args.session, change)
