"""Sessions on disk: canonical TOML, bounded and validated on read, atomically replaced on write."""

from __future__ import annotations

import dataclasses
import errno
import gc
import os
import re
import types
import typing
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Any

import tomli_w
from pydantic import BaseModel, ValidationError

try:  # tomllib's own upstream, compiled (mypyc): the same parser, ~2.7x faster on a big session
    import tomli as tomllib
except ImportError:  # pragma: no cover - tomli is a dependency; the stdlib copy is the same parser
    import tomllib  # type: ignore[no-redef]

from cockpit.model.session import Session
from cockpit.store import limits
from cockpit.store.atomic_write import SaveTooLargeError, SessionReadOnlyError, write_atomic  # noqa: F401 (callers save through here)
from cockpit.store.errors import Problem, SessionFileError
from cockpit.store.locate import KeyIndex, locate
from cockpit.store.migrations import MigrationError, migrate
from cockpit.store.signature import DiskSignature, signature_of

# A new session holds launch commands and env (HF_TOKEN, --api-key): only its owner reads it.
# An existing file keeps the mode its owner gave it.
NEW_SESSION_MODE = 0o600

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
    data: dict[str, Any] = _plain(session.model_dump(mode="python", exclude_none=True))
    return data


def dumps_session(session: Session) -> str:
    return "".join(_table_chunks(to_data(session), ""))


# tomli-w writes short arrays of tables inline and hoists them above every table, which
# scrambles the canonical section order and makes diffs noisy. Sessions always use
# `[[name]]` blocks: the tables are laid out here (tomli-w's own layout, every array of
# tables a block) and tomli-w formats each table's values (test_session_store pins it).
def _table_chunks(table: Mapping[str, Any], name: str, *, inside_aot: bool = False) -> Iterator[str]:
    literals: dict[str, Any] = {}
    tables: list[tuple[str, Mapping[str, Any], bool]] = []
    for key, value in table.items():
        if isinstance(value, Mapping):
            tables.append((key, value, False))
        elif isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
            tables.extend((key, item, True) for item in value)
        else:
            literals[key] = value
    yielded = False
    if inside_aot or (name and (literals or not tables)):
        yielded = True
        yield f"[[{name}]]\n" if inside_aot else f"[{name}]\n"
    if literals:
        yielded = True
        yield tomli_w.dumps(literals, multiline_strings=True)
    for key, value, in_aot in tables:
        if yielded:
            yield "\n"
        yielded = True
        part = _key_part(key)
        yield from _table_chunks(value, f"{name}.{part}" if name else part, inside_aot=in_aot)


def _key_part(key: str) -> str:
    """KEY as TOML writes it in a header: bare, or quoted where it has other characters."""
    return tomli_w.dumps({key: True})[: -len(" = true\n")]


def _loc_path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _problems_from_validation(exc: ValidationError, text: str) -> list[Problem]:
    problems = []
    index = KeyIndex(text)  # one scan of the text for every error
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
        line, col = index.locate(path)
        problems.append(Problem(line, col, f"{path}: {message}" if path else message))
    return limits.capped(sorted(problems, key=lambda p: (p.line, p.col)))


def _syntax_problem(exc: tomllib.TOMLDecodeError) -> Problem:
    match = _TOML_POS.search(str(exc))
    line, col = (int(match.group(1)), int(match.group(2))) if match else (1, 1)
    return Problem(line, col, f"TOML syntax: {_TOML_POS.sub('', str(exc)).strip()}")


def _parse(text: str, path: Path | str) -> dict[str, Any]:
    """tomllib.loads behind the bounds it does not keep itself; every failure positioned."""
    problem = limits.structure_problem(text)
    if problem is None:
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            problem = _syntax_problem(exc)
        except RecursionError:  # the scan bounds nesting; this is the net under it
            problem = Problem(1, 1, f"nested deeper than {limits.MAX_NESTING} arrays or inline tables")
        except ValueError as exc:  # Python's integer-digits limit; the scan bounds it first
            problem = Problem(1, 1, f"cannot parse: {exc}")
    raise SessionFileError(path, [problem])


