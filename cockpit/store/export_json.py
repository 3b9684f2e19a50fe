"""`--format json`: the validated model, with the same redaction as the Markdown."""

from __future__ import annotations

import json
from typing import Any

from cockpit.ground.sanitize import json_inert
from cockpit.model.session import Session
from cockpit.store.redact import mask_secrets, redact_env, redact_text


def _masked(value: object) -> object:
    """Every string inside `value` (keys too) with credential-shaped text masked."""
    if isinstance(value, dict):
        return {mask_secrets(k): _masked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return mask_secrets(value) if isinstance(value, str) else value


def export_json(session: Session) -> str:
    data: dict[str, Any] = session.model_dump(mode="json", exclude_none=True)
    for profile in data.get("launch", []):
        profile["command"] = redact_text(profile["command"])
        if "env" in profile:
            profile["env"] = redact_env(profile["env"])
    for bench in data.get("benchmarks", []):
        if "notes" in bench:
            bench["notes"] = redact_text(bench["notes"])
    masked = _masked(data)  # a token pasted in any field (a note, a tag, a host's command) never leaves
    # Readable UTF-8, but no C1, bidi or zero-width character raw: those are \u escapes.
    return json_inert(json.dumps(masked, indent=2, ensure_ascii=False)) + "\n"
