"""How long a text a session may hold: one definition, applied where a writer sets a text
(store/toml_store.check_new_texts), by `cockpit check` (store/limits.text_limit_problems),
and by a search's space (model/integrity.py: the longest derived command fits).

A title, a name, a label or a claim is a line or a paragraph; notes, evidence, commands and
the journal's text may be pages. Both far over what a person writes, far under what would
let five tool calls fill the file past the size a load accepts.
"""

from __future__ import annotations

__all__ = ["LONG_TEXT_KEYS", "MAX_LONG_TEXT", "MAX_SHORT_TEXT", "long_texts", "text_bound"]

MAX_SHORT_TEXT = 16 * 1024
MAX_LONG_TEXT = 64 * 1024
LONG_TEXT_KEYS = frozenset({
    "notes", "evidence", "command", "text", "change", "summary", "log_command", "next_step", "fallback",
    "description", "broken_reason",
})


def text_bound(key: str) -> int:
    return MAX_LONG_TEXT if key in LONG_TEXT_KEYS else MAX_SHORT_TEXT


def long_texts(data: object, where: str = "", key: str = "") -> list[tuple[str, str, int]]:
    """(path, text, bound) of every string in DATA longer than its key's bound."""
    found: list[tuple[str, str, int]] = []
    stack: list[tuple[object, str, str]] = [(data, where, key)]
    while stack:
        item, path, name = stack.pop()
        if isinstance(item, str):
            if len(item) > MAX_SHORT_TEXT and len(item) > text_bound(name):
                found.append((path, item, text_bound(name)))
        elif isinstance(item, dict):
            for sub, value in item.items():
                stack.append((value, f"{path}.{sub}" if path else str(sub), str(sub)))
        elif isinstance(item, list):
            for index, value in enumerate(item):
                stack.append((value, f"{path}[{index}]", name))
    return found
