"""Private-key blocks are refused in any field, nested ones included; token-shaped values are
masked on every surface that shows or exports a session (diff, handoff, export, MCP)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client
from pydantic import ValidationError

from cockpit.assistant.mcp_server import build_server
from cockpit.ground.redact import mask_secrets, redact_env
from cockpit.model.bench.profile_diff import diff_lines, diff_profiles
from cockpit.model.session import LaunchProfile, Session, Sweep
from cockpit.store.export_json import export_json
from cockpit.store.handoff.markdown import render_handoff
from cockpit.store.toml_store import dumps_session, save_session

KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"
HF = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
OPENAI = "sk-proj-4f9a8B7c6D5e4F3g2H1i0JkLmNoP"


@pytest.mark.parametrize("fields, where", [
    ({"env": {"SSH_KEY": KEY}}, "env.SSH_KEY"),
    ({"env": {KEY: "1"}}, "env"),
    ({"env": {"DEPLOY_PRIVATE_KEY": "x"}}, "env.DEPLOY_PRIVATE_KEY"),
])
def test_a_private_key_anywhere_in_a_profile_is_refused_naming_where(fields, where):
    with pytest.raises(ValidationError) as info:
        LaunchProfile(id="l1", name="tp8", command="python -m sglang.launch_server", **fields)
    assert where in str(info.value) and ("private key" in str(info.value) or "never stores" in str(info.value))


def test_a_private_key_in_a_list_or_a_nested_table_is_refused():
    with pytest.raises(ValidationError, match=r"extra_args\[1\]: private key"):
        Sweep(id="s1", name="chat", extra_args=["--header", KEY])
    with pytest.raises(ValidationError, match="private key"):
        Session.model_validate({"ui": {"selection": {"tasks.todo": KEY}}})


def test_check_refuses_a_session_with_a_key_in_an_env_value(tmp_path: Path):
    path = tmp_path / "s.toml"
    path.write_text('schema_version = 1\n\n[[launch]]\nid = "l1"\nname = "tp8"\ncommand = "sglang serve"\n'
                    '[launch.env]\nSSH_KEY = """' + KEY + '"""\n')
    done = subprocess.run([sys.executable, "-m", "cockpit", "check", str(path)], capture_output=True, text=True)
    assert done.returncode != 0 and "private key material is never stored" in done.stdout + done.stderr


async def test_mcp_refuses_a_profile_with_a_key_in_its_env_and_the_file_is_unchanged(example_copy: Path):
    before = example_copy.read_bytes()
    async with Client(build_server(example_copy)) as c:
        result = await c.call_tool("add_launch_profile", {"profile": {
            "name": "keyed", "command": "sglang serve", "env": {"SSH_KEY": KEY}}})
    assert result.is_error and "private key" in result.content[0].text  # type: ignore[union-attr]
    assert example_copy.read_bytes() == before


def test_token_shapes_are_masked_in_any_text_and_in_env_names():
    text = f"logged in with {HF}, then export OPENAI={OPENAI}; Authorization: Bearer abcdefghijklmnop0123"
    masked = mask_secrets(text)
    assert HF not in masked and OPENAI not in masked and "abcdefghijklmnop0123" not in masked
    assert masked.count("[REDACTED]") == 3
    assert mask_secrets("--max-total-tokens 4096 --model-path /m/hf_transfer sk-learn") == \
        "--max-total-tokens 4096 --model-path /m/hf_transfer sk-learn"
    assert redact_env({HF: "1", "EXTRA": f"x {OPENAI}"}) == {"[REDACTED]": "[REDACTED]", "EXTRA": "x [REDACTED]"}


def _leaky_session() -> Session:
    return Session(
        title="leaky",
        launch=[LaunchProfile(id="l1", name="base", command="python -m sglang.launch_server --tp 8",
                              status="working"),
                LaunchProfile(id="l2", name="keyed", command="python -m sglang.launch_server --tp 8",
                              env={"EXTRA_ARGS": f"--auth {OPENAI}", HF: "1"}, notes=f"token {HF}")],
        discoveries=[{"id": "d1", "claim": f"the gated model needs {HF}", "tags": [OPENAI]}],
    )


def test_the_diff_masks_token_shaped_values_under_any_env_name():
    session = _leaky_session()
    text = "\n".join(line for _, line in diff_lines(diff_profiles(session.launch[0], session.launch[1])))
    assert HF not in text and OPENAI not in text and "[REDACTED]" in text


def test_cockpit_diff_masks_them_too(tmp_path: Path):
    path = tmp_path / "s.toml"
    save_session(_leaky_session(), path)
    done = subprocess.run([sys.executable, "-m", "cockpit", "diff", str(path), "l1", "l2"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert HF not in done.stdout and OPENAI not in done.stdout and "[REDACTED]" in done.stdout


def test_the_handoff_and_the_json_export_mask_tokens_in_every_field():
    session = _leaky_session()
    session.launch[0] = session.launch[0].model_copy(update={"notes": f"was {OPENAI}"})
    handoff, exported = render_handoff(session), export_json(session)
    for text in (handoff, exported):
        assert HF not in text and OPENAI not in text, text
    data = json.loads(exported)
    assert data["discoveries"][0]["tags"] == ["[REDACTED]"]
    assert HF in dumps_session(session), "the file keeps what was typed; only what leaves is masked"


async def test_mcp_resources_mask_token_shapes(example_copy: Path):
    async with Client(build_server(example_copy)) as c:
        await c.call_tool("add_launch_profile", {"profile": {
            "name": "keyed", "command": "sglang serve", "env": {HF: "1", "EXTRA": OPENAI},
            "notes": f"uses {HF}"}})
        texts = [(await c.read_resource(f"cockpit://session/{name}")).contents[0].text  # type: ignore[union-attr]
                 for name in ("launch", "handoff", "timeline")]
    joined = "".join(texts)
    assert HF not in joined and OPENAI not in joined
