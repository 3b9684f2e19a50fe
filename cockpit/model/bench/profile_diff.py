"""What differs between two launch profiles: program, options, env and host.

A launch command is read the way `sglang.launch_server`'s argparse reads it: leading
`NAME=value` words are environment, the words before the first option are the program
(with `python -m MODULE`),
and every option (`--x`, `--x=v`, `-x`) takes the words after it up to the next option
(none: a switch; several: `--cuda-graph-bs 1 2 4`). Options compare by name, so their order
does not matter; a repeated option keeps every occurrence, in order. Values compare as
numbers where they are numbers (`0.80` is `0.8`: model/launch/flag_values.py).

Secrets are masked in the diff itself, as in the exports: the value of a credential
option (`--api-key`) or env name (`HF_TOKEN`) shows as `[REDACTED]`, and `NAME=secret`
inside any other value too. A secret that differs still shows as changed.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from cockpit.ground.redact import MASK, holds_secret, is_secret_flag, is_secret_name, mask_secrets, redact_text
from cockpit.model.launch.flag_values import canonical_value, canonical_values
from cockpit.model.session import LaunchProfile

_ENV_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_NUMBER = re.compile(r"-\d|-\.\d")  # `--x -1`: a negative value, not an option
_PYTHON = re.compile(r"python[\d.]*$")
_V = TypeVar("_V")


@dataclass(frozen=True, slots=True)
class CommandParts:
    env: dict[str, str]
    program: str
    options: dict[str, tuple[str, ...]]
    """option -> its value text per occurrence ("" for a switch)."""


@dataclass(frozen=True, slots=True)
class Change:
    name: str
    old: str | None  # None: not in the base
    new: str | None  # None: not in the other

    @property
    def kind(self) -> str:
        return "added" if self.old is None else "removed" if self.new is None else "changed"


@dataclass(frozen=True, slots=True)
class ProfileDiff:
    base: LaunchProfile
    other: LaunchProfile
    program: Change | None
    host: Change | None
    options: tuple[Change, ...]
    env: tuple[Change, ...]
    same_options: int

    @property
    def identical(self) -> bool:
        return not (self.program or self.host or self.options or self.env)

    def to_dict(self) -> dict[str, object]:
        def rows(changes: tuple[Change, ...]) -> list[dict[str, str | None]]:
            return [{"name": c.name, "change": c.kind, "old": c.old, "new": c.new} for c in changes]
        return {
            "base": self.base.id, "other": self.other.id,
            "program": None if self.program is None else {"old": self.program.old, "new": self.program.new},
            "host": None if self.host is None else {"old": self.host.old, "new": self.host.new},
            "options": rows(self.options), "env": rows(self.env), "same_options": self.same_options,
        }


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:  # an unclosed quote: still show something sensible
        return command.split()


def _is_option(word: str) -> bool:
    return word.startswith("-") and len(word) > 1 and not _NUMBER.match(word)


def is_python(word: str) -> bool:
    """`python`, `python3.12`, `/opt/venv/bin/python3`: a Python interpreter."""
    return bool(_PYTHON.match(word.rsplit("/", 1)[-1]))


def interpreter(command: str) -> str | None:
    """The Python interpreter a launch command runs (after its env words), if it runs one."""
    program = _words(split_command(command).program)
    return program[0] if program and is_python(program[0]) else None


def split_command(command: str) -> CommandParts:
    words = _words(command)
    env: dict[str, str] = {}
    i = 0
    while i < len(words) and _ENV_WORD.match(words[i]):
        key, _, value = words[i].partition("=")
        env[key] = value
        i += 1
    program: list[str] = []
    while i < len(words) and not _is_option(words[i]):
        program.append(words[i])
        i += 1
        if is_python(program[-1]) and i + 1 < len(words) and words[i] == "-m":
            program += words[i:i + 2]  # `python -m sglang.launch_server` is the program
            i += 2
    options: dict[str, list[str]] = {}
    while i < len(words):
        name, eq, inline = words[i].partition("=")
        i += 1
        values = [inline] if eq else []
        while not eq and i < len(words) and not _is_option(words[i]):
            values.append(words[i])
            i += 1
        options.setdefault(name, []).append(shlex.join(values) if len(values) > 1 else "".join(values))
    return CommandParts(env, shlex.join(program), {k: tuple(v) for k, v in options.items()})


def _show(values: tuple[str, ...]) -> str:
    return " ; ".join(values)


def _changes(old: Mapping[str, _V], new: Mapping[str, _V], show: Callable[[_V], str],
             key: Callable[[_V], object]) -> tuple[list[Change], int]:
    """`key`: what a value compares as (numbers as numbers: model/launch/flag_values.py)."""
    changes: list[Change] = []
    same = 0
    for name in list(old) + [n for n in new if n not in old]:
        if name not in new:
            changes.append(Change(name, show(old[name]), None))
        elif name not in old:
            changes.append(Change(name, None, show(new[name])))
        elif key(old[name]) != key(new[name]):
            changes.append(Change(name, show(old[name]), show(new[name])))
        else:
            same += 1
    return changes, same


def diff_profiles(base: LaunchProfile, other: LaunchProfile) -> ProfileDiff:
    """`other` against `base`: what a user changes to go from base to other, secrets masked."""
    a, b = split_command(base.command), split_command(other.command)
    options, same = _changes(a.options, b.options, _show, canonical_values)
    env, _ = _changes({**base.env, **a.env}, {**other.env, **b.env}, str, canonical_value)
    return ProfileDiff(
        base=base, other=other,
        program=_masked(Change("program", a.program, b.program), False) if a.program != b.program else None,
        host=_masked(Change("host", base.host, other.host), False) if base.host != other.host else None,
        options=tuple(_masked(c, is_secret_flag(c.name)) for c in options),
        env=tuple(_masked(c, is_secret_name(c.name) or holds_secret(c.name)) for c in env), same_options=same,
    )


def _masked(change: Change, secret: bool) -> Change:
    """The change with its values redacted: wholly for a secret name, else `NAME=secret` inside."""
    def hide(value: str | None) -> str | None:
        if not value:  # absent, or a switch: nothing to hide
            return value
        return MASK if secret else redact_text(value)
    return Change(mask_secrets(change.name), hide(change.old), hide(change.new))  # a token pasted as a name


def _line(c: Change, joined: Callable[[str, str | None], str], empty: str) -> tuple[str, str]:
    """One change as a line: `joined(name, value)` writes an added or removed entry."""
    if c.kind == "changed":
        return "changed", f"~ {c.name}: {c.old or empty} -> {c.new or empty}"
    sign, value = ("+", c.new) if c.kind == "added" else ("-", c.old)
    return c.kind, f"{sign} {joined(c.name, value)}"


def diff_lines(diff: ProfileDiff) -> list[tuple[str, str]]:
    """The diff as a person reads it: (kind, text) per line, kind being "heading", "added",
    "removed", "changed" or "note". Shared by `cockpit diff`, the Launch tab and the handoff."""
    if diff.identical:
        return [("note", "The two profiles launch the same command.")]
    out: list[tuple[str, str]] = []
    if diff.options or diff.same_options:
        out.append(("heading", "Options"))
        out += [_line(c, lambda n, v: f"{n} {v}" if v else n, "(switch)") for c in diff.options]
        if diff.same_options:
            out.append(("note", f"{diff.same_options} option(s) the same"))
    if diff.env:
        out.append(("heading", "Env"))
        out += [_line(c, lambda n, v: f"{n}={v}", "") for c in diff.env]
    for change in (diff.host, diff.program):
        if change is not None:
            out += [("heading", change.name.capitalize()),
                    ("changed", f"~ {change.old or '(none)'} -> {change.new or '(none)'}")]
    return out


LaunchKey = tuple[str | None, str, frozenset[tuple[str, tuple[str, ...]]], frozenset[tuple[str, str]]]


def launch_key(command: str, env: Mapping[str, str], host: str | None) -> LaunchKey:
    """What makes two launches the same: host, program, options in any order and env, with
    values compared as numbers where they are numbers (`0.80` is `0.8`). Two profiles with
    equal keys have an identical diff."""
    parts = split_command(command)
    options = frozenset((name, canonical_values(values)) for name, values in parts.options.items())
    merged = {**env, **parts.env}
    return host, parts.program, options, frozenset((k, canonical_value(v)) for k, v in merged.items())
