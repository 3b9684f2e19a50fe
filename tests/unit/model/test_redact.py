"""Which values are secrets: credential options and env names, not tuning knobs."""

from __future__ import annotations

import pytest

from cockpit.ground.redact import is_secret_flag, redact_text


@pytest.mark.parametrize("option", ["--api-key", "--admin-api-key", "--hf-token", "--api_key", "--password"])
def test_credential_options_are_secret(option):
    assert is_secret_flag(option)
    assert redact_text(f"x {option} v1 --tp 8") == f"x {option} [REDACTED] --tp 8"
    assert redact_text(f"x {option}=v1") == f"x {option}=[REDACTED]"


@pytest.mark.parametrize(
    "option", ["--max-total-tokens", "--tokenizer-path", "--speculative-num-draft-tokens", "--max-prefill-tokens"]
)
def test_options_that_merely_mention_tokens_keep_their_values(option):
    assert not is_secret_flag(option)
    assert redact_text(f"x {option} 4096") == f"x {option} 4096"


def test_a_secret_switch_does_not_swallow_the_next_option():
    assert redact_text("x --hf-token --tp 8") == "x --hf-token --tp 8"
    assert redact_text("x --skip-tokenizer-init HF_TOKEN=abc") == "x --skip-tokenizer-init HF_TOKEN=[REDACTED]"
