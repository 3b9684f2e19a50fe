"""The Launch tab never shows a token, and `y` copies only masked, inert text."""

from __future__ import annotations

from tui_campaign import build_session
from tui_support import make_app, screen_text

from cockpit.store.toml_store import save_session

HF = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"


async def test_the_launch_detail_masks_env_tokens_and_y_copies_the_masked_command(tmp_path):
    session = build_session()
    session.launch[0] = session.launch[0].model_copy(update={
        "command": session.launch[0].command + " --api-key sk-live-999 \x1b]52;c;ZXZpbA==\x07",
        "env": {"HF_TOKEN": "hf_live_abc123", "EXTRA": f"--auth {HF}"}, "notes": f"pulled with {HF}"})
    path = tmp_path / "keyed.toml"
    save_session(session, path)
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await pilot.press("7")
        await pilot.pause()
        text = screen_text(app)
        assert "HF_TOKEN=[REDACTED]" in text and "--api-key [REDACTED]" in text, text
        assert "hf_live_abc123" not in text and HF not in text and "sk-live-999" not in text
        await pilot.press("y")
        copied = app.clipboard
        assert copied.startswith("HF_TOKEN='[REDACTED]' EXTRA='--auth [REDACTED]' python -m sglang.launch_server")
        assert "--api-key [REDACTED]" in copied and "sk-live-999" not in copied and "hf_live" not in copied
        assert "\x1b" not in copied and "\x07" not in copied
