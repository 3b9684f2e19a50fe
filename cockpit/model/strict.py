"""The ground every session record stands on: strict models that refuse secrets, short ids,
the clock. Split from session.py so that records defined in their own modules (a search)
can use it without importing the session."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from cockpit.model.ids import ID_PATTERN

Id = Annotated[str, Field(pattern=ID_PATTERN.pattern, description="short id such as t12")]
Text = Annotated[str, Field(min_length=1)]

# Every number a session holds is finite and of a size a figure can have: TOML writes `inf`,
# `nan` and 1e308, and each of those crashed or lied somewhere later (a step count, a mean,
# "the search's best"). Far over any tok/s, ms, watt or flag value; sums and products of a
# few such figures stay far from overflow. Fields narrow these further where they mean more.
MAX_FIGURE = 1e15
MAX_COUNT = 2**53  # integers: exact as floats too (a count divided, a figure rounded)
# gt/lt, not ge/le: on a field that is not optional, a bound given here replaces the field's
# own bound of the same kind (pydantic keeps the last), so `Float = Field(ge=0)` keeps both;
# a field bounded with gt or lt itself is a plain `float` with both its bounds (the model's
# allow_inf_nan=False still refuses inf and nan there). The property test checks both hold.
Float = Annotated[float, Field(allow_inf_nan=False, gt=-MAX_FIGURE, lt=MAX_FIGURE)]
Int = Annotated[int, Field(gt=-MAX_COUNT, lt=MAX_COUNT)]

# Key names that would carry a credential: refused wherever they appear.
SECRET_KEY_NAMES = re.compile(r"(^|_)(password|passwd|passphrase|private_key|secret_key)$", re.I)
PRIVATE_KEY_BLOCK = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")


def now() -> datetime:
    """The current time, to the second, in UTC (RFC 3339 with a zone when written)."""
    return datetime.now(UTC).replace(microsecond=0)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _unix_newlines(cls, value: object) -> object:
        # A session is a text file: CRLF pasted from a terminal is stored as LF.
        if isinstance(value, str) and "\r\n" in value:
            return value.replace("\r\n", "\n")
        return value

    @model_validator(mode="before")
    @classmethod
    def _refuse_secrets(cls, data: object) -> object:
        if isinstance(data, dict):
            records = _RECORD_FIELDS.get(cls)
            if records is None:
                records = _record_fields(cls)
            for key, value in data.items():
                if isinstance(value, str):
                    if "PRIVATE KEY" in value and PRIVATE_KEY_BLOCK.search(value):
                        raise ValueError(f"{key}: private key material is never stored in a session")
                # Records inside (a profile in `launch`) check themselves when they validate.
                elif value and key not in records and isinstance(value, dict | list | tuple):
                    why = _secret_in(value, str(key))
                    if why:
                        raise ValueError(why)
                if isinstance(key, str) and SECRET_KEY_NAMES.search(key):
                    raise ValueError(_password_said(key))
        return data


_RECORD_FIELDS: dict[type, frozenset[str]] = {}


def _record_fields(cls: type[BaseModel]) -> frozenset[str]:
    """Fields of `cls` that hold models (or lists of them), which refuse secrets themselves."""
    def models(tp: object) -> bool:
        return (isinstance(tp, type) and issubclass(tp, BaseModel)) or any(models(a) for a in get_args(tp))
    known = _RECORD_FIELDS[cls] = frozenset(n for n, f in cls.model_fields.items() if models(f.annotation))
    return known


def _password_said(name: str) -> str:
    return (f"'{name}': cockpit never stores passwords, passphrases or keys; "
            "use ssh-agent or an IdentityFile in ~/.ssh/config")


def _secret_in(value: object, where: str) -> str | None:
    """Why `value` may not be stored, looking into every table and list inside it (env keys
    and values, argv lists): a password-like key name or private key material."""
    stack: list[tuple[str, object]] = [(where, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            if "PRIVATE KEY" in item and PRIVATE_KEY_BLOCK.search(item):
                return f"{where}: private key material is never stored in a session"
        elif isinstance(item, dict):
            for key, inner in item.items():
                name = f"{where}.{key}"
                if isinstance(key, str) and SECRET_KEY_NAMES.search(key):
                    return _password_said(name)
                if isinstance(key, str) and "PRIVATE KEY" in key and PRIVATE_KEY_BLOCK.search(key):
                    return f"{where}: private key material is never stored in a session (in a key name)"
                stack.append((name, inner))
        elif isinstance(item, list | tuple):
            stack += [(f"{where}[{index}]", inner) for index, inner in enumerate(item)]
    return None
