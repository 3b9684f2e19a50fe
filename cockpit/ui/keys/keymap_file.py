"""Your own keys: `$XDG_CONFIG_HOME/cockpit/keymap.toml` maps binding ids to keys.

    "tasks.add" = "n"          # the ids are the `?` screen's and the palette's actions
    "log.search" = "ctrl+f,/"  # alternates, comma separated

An unknown id, a tmux prefix (ctrl+a, ctrl+b), a key another action of the same scope
already uses, or a broken file (reported as file:line:col) is skipped with a message;
the rest applies. No Textual import: the app passes the result to `App.set_keymap`.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

from cockpit.ui.keys.actions import ACTIONS, BY_ID, FORBIDDEN_KEYS

_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def keymap_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "cockpit" / "keymap.toml"


def load_keymap(path: Path | None = None) -> tuple[dict[str, str], list[str]]:
    """(binding id -> keys, one message per problem); a missing file is no keymap."""
    path = path or keymap_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, []
    except OSError as exc:
        return {}, [f"{path}: {exc.strerror or exc}"]
    except tomllib.TOMLDecodeError as exc:
        m = _AT.search(str(exc))
        where = f"{path}:{m.group(1)}:{m.group(2)}" if m else str(path)
        return {}, [f"{where}: {_AT.sub('', str(exc)).strip()}"]
    keymap: dict[str, str] = {}
    problems: list[str] = []
    for ident, keys in data.items():
        spec = BY_ID.get(ident)
        if spec is None:
            problems.append(f"{path}: no action {ident!r} (the ids are listed by ? in cockpit)")
            continue
        if not isinstance(keys, str) or not keys.strip() or not keys.isprintable():  # shown in the footer
            problems.append(f"{path}: {ident}: keys must be a string like \"n\" or \"ctrl+f,/\"")
            continue
        wanted = [k.strip() for k in keys.split(",") if k.strip()]
        if FORBIDDEN_KEYS & set(wanted):
            problems.append(f"{path}: {ident}: {', '.join(sorted(FORBIDDEN_KEYS & set(wanted)))} is a tmux prefix")
            continue
        keymap[ident] = ",".join(wanted)
    problems += _collisions(keymap, path)
    return keymap, problems


def _collisions(keymap: dict[str, str], path: Path) -> list[str]:
    """Drop (and report) overrides whose key another action of the same scope then uses."""
    problems = []
    for ident in list(keymap):
        scope = BY_ID[ident].scope
        mine = set(keymap[ident].split(","))
        for other in ACTIONS:
            if other.id == ident or other.scope != scope:
                continue
            theirs = set(keymap.get(other.id, other.keys).split(","))
            if mine & theirs:
                problems.append(f"{path}: {ident}: {', '.join(sorted(mine & theirs))} is already {other.id}")
                del keymap[ident]
                break
    return problems
