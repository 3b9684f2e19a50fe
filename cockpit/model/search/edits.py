"""Searches added and edited through a SessionEditor (journaled, one undo step each), and the
space as a person types it on a command line or in a form:
`cuda-graph-max-bs=32,64,128` (the leading -- may be left out), `mem-fraction-static=0.80:0.92:0.02`,
`enable-torch-compile=switch` (present or absent), `env:SGLANG_X=a,b`."""

from __future__ import annotations

from cockpit.model.edit.edits import EditError, SessionEditor
from cockpit.model.ids import next_id
from cockpit.model.search.search import Search, SpaceValue, Stepped
from cockpit.model.session import Session

__all__ = ["add_search", "edit_search", "parse_dimension", "space_text"]


def _scalar(word: str) -> SpaceValue:
    low = word.lower()
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(word)
        except ValueError:
            pass
    return word


def parse_dimension(text: str) -> tuple[str, list[SpaceValue] | Stepped]:
    """`--flag=a,b,c` | `--flag=low:high:step` | `--flag=switch` -> (key, dimension)."""
    key, eq, values = text.strip().partition("=")
    if not eq or not key or not values.strip():
        raise EditError(f"{text!r}: a dimension is NAME=v1,v2,... or NAME=low:high:step or NAME=switch")
    values = values.strip()
    if not key.startswith(("--", "env:")):
        key = "--" + key  # `--space cuda-graph-max-bs=...`: argparse would take `--cuda...` for an option
    if values == "switch":
        return key, [True, False]
    parts = values.split(":")
    if len(parts) == 3 and "," not in values:
        try:
            return key, Stepped(low=float(parts[0]), high=float(parts[1]), step=float(parts[2]))
        except ValueError as exc:
            raise EditError(f"{key}: {exc.errors()[0]['msg'] if hasattr(exc, 'errors') else exc}") from exc
    return key, [_scalar(v.strip()) for v in values.split(",") if v.strip()]


def space_text(search: Search) -> str:
    """The space as one line per dimension, as `parse_dimension` reads it (the form's text)."""
    lines = []
    for key, dim in search.space.items():
        if isinstance(dim, Stepped):
            lines.append(f"{key}={dim.low:g}:{dim.high:g}:{dim.step:g}")
        elif dim == [True, False]:
            lines.append(f"{key}=switch")
        else:
            lines.append(f"{key}=" + ",".join(str(v).lower() if isinstance(v, bool) else str(v) for v in dim))
    return "\n".join(lines)


def add_search(editor: SessionEditor, **fields: object) -> str:
    """Add a search; returns its id (q1, q2, ...). EditError names what is wrong."""
    ident = next_id("q", (s.id for s in editor.session.searches))

    def change(s: Session) -> str:
        s.searches = [*s.searches, Search.model_validate({**fields, "id": ident})]
        return ident
    return editor.apply(f"search added: {fields.get('name', ident)}", change, kind="search.added", ref=ident)


def edit_search(editor: SessionEditor, ident: str, **fields: object) -> None:
    def change(s: Session) -> None:
        old = next((q for q in s.searches if q.id == ident), None)
        if old is None:
            raise KeyError(f"no search with id '{ident}'")
        new = Search(**{**old.model_dump(), **fields})
        s.searches = [new if q.id == ident else q for q in s.searches]
    editor.apply(f"search {ident} edited: {', '.join(sorted(fields))}", change, kind="search.edited", ref=ident)