def _size_limit(path: Path | str) -> int:
    try:
        return limits.max_session_bytes()
    except limits.SizeSettingError as exc:
        raise SessionFileError(path, [Problem(1, 1, str(exc))]) from None


def _check_size(size: int, limit: int, path: Path | str) -> None:
    problem = limits.size_problem(size, limit)
    if problem is not None:
        raise SessionFileError(path, [problem])


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Parsing and validating a big session makes ~100k dicts, strings and models and no
    cycles, yet the collector would walk the whole heap several times meanwhile (a third of
    a 5,000-task load): it waits until the session is built."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def loads_session(text: str, path: Path | str = "<string>") -> Session:
    """Parse, migrate and validate; any failure raises SessionFileError with positions."""
    with _collector_paused():
        return _loads_session(text, path)


def _loads_session(text: str, path: Path | str) -> Session:
    limit = _size_limit(path)
    # A character is 1 to 4 UTF-8 bytes: encode to count only when that decides it.
    size = len(text) if len(text) > limit or 4 * len(text) <= limit else len(text.encode("utf-8", "surrogatepass"))
    _check_size(size, limit, path)
    data = _parse(text, path)
    try:
        data, _version = migrate(data)
    except MigrationError as exc:
        line, col = locate(text, "schema_version")
        raise SessionFileError(path, [Problem(line, col, str(exc))]) from None
    except (TypeError, ValueError, AttributeError) as exc:  # an old file whose shape is off
        line, col = locate(text, "schema_version")
        raise SessionFileError(path, [Problem(line, col, f"cannot migrate this file: {exc}")]) from None
    unknown = _unknown_keys(data, Session, "")
    if len(unknown) > limits.MAX_PROBLEMS_LISTED:  # pydantic would build an error for each: listed here, capped
        listed = unknown[:limits.MAX_PROBLEMS_LISTED + 1]
        found = [Problem(*at, f"{key}: unknown key") for key, at in zip(listed, _early_lines(text, listed), strict=True)]
        problems = limits.capped(found)
        last = problems[-1]
        rest = len(unknown) - limits.MAX_PROBLEMS_LISTED
        many = f"{rest:,}" if len(unknown) <= _UNKNOWN_COUNTED else f"over {rest - 1:,}"
        problems[-1] = Problem(last.line, last.col, f"... and {many} more problems (fix these and check again)")
        raise SessionFileError(path, problems)
    try:
        return Session.model_validate(data)
    except ValidationError as exc:
        raise SessionFileError(path, _problems_from_validation(exc, text)) from None
    except RecursionError:
        raise SessionFileError(path, [Problem(1, 1, "nested too deeply to check")]) from None
    except (ArithmeticError, TypeError, ValueError) as exc:  # a check that failed on a value it did not expect
        raise SessionFileError(path, [Problem(1, 1, f"cannot check this file: {type(exc).__name__}: {exc}")]) from None


def _records_of(annotation: object) -> type | None:
    """The record type a field holds (itself, or in a list), for the unknown-key walk."""
    if isinstance(annotation, type) and (issubclass(annotation, BaseModel) or dataclasses.is_dataclass(annotation)):
        return annotation
    if typing.get_origin(annotation) is list:
        return _records_of(typing.get_args(annotation)[0])
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    return _records_of(args[0]) if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1 else None


_FIELDS: dict[type, dict[str, type | None]] = {}


def _fields_of(record: type) -> dict[str, type | None]:
    known = _FIELDS.get(record)
    if known is None:
        if isinstance(record, type) and issubclass(record, BaseModel):
            known = {name: _records_of(info.annotation) for name, info in record.model_fields.items()}
        else:
            known = {f.name: None for f in dataclasses.fields(typing.cast(Any, record))}
        _FIELDS[record] = known
    return known


_UNKNOWN_COUNTED = 10_000  # past this many, "more than" (the walk stops: bounded time and memory)


