"""Untrusted text for widgets: sanitized (`cockpit.ground.sanitize`), never read as markup.

Everything a session file, a host or a log supplies goes through one of these on its way
to the screen:

* `safe(text)`: the sanitized string, for a part of `Content.assemble` (whose plain
  string parts are never parsed as markup) or a tuple `(safe(text), style)`;
* `inert(text, style)`: a `rich.text.Text`, for DataTable cells and SelectionList prompts;
* `plain(text)`: a `Content`, for `Static.update` and `border_title`, where a `str` would
  be parsed as Textual markup (`[/bogus]` raises, `[a-z]` is eaten);
* `inert_renderable(obj)`: a last pass over a `Content` or `Text` built elsewhere (the GPU
  and topology panes), keeping its styles.

Multi-line fields (notes, evidence, commands) pass `multiline=True` to keep their line
breaks; in a one-line field a line break is shown as ␊.
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Span as RichSpan
from rich.text import Text
from textual.content import Content, Span

from cockpit.ground.sanitize import UNSAFE_MULTILINE, sanitize


def safe(text: object, *, multiline: bool = False) -> str:
    """`text` (None -> "") sanitized, as a plain string."""
    if text is None:
        return ""
    return sanitize(text if isinstance(text, str) else str(text), multiline=multiline)


def inert(text: object, style: str | Style = "", *, multiline: bool = False, **kwargs: Any) -> Text:
    """A rich Text of the sanitized `text`: never markup."""
    return Text(safe(text, multiline=multiline), style=style, **kwargs)


def plain(text: object, *, multiline: bool = False) -> Content:
    """A Content of the sanitized `text`: never markup."""
    return Content(safe(text, multiline=multiline))


def _dirty(text: str) -> bool:
    return not text.isprintable() and UNSAFE_MULTILINE.search(text) is not None


def inert_renderable(obj: Any) -> Any:
    """The same `Content`, rich `Text` or `str` with its untrusted characters made visible
    (styles kept, each on the text it covered); a `str` comes back as plain `Content`."""
    if isinstance(obj, str):
        return plain(obj, multiline=True)
    if isinstance(obj, Content):
        if not _dirty(obj.plain):
            return obj
        cuts = sorted({0, len(obj.plain), *(s.start for s in obj.spans), *(s.end for s in obj.spans)})
        pieces = []
        for a, b in zip(cuts, cuts[1:]):
            piece = obj[a:b]
            text = sanitize(piece.plain, multiline=True)
            pieces.append(Content(text, [Span(0, len(text), s.style) for s in piece.spans]))
        return Content("").join(pieces)
    if isinstance(obj, Text):
        if not _dirty(obj.plain):
            return obj
        cuts = sorted({len(obj.plain), *(s.start for s in obj.spans), *(s.end for s in obj.spans)} - {0})
        out = obj.blank_copy()
        for part in obj.divide(cuts):
            shown = sanitize(part.plain, multiline=True)
            out.append_text(Text(shown, spans=[RichSpan(0, len(shown), s.style) for s in part.spans]))
        return out
    return obj
