"""keymap.toml: your own keys by binding id; every bad line is skipped with a reason."""

from __future__ import annotations

from cockpit.ui.keys.keymap_file import keymap_path, load_keymap


def test_a_missing_file_is_no_keymap(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert keymap_path() == tmp_path / "cockpit" / "keymap.toml"
    assert load_keymap() == ({}, [])


def test_good_lines_apply_and_bad_ones_are_named(tmp_path) -> None:
    path = tmp_path / "keymap.toml"
    path.write_text('"tasks.move-right" = "m"\n"log.search" = "ctrl+f, /"\n"tasks.nope" = "x"\n'
                    '"session.save" = "ctrl+a"\n"tasks.add" = "e"\n"launch.copy" = 3\n', encoding="utf-8")
    keymap, problems = load_keymap(path)
    assert keymap == {"tasks.move-right": "m", "log.search": "ctrl+f,/"}
    assert problems == [
        f"{path}: no action 'tasks.nope' (the ids are listed by ? in cockpit)",
        f"{path}: session.save: ctrl+a is a tmux prefix",
        f'{path}: launch.copy: keys must be a string like "n" or "ctrl+f,/"',
        f"{path}: tasks.add: e is already tasks.edit",
    ]


def test_a_broken_file_says_where(tmp_path) -> None:
    path = tmp_path / "keymap.toml"
    path.write_text('"tasks.add" = "n"\n"log.search" = \n', encoding="utf-8")
    keymap, problems = load_keymap(path)
    assert keymap == {} and len(problems) == 1
    assert problems[0].startswith(f"{path}:2:")


def test_keys_with_control_characters_are_refused(tmp_path) -> None:
    """Key names end up in the footer and in `?`: an escape sequence there is refused."""
    path = tmp_path / "keymap.toml"
    path.write_text('"tasks.add" = "\\u001b]0;x\\u0007"\n"tasks.edit" = "x\\u202e"\n', encoding="utf-8")
    keymap, problems = load_keymap(path)
    assert keymap == {}
    assert [p.split(": ")[1] for p in problems] == ["tasks.add", "tasks.edit"]