def _unknown_keys(data: object, record: type, where: str, most: int = _UNKNOWN_COUNTED) -> list[str]:
    """Paths of keys no record has, in file order; the walk stops past `most` of them."""
    out: list[str] = []
    stack: list[tuple[object, type, str]] = [(data, record, where)]
    while stack:
        item, kind, at = stack.pop()
        if not isinstance(item, dict):
            continue
        fields = _fields_of(kind)
        for key, value in item.items():
            if key not in fields:
                out.append(f"{at}.{key}" if at else str(key))
                if len(out) > most:
                    return out
                continue
            inner = fields[key]
            if inner is None:
                continue
            path = f"{at}.{key}" if at else str(key)
            if isinstance(value, list):
                stack += [(v, inner, f"{path}[{i}]") for i, v in reversed(list(enumerate(value)))]
            else:
                stack.append((value, inner, path))
    return out


def _early_lines(text: str, paths: list[str]) -> list[tuple[int, int]]:
    """(line, col) of keys found near the top of a big file: the index of every key of a
    10 MB file takes seconds, so only as much of the text as holds them is indexed."""
    size = 1 << 16
    while True:
        index = KeyIndex(text[:size])
        if size >= len(text) or all(p in index.table for p in paths):
            return [index.locate(p) for p in paths]
        size *= 4


def read_text(path: Path) -> str:
    """The file's text, refused before reading when it is over the size limit."""
    return read_text_with_signature(path)[0]


def read_text_with_signature(path: Path | str) -> tuple[str, DiskSignature]:
    """The file's text and the signature of the very file it was read from (fstat of the
    handle before reading: a change during the read makes the next look differ, never hides)."""
    path = Path(path)
    limit = _size_limit(path)
    with open(path, "rb") as handle:
        st = os.fstat(handle.fileno())
        _check_size(st.st_size, limit, path)
        raw = handle.read(limit + 1)  # a file that grew since, or a device that says size 0
    _check_size(len(raw), limit, path)
    return _decode(raw, path), signature_of(st)


def _decode(raw: bytes, path: Path) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        raise SessionFileError(path, [Problem(line, col, "not UTF-8 text")]) from None


def load_session(path: Path | str) -> Session:
    return load_session_with_signature(path)[0]


def load_session_with_signature(path: Path | str) -> tuple[Session, DiskSignature]:
    """The session and the signature of the read it came from: what a long-lived writer
    (SessionController) merges against, however long it waits before its first save."""
    path = Path(path)
    text, sig = read_text_with_signature(path)
    return loads_session(text, path), sig


def save_session(session: Session, path: Path | str) -> str:
    """Write the session canonically; returns the text written."""
    text = _savable_text(session, path)
    write_atomic(Path(path), text, new_mode=NEW_SESSION_MODE)
    return text


def save_session_with_signature(session: Session, path: Path | str) -> DiskSignature:
    """Write the session canonically; returns the signature of the file as written."""
    return signature_of(write_atomic(Path(path), _savable_text(session, path), new_mode=NEW_SESSION_MODE))


def _savable_text(session: Session, path: Path | str) -> str:
    """The canonical text, refused (SaveTooLargeError, nothing written) when the next load
    would refuse it for its size: a save must never make the session unloadable."""
    text = dumps_session(session)
    try:
        limit = limits.max_session_bytes()
    except limits.SizeSettingError:
        return text  # the load names the bad setting; a save is not the place to refuse it
    size = len(text) if 4 * len(text) <= limit else len(text.encode("utf-8", "surrogatepass"))
    problem = limits.size_problem(size, limit)
    if problem is not None:
        why = problem.message.removeprefix("file is ")
        raise SaveTooLargeError(errno.EFBIG, f"not saved: the session would be {why}; nothing was written "
                                             f"(remove or shorten something first)", str(path))
    return text


def check_new_texts(before: Session, after: Session) -> None:
    """ValueError naming each text a writer set over its bound (limits.py): one huge title
    or note from a tool call must not grow the file toward what a load refuses."""
    problems = limits.new_text_problems(to_data(after), to_data(before))
    if problems:
        raise ValueError("not saved, too long: " + "; ".join(problems[:5])
                         + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""))
