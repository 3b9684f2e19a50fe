"""What a journal entry says about an edit: which field, from -> to ("status todo -> doing").

Values are shortened to one line of plain text: whitespace runs become one space, other
unprintable characters (controls, bidi marks) a `?`, secrets masked as in the handoff, and
anything longer than `MAX_VALUE` cut with an ellipsis. The journal is read on the timeline,
where a whole launch command or a note's paragraph would drown what changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from enum import Enum

from cockpit.ground.redact import MASK, is_secret_name, redact_text

MAX_VALUE = 40
NONE = "(none)"


def shown(value: object) -> str:
    """One value as the journal shows it."""
    if value is None or value == "" or value == [] or value == {}:
        return NONE
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, datetime):
        return value.isoformat(timespec="minutes")
    quoted = isinstance(value, str)  # a title or a note is quoted when it has blanks; lists are not
    if isinstance(value, Mapping):  # env: names, and values only where they are not secrets
        value = " ".join(f"{k}={MASK if is_secret_name(str(k)) else v}" for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        value = ", ".join(shown(v) for v in value)
    text = " ".join(redact_text(str(value)).split())
    text = "".join(c if c.isprintable() else "?" for c in text)
    if len(text) > MAX_VALUE:
        text = text[: MAX_VALUE - 1].rstrip() + "…"
    return f'"{text}"' if quoted and " " in text else text


def change(field: str, old: object, new: object) -> str:
    return f"{field} {shown(old)} -> {shown(new)}"


def changes(old: object, new: object, fields: Iterable[str]) -> str:
    """`field a -> b; field c -> d` for the fields whose value differs between two records."""
    said = [change(name, getattr(old, name), getattr(new, name))
            for name in fields if getattr(old, name) != getattr(new, name)]
    return "; ".join(said) or "nothing changed"
