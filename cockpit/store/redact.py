"""The exports' redaction; it lives in `cockpit.model.redact` so diffs share it."""

from cockpit.model.redact import MASK, SECRET_NAME, is_secret_flag, is_secret_name, redact_env, redact_text

__all__ = ["MASK", "SECRET_NAME", "is_secret_flag", "is_secret_name", "redact_env", "redact_text"]
