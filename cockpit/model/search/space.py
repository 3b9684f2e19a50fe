"""A search's configurations as launch commands: a trial's params applied to the base
profile (flags replaced, added or removed; env set or unset), the key that says two
configurations are the same, the derived profile's name (its diff from the base), and
the grid of a finite space. Pure functions over the model.
"""

from __future__ import annotations

import itertools
import shlex
from collections.abc import Iterator, Mapping

from cockpit.model.bench.profile_diff import launch_key
from cockpit.model.launch.flag_values import same_value
from cockpit.model.search.search import Search, SpaceValue, Stepped, show_value
from cockpit.model.session import LaunchProfile

__all__ = ["ConfigKey", "apply_params", "base_params", "command_key", "config_key", "derived_name", "grid", "normalise",
           "not_derived", "show_value", "changed_params"]

ConfigKey = tuple[tuple[str, str], ...]
ENV = "env:"
MAX_NAME_CHARS = 200  # a derived profile's name, its diff from the base: a label, cut there


def _is_option(word: str) -> bool:
    # `--x -1` takes a negative number as its value; `-x` and `--x` are options
    return word.startswith("-") and not word[1:2].isdigit() and not word[1:3].startswith(".")


def normalise(search: Search, params: Mapping[str, SpaceValue]) -> dict[str, SpaceValue]:
    """Params as the space holds them: a stepped value snapped to its grid (0.8600000001 ->
    0.86), an integer dimension's 128.0 -> 128. Keys outside the space are dropped."""
    out: dict[str, SpaceValue] = {}
    for key in search.space:
        if key not in params:
            continue
        value = params[key]
        dim = search.space[key]
        if isinstance(dim, Stepped) and not isinstance(value, bool | str):
            values = dim.values()
            out[key] = min(values, key=lambda v: abs(float(v) - float(value)))
        elif isinstance(value, float) and value.is_integer() and any(isinstance(v, int) and not isinstance(v, bool)
                                                                     for v in search.values_of(key)):
            out[key] = int(value)
        else:
            out[key] = value
    return out


def config_key(search: Search, params: Mapping[str, SpaceValue]) -> ConfigKey:
    """What makes two configurations the same launch (dedupe): normalised values, sorted keys."""
    norm = normalise(search, params)
    return tuple(sorted((k, show_value(v)) for k, v in norm.items()))


def _option_spans(argv: list[str], flag: str) -> list[tuple[int, int]]:
    """[start, end) of each occurrence of `flag` with its values (`--x v`, `--x=v`, `--x`)."""
    spans = []
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == flag:
            end = i + 1
            while end < len(argv) and not _is_option(argv[end]):
                end += 1
            spans.append((i, end))
            i = end
        elif word.startswith(flag + "="):
            spans.append((i, i + 1))
            i += 1
        else:
            i += 1
    return spans


def _set_flag(argv: list[str], flag: str, value: SpaceValue) -> list[str]:
    spans = _option_spans(argv, flag)
    for start, end in reversed(spans):
        del argv[start:end]
    if value is False:
        return argv  # a switch off: absent
    words = [flag] if value is True else [flag, show_value(value)]
    at = spans[0][0] if spans else len(argv)
    argv[at:at] = words
    return argv


def apply_params(base: LaunchProfile, params: Mapping[str, SpaceValue]) -> tuple[str, dict[str, str]]:
    """The base profile's command and env with `params` applied: flags replaced in place,
    added at the end or (a switch set false) removed; env set, or unset for false."""
    argv = shlex.split(base.command)
    env = dict(base.env)
    for key, value in params.items():
        if key.startswith(ENV):
            name = key[len(ENV):]
            if value is False:
                env.pop(name, None)
            else:
                env[name] = "1" if value is True else show_value(value)
        else:
            argv = _set_flag(argv, key, value)
    return shlex.join(argv), env


def _word_key(word: str) -> str:
    """A command word with its number normalised (`0.80` and `0.8` are one value; `=` forms too)."""
    flag, eq, value = word.partition("=") if word.startswith("--") else ("", "", word)
    try:
        number = float(value)
    except ValueError:
        return word
    if number != number or number in (float("inf"), float("-inf")):  # nan/inf: as written
        return word
    return f"{flag}{eq}{show_value(int(number) if number.is_integer() else number)}"


