"""Secrets never leave in an export: tokens in env and in launch commands are masked."""

from __future__ import annotations

import re

MASK = "[REDACTED]"

# Env names that hold credentials (HF_TOKEN, OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, ...).
SECRET_NAME = re.compile(r"(TOKEN|API_?KEY|SECRET|PASSWORD|PASSWD|ACCESS_KEY|CREDENTIALS?)", re.I)

# A value ends at a blank or a backquote (the export wraps commands in `code`).
_ASSIGN = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)=(\"[^\"]*\"|'[^']*'|[^\s`]+)")
_FLAG = re.compile(
    r"(--(?:[A-Za-z0-9-]*(?:api-key|token|secret|password|passwd)[A-Za-z0-9-]*))(=|\s+)(\"[^\"]*\"|'[^']*'|[^\s`]+)",
    re.I,
)


def is_secret_name(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def redact_text(text: str) -> str:
    """Mask `NAME=value` for secret names and the value of `--api-key X`-like flags."""
    text = _ASSIGN.sub(lambda m: f"{m.group(1)}={MASK}" if is_secret_name(m.group(1)) else m.group(0), text)
    return _FLAG.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)


def redact_env(env: dict[str, str]) -> dict[str, str]:
    return {key: (MASK if is_secret_name(key) else redact_text(value)) for key, value in env.items()}
