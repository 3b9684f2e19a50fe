"""Theme files become Textual themes with cockpit's roles; broken ones fall back."""

from __future__ import annotations

import pytest

from tui_support import make_app

from cockpit.store.toml_store import load_session
from cockpit.ui.theme.themes import ROLES, load_theme_file, load_themes, shipped_theme_dir


def test_the_shipped_themes_load_and_name_every_role():
    themes, problems = load_themes([shipped_theme_dir()])
    assert problems == []
    names = {t.name for t in themes}
    assert {"cockpit-dark", "cockpit-light", "cockpit-contrast"} <= names
    for theme in themes:
        assert set(ROLES) <= set(theme.variables), theme.name
    assert [t.dark for t in themes if t.name == "cockpit-light"] == [False]


def test_the_shipped_themes_pass_the_user_file_schema_and_load_the_same_without_it():
    """Shipped files are read without the validator at run time: this is their check."""
    for path in sorted(shipped_theme_dir().glob("*.toml")):
        assert load_theme_file(path, trusted=True) == load_theme_file(path), path.name


@pytest.mark.parametrize(("text", "reason"), [
    ('name = "bad"\nprimary = "notacolour"\n', "primary: Value error"),
    ('name = "bad"\nprimary = "#FF0000"\nsparkle = true\n', "sparkle: Extra inputs"),
    ('name = "bad"\nprimary = "#FF0000"\n[variables]\ntask-doing = "nope"\n', "task-doing"),
    ('name = "bad\n', "Illegal character"),
])
def test_a_broken_theme_file_is_refused_with_a_reason(tmp_path, text, reason):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=reason.split(":")[0]):
        load_theme_file(path)


async def test_a_broken_user_theme_is_reported_and_the_default_used(session_path, tmp_path):
    user = tmp_path / "config" / "cockpit" / "themes"
    user.mkdir(parents=True)
    (user / "bad.toml").write_text('name = "bad"\nprimary = "notacolour"\n')
    (user / "mine.toml").write_text('name = "mine"\nprimary = "#FF8800"\n')
    app = make_app(session_path, theme="bad")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.theme == "cockpit-dark"
        for _ in range(50):  # the two reports come as one toast, joined once its burst ends
            messages = [n.message for n in app._notifications]
            if any("Theme 'bad' not found" in m for m in messages):
                break
            await pilot.pause(0.1)
        assert any("bad.toml" in m for m in messages)
        assert any("Theme 'bad' not found" in m for m in messages)
        assert "mine" in app.available_themes
        assert app.theme_variables["task-doing"], "a theme without roles gets them from its base colours"


async def test_the_chosen_theme_is_saved_in_the_session(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+t")
        assert app.theme == "cockpit-light"
        await pilot.press("ctrl+s")
    assert load_session(session_path).ui.theme == "cockpit-light"