def command_key(command: str) -> tuple[str, ...]:
    """What makes two commands the same launch: their words, numbers normalised (`0.8` == `0.80`)."""
    try:
        return tuple(_word_key(w) for w in shlex.split(command))
    except ValueError:
        return (command,)


def not_derived(search: Search, base: LaunchProfile, params: Mapping[str, SpaceValue], host: str | None,
                profile: LaunchProfile, *, local_host: bool = False) -> str | None:
    """Why `profile` is not the base plus the space's flags for a trial with `params` on `host`
    (what the person's seal of the search covers); None when it is exactly that. `local_host`:
    the session has a host named `local` (the sandbox's), so a derived profile names it, as
    the search derives it (control/search/loop._where)."""
    for key, value in params.items():
        if key not in search.space:
            return f"{key} is not a dimension of the space"
        if show_value(value) not in {show_value(v) for v in search.values_of(key)}:
            return f"{key} {show_value(value)} is not a value of the space"
    full = dict(params)
    if host in search.ports:
        full["--port"] = search.ports[host]
    command, env = apply_params(base, full)
    # one launch as the search's reuse reads it (loop._same_profile): its words in any order,
    # numbers normalised (`0.80` is `0.8`), so a profile the search reuses is the one sealed
    if launch_key(profile.command, {}, None) != launch_key(command, {}, None):
        return "its command is not the base's with the trial's flags"
    if launch_key(profile.command, profile.env, None) != launch_key(command, env, None):
        return "its env is not the base's with the trial's variables"
    if profile.python != base.python:
        return "its python is not the base's"
    if profile.host != (host if host != "local" or local_host else None):
        return f"it runs on {profile.host or 'local'}, not on the trial's host {host or 'local'}"
    return None


def base_params(search: Search, base: LaunchProfile) -> dict[str, str | None]:
    """What the base profile has for each dimension, as text (None: absent; "" a switch present)."""
    argv = shlex.split(base.command)
    out: dict[str, str | None] = {}
    for key in search.space:
        if key.startswith(ENV):
            out[key] = base.env.get(key[len(ENV):])
            continue
        spans = _option_spans(argv, key)
        if not spans:
            out[key] = None
        else:
            start, end = spans[-1]
            word = argv[start]
            out[key] = word.partition("=")[2] if "=" in word else " ".join(argv[start + 1:end])
    return out


def changed_params(search: Search, base: LaunchProfile, params: Mapping[str, SpaceValue]) -> dict[str, SpaceValue]:
    """The params that change the base command (a value it already has is no change)."""
    had = base_params(search, base)
    out: dict[str, SpaceValue] = {}
    for key, value in normalise(search, params).items():
        old = had.get(key)
        if value is True and old is not None and (old == "" or key.startswith(ENV) and old == "1"):
            continue
        if value is False and old is None:
            continue
        if not isinstance(value, bool) and same_value(old, show_value(value)):  # 0.80 is 0.8
            continue
        out[key] = value
    return out


def derived_name(search: Search, base: LaunchProfile, params: Mapping[str, SpaceValue]) -> str:
    """`l1 · --cuda-graph-max-bs 128 --enable-torch-compile` (the trial's diff from the base)."""
    words = []
    for key, value in changed_params(search, base, params).items():
        if value is True:
            words.append(key if not key.startswith(ENV) else f"{key[len(ENV):]}=1")
        elif value is False:
            words.append(f"no {key}" if not key.startswith(ENV) else f"no {key[len(ENV):]}")
        elif key.startswith(ENV):
            words.append(f"{key[len(ENV):]}={show_value(value)}")
        else:
            words.append(f"{key} {show_value(value)}")
    shown = " ".join(words) or "as the base"
    if len(shown) > MAX_NAME_CHARS:  # a label: the command holds the whole configuration
        shown = shown[:MAX_NAME_CHARS].rsplit(" ", 1)[0] + " …"
    return f"{base.id} · {shown}"


def grid(search: Search) -> Iterator[dict[str, SpaceValue]]:
    """Every configuration of the space, in order (the exhaustive grid)."""
    keys = list(search.space)
    for combo in itertools.product(*(search.values_of(k) for k in keys)):
        yield dict(zip(keys, combo, strict=True))
