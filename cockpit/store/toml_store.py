"""Sessions on disk: canonical TOML, validated on read, atomically replaced on write."""

from __future__ import annotations

import os
import re
import shutil
import tomllib
from enum import Enum
from pathlib import Path
from typing import Any

import tomli_w
import tomli_w._writer as _tomli_writer
from pydantic import ValidationError

from cockpit.model.session import Session
from cockpit.store.errors import Problem, SessionFileError
from cockpit.store.locate import locate
from cockpit.store.migrations import MigrationError, migrate

# tomli-w writes short arrays of tables inline and hoists them above every table, which
# scrambles the canonical section order and makes diffs noisy. Sessions always use
# `[[name]]` blocks; test_store pins this so a tomli-w upgrade cannot change it silently.
_tomli_writer.is_suitable_inline_table = lambda obj, ctx: False

_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")


def _plain(value: Any) -> Any:
    """Model dump -> what tomli-w writes: enums as values, empty lists and tables left out."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            item = _plain(item)
            if item is None or item == [] or item == {}:
                continue
            out[key] = item
        return out
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def to_data(session: Session) -> dict[str, Any]:
    return _plain(session.model_dump(mode="python", exclude_none=True))


def dumps_session(session: Session) -> str:
    return tomli_w.dumps(to_data(session), multiline_strings=True)


def _loc_path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _problems_from_validation(exc: ValidationError, text: str) -> list[Problem]:
    problems = []
    for err in exc.errors():
        ctx = err.get("ctx") or {}
        if err["type"] == "integrity":
            path, message = ctx["loc"], ctx["message"]
        else:
            path = _loc_path(tuple(err["loc"]))
            message = err["msg"].removeprefix("Value error, ")
            if err["type"] == "extra_forbidden":
                message = "unknown key"
            elif err["type"] == "enum":
                message = f"{message} (got {err['input']!r})"
            secret_key = re.match(r"'([^']+)': cockpit never stores", message)
            if secret_key:
                path = f"{path}.{secret_key.group(1)}"
        line, col = locate(text, path)
        problems.append(Problem(line, col, f"{path}: {message}" if path else message))
    return sorted(problems, key=lambda p: (p.line, p.col))


def loads_session(text: str, path: Path | str = "<string>") -> Session:
    """Parse, migrate and validate; any failure raises SessionFileError with positions."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = _TOML_POS.search(str(exc))
        line, col = (int(match.group(1)), int(match.group(2))) if match else (1, 1)
        message = _TOML_POS.sub("", str(exc)).strip()
        raise SessionFileError(path, [Problem(line, col, f"TOML syntax: {message}")]) from None
    try:
        data, _version = migrate(data)
    except MigrationError as exc:
        line, col = locate(text, "schema_version")
        raise SessionFileError(path, [Problem(line, col, str(exc))]) from None
    try:
        return Session.model_validate(data)
    except ValidationError as exc:
        raise SessionFileError(path, _problems_from_validation(exc, text)) from None


def read_text(path: Path) -> str:
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        raise SessionFileError(path, [Problem(line, col, "not UTF-8 text")]) from None


def load_session(path: Path | str) -> Session:
    path = Path(path)
    return loads_session(read_text(path), path)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: str, keep_backup: bool = True) -> None:
    """Temp file in the same folder, fsync, rename over; the old file kept as NAME.bak.

    At every instant `path` holds either the old or the new complete file.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    tmp = folder / f".{path.name}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    if keep_backup and path.exists():
        bak_tmp = folder / f".{path.name}.{os.getpid()}.bak.tmp"
        shutil.copyfile(path, bak_tmp)
        with open(bak_tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(bak_tmp, folder / f"{path.name}.bak")
    os.replace(tmp, path)
    _fsync_dir(folder)


def save_session(session: Session, path: Path | str) -> str:
    """Write the session canonically; returns the text written."""
    text = dumps_session(session)
    write_atomic(Path(path), text)
    return text
