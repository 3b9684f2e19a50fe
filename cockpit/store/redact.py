"""The exports' redaction; it lives in `cockpit.ground.redact` so diffs share it."""

from cockpit.ground.redact import (
    MASK,
    SECRET_NAME,
    holds_secret,
    is_secret_flag,
    is_secret_name,
    mask_secrets,
    redact_env,
    redact_text,
)

__all__ = ["MASK", "SECRET_NAME", "holds_secret", "is_secret_flag", "is_secret_name", "mask_secrets", "redact_env",
           "redact_text"]
