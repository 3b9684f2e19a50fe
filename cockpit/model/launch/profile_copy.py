"""A launch command with some flags changed: `cockpit add profile NAME --from l1 --set
--cuda-graph-max-bs=128 --unset --enable-torch-compile` (the usual step of a campaign: a
copy of a profile with one flag changed).

The command is read as model/bench/profile_diff.py reads it (every option takes the words after it up
to the next option). `--set FLAG=VALUE` replaces every occurrence of FLAG (`--x v`,
`--x=v`, `--x a b`) with `FLAG VALUE` where FLAG first stood, or adds it at the end; VALUE
of several words (`--set "--cuda-graph-bs=1 2 4"`) gives the flag several words. `--set
FLAG` without `=` sets a switch. `--unset FLAG` removes every occurrence; a flag the
command does not have is an error, not a silent no-op.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["FlagChange", "apply_changes", "parse_set", "parse_unset"]

_NUMBER = re.compile(r"-\d|-\.\d")  # `--x -1`: a negative value, not an option


@dataclass(frozen=True, slots=True)
class FlagChange:
    flag: str
    words: tuple[str, ...] | None
    """The value's words (() for a switch); None: remove the flag."""


def _is_option(word: str) -> bool:
    return word.startswith("-") and len(word) > 1 and not _NUMBER.match(word)


def _flag(text: str, how: str, typed: str) -> str:
    if not _is_option(text) or any(c.isspace() for c in text):
        raise ValueError(f"{how} {typed!r}: a flag starts with - (e.g. {how} --cuda-graph-max-bs=128)")
    return text


def parse_set(text: str) -> FlagChange:
    """`--x=VALUE` (the value's words split as a shell would) or `--x` (a switch)."""
    flag, eq, value = text.partition("=")
    flag = _flag(flag, "--set", text)
    if not eq:
        return FlagChange(flag, ())
    try:
        words = tuple(shlex.split(value)) or ("",)
    except ValueError as exc:
        raise ValueError(f"--set {text!r}: {exc}") from None
    return FlagChange(flag, words)


def parse_unset(text: str) -> FlagChange:
    return FlagChange(_flag(text, "--unset", text), None)


def _spans(argv: list[str], flag: str) -> list[tuple[int, int]]:
    """[start, end) of each occurrence of `flag` with its values, past the program's words."""
    spans = []
    i = next((n for n, w in enumerate(argv) if _is_option(w)), len(argv))
    while i < len(argv):
        word = argv[i]
        end = i + 1
        if word == flag:
            while end < len(argv) and not _is_option(argv[end]):
                end += 1
            spans.append((i, end))
        elif word.startswith(flag + "="):
            spans.append((i, end))
        i = end
    return spans


def apply_changes(command: str, changes: Sequence[FlagChange]) -> str:
    """The command with each change made in order. ValueError: a flag to unset is absent."""
    argv = shlex.split(command)
    for change in changes:
        spans = _spans(argv, change.flag)
        if change.words is None and not spans:
            raise ValueError(f"--unset {change.flag}: the command has no {change.flag}")
        at = spans[0][0] if spans else len(argv)
        for start, end in reversed(spans):
            del argv[start:end]
        if change.words is not None:
            argv[at:at] = [change.flag, *change.words]
    return shlex.join(argv)
