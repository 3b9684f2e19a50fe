"""Schema migrations: raw TOML data of an older `schema_version` brought to the current one.

Each step takes the plain dict of version N and returns the dict of version N+1; a file
is migrated in memory and written in the new form only when the user saves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cockpit.model.session import SCHEMA_VERSION

Data = dict[str, Any]

# Version 0 (the first drafts) called the task columns by the handoff's words.
_V0_COLUMNS = {"not_yet": "todo", "in_progress": "doing", "done": "done", "blocked": "blocked"}


def _v0_to_v1(data: Data) -> Data:
    out = dict(data)
    goal = dict(out.get("goal", {}))
    if "text" in goal:
        goal["summary"] = goal.pop("text")
    if goal:
        out["goal"] = goal
    tasks = []
    for task in out.get("tasks", []):
        task = dict(task)
        if "column" in task:
            task["status"] = _V0_COLUMNS.get(task.pop("column"), "todo")
        tasks.append(task)
    if tasks:
        out["tasks"] = tasks
    # v0 kept the last action as a bare string with its next step beside it.
    if isinstance(out.get("last_action"), str):
        action = {"text": out.pop("last_action")}
        for key in ("next_step", "fallback"):
            if key in out:
                action[key] = out.pop(key)
        out["last_action"] = action
    out["schema_version"] = 1
    return out


MIGRATIONS: dict[int, Callable[[Data], Data]] = {0: _v0_to_v1}


class MigrationError(ValueError):
    pass


def migrate(data: Data) -> tuple[Data, int]:
    """Return (data at the current version, the version it was read at)."""
    version = data.get("schema_version", 0)
    if not isinstance(version, int):
        raise MigrationError("schema_version must be an integer")
    found = version
    if version > SCHEMA_VERSION:
        raise MigrationError(
            f"schema_version {version} is newer than this cockpit understands ({SCHEMA_VERSION}); upgrade cockpit"
        )
    while version < SCHEMA_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise MigrationError(f"no migration from schema_version {version}")
        data = step(data)
        version = data["schema_version"]
    return data, found
