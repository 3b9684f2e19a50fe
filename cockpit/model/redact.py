"""Secrets never leave in an export or a diff: tokens in env and in launch commands are masked.

In `model` (not `store`) so the profile diff masks its own output: `cockpit diff`, the
Launch tab, the timeline and the handoff all read one diff.
"""

from __future__ import annotations

import re

MASK = "[REDACTED]"

# Env names that hold credentials (HF_TOKEN, OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, ...).
SECRET_NAME = re.compile(r"(TOKEN|API_?KEY|SECRET|PASSWORD|PASSWD|ACCESS_KEY|CREDENTIALS?)", re.I)

# An option whose value is a credential: a secret word as a whole segment of its name
# (`--api-key`, `--hf-token`, `--admin-api-key`), so `--max-total-tokens` and
# `--tokenizer-path` keep their values.
_FLAG_NAME = r"--(?:[A-Za-z0-9]+[-_])*(?:api[-_]?key|token|secret|password|passwd|credentials?)(?:[-_][A-Za-z0-9]+)*"
_SECRET_FLAG = re.compile(_FLAG_NAME + r"$", re.I)

# A value ends at a blank or a backquote (the export wraps commands in `code`); the next
# option is not a value (`--hf-token-auth --tp 8`).
_ASSIGN = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)=(\"[^\"]*\"|'[^']*'|[^\s`]+)")
_FLAG = re.compile(rf"({_FLAG_NAME})(=|\s+)(?!--?[A-Za-z])(\"[^\"]*\"|'[^']*'|[^\s`]+)", re.I)


def is_secret_name(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def is_secret_flag(option: str) -> bool:
    """`--api-key`, `--hf-token`: an option whose value is a credential."""
    return bool(_SECRET_FLAG.match(option))


def redact_text(text: str) -> str:
    """Mask `NAME=value` for secret names and the value of `--api-key X`-like flags."""
    text = _ASSIGN.sub(lambda m: f"{m.group(1)}={MASK}" if is_secret_name(m.group(1)) else m.group(0), text)
    return _FLAG.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)


def redact_env(env: dict[str, str]) -> dict[str, str]:
    return {key: (MASK if is_secret_name(key) else redact_text(value)) for key, value in env.items()}
