"""Secrets never leave in an export or a diff: tokens in env and in launch commands are masked,
and anything shaped like a credential (a private key block, an issuer-prefixed token) in any text.

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


# Values that are credentials by their shape, whatever field holds them: a private key
# block (to its END line, or to the end of the text when cut), and tokens whose prefix
# names their issuer (Hugging Face, OpenAI / Anthropic, GitHub, GitLab, Slack, AWS), a JWT,
# an `Authorization: Bearer` value.
_KEY_BLOCK = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)", re.S)
_TOKEN_SHAPE = re.compile(
    r"(?<![A-Za-z0-9_-])(?:"
    r"hf_[A-Za-z0-9]{20,}"
    r"|sk-(?=[A-Za-z0-9_-]*[0-9])(?:[A-Za-z]+-)?[A-Za-z0-9_-]{20,}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"
    r"|glpat-[A-Za-z0-9_-]{20,}"
    r"|xox[abprs]-[A-Za-z0-9-]{10,}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    r")(?![A-Za-z0-9_-])"
    r"|(?<=[Bb]earer )[A-Za-z0-9._~+/-]{16,}=*")


def mask_secrets(text: str) -> str:
    """Mask what is a credential by its shape (key blocks, issuer-prefixed tokens) in any text."""
    if "-----BEGIN" in text:
        text = _KEY_BLOCK.sub(MASK, text)
    return _TOKEN_SHAPE.sub(MASK, text)


def holds_secret(text: str) -> bool:
    """Whether `text` has anything `mask_secrets` would mask."""
    return mask_secrets(text) != text


def is_secret_name(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def is_secret_flag(option: str) -> bool:
    """`--api-key`, `--hf-token`: an option whose value is a credential."""
    return bool(_SECRET_FLAG.match(option))


def redact_text(text: str) -> str:
    """Mask `NAME=value` for secret names, the value of `--api-key X`-like flags and
    whatever is a credential by its shape (`mask_secrets`)."""
    text = mask_secrets(text)
    text = _ASSIGN.sub(lambda m: f"{m.group(1)}={MASK}" if is_secret_name(m.group(1)) else m.group(0), text)
    return _FLAG.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)


def redact_env(env: dict[str, str]) -> dict[str, str]:
    """Values of secret names masked whole, others as text; a name that is itself a
    credential (a token pasted as the key) is masked too."""
    out: dict[str, str] = {}
    for key, value in env.items():
        shown = mask_secrets(key)
        if shown in out:  # two masked names stay two entries
            shown = f"{shown}#{len(out) + 1}"
        out[shown] = MASK if is_secret_name(key) or shown != key else redact_text(value)
    return out
