"""`cockpit [SESSION]`: reopen the last one, create a new one, refuse a broken one untouched."""

from __future__ import annotations

from argparse import Namespace

import pytest

from cockpit.cli import open_tui as launch
from cockpit.cli import recent
from cockpit.sources.feeds import LiveSources
from cockpit.store.toml_store import load_session
from cockpit.ui.app import CockpitApp


@pytest.fixture
def opened(monkeypatch):
    """Record the app run_tui would run instead of running it."""
    seen: list[CockpitApp] = []
    monkeypatch.setattr(CockpitApp, "run", lambda self, *a, **k: seen.append(self))
    return seen


def args(session=None, demo=False, theme=None, fresh=False) -> Namespace:
    return Namespace(session=session, demo=demo, theme=theme, fresh=fresh)


def test_a_new_path_is_created_once_the_person_says_yes_and_remembered(tmp_path, opened, monkeypatch):
    path = tmp_path / "new-campaign.toml"
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    asked: list[str] = []
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or "y")
    assert launch.run_tui(args(str(path))) == 0
    assert asked == [f"{path} does not exist: create it? [y/N] "]
    assert load_session(path).title == "new campaign"
    assert recent.most_recent() == path.resolve()
    assert opened[0].path == path


@pytest.mark.parametrize("terminal", [True, False])
def test_a_missing_path_is_not_created_unasked(tmp_path, opened, monkeypatch, capsys, terminal):
    """A typo makes no files: without a terminal it says how to make one; at one, "n" makes none."""
    path = tmp_path / "typo.toml"
    monkeypatch.setattr("sys.stdin.isatty", lambda: terminal)
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    assert launch.run_tui(args(str(path))) == 2
    assert list(tmp_path.iterdir()) == [] and opened == []
    if not terminal:
        assert f"cockpit new {path}" in capsys.readouterr().err


def test_no_argument_reopens_the_most_recent(session_path, opened):
    recent.remember(session_path)
    assert launch.run_tui(args(theme="cockpit-light")) == 0
    assert opened[0].path == session_path.resolve()
    assert opened[0].theme == "cockpit-light"


def test_no_argument_and_nothing_recent_without_a_terminal_says_how(capsys, opened, monkeypatch):
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    assert launch.run_tui(args()) == 2
    assert "cockpit new cockpit-session.toml" in capsys.readouterr().err
    assert opened == []


def test_no_argument_offers_to_create_one(tmp_path, opened, monkeypatch):
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt: str(tmp_path / "fresh.toml"))
    assert launch.run_tui(args()) == 0
    assert (tmp_path / "fresh.toml").exists()


def test_a_broken_session_prints_file_line_col_and_is_not_touched(tmp_path, capsys, opened):
    path = tmp_path / "broken.toml"
    text = 'schema_version = 1\ntitle = "x"\n\n[[tasks]]\nid = "t1"\ntitle = "a"\nstatus = "later"\n'
    path.write_text(text)
    assert launch.run_tui(args(str(path))) == 1
    err = capsys.readouterr().err
    assert f"{path}:7:1: tasks[0].status" in err
    assert path.read_text() == text and opened == []


def test_demo_hook_injects_its_sources(session_path, opened, monkeypatch):
    sources = LiveSources()

    import cockpit.demo.build

    monkeypatch.setattr(cockpit.demo.build, "build_demo", lambda _args: (session_path, sources))
    assert launch.run_tui(args(demo=True)) == 0
    assert opened[0].sources is sources and opened[0].path == session_path


def _quit(app: CockpitApp) -> None:
    """What quitting runs (the app's run is replaced here): the demo's cleanup, then the notes
    run_tui says once the terminal is back (the tmux demo test sees them on a real terminal)."""
    import sys

    for stop in app.sources.on_stop:
        stop()
    for note in app.sources.exit_notes:
        print(note, file=sys.stderr)


def test_demo_again_reopens_the_kept_copy_and_fresh_starts_a_new_one(opened, capsys):
    assert launch.run_tui(args(demo=True)) == 0
    copy = opened[0].path
    assert f"cockpit demo: new demo copy {copy}" in capsys.readouterr().err
    copy.write_text(copy.read_text().replace('title = "', 'title = "KEPT ', 1))
    _quit(opened[0])
    assert f"your demo session stays at {copy} (cockpit --demo reopens it" in capsys.readouterr().err

    assert launch.run_tui(args(demo=True)) == 0
    assert opened[1].path == copy and opened[1].editor.session.title.startswith("KEPT ")
    assert f"reopening your demo copy {copy}" in capsys.readouterr().err
    _quit(opened[1])

    assert launch.run_tui(args(demo=True, fresh=True)) == 0
    assert opened[2].path == copy and not opened[2].editor.session.title.startswith("KEPT ")
    assert "the previous one is kept as" in capsys.readouterr().err
    assert load_session(copy.with_suffix(".prev.toml")).title.startswith("KEPT ")
    _quit(opened[2])


def test_fresh_without_demo_is_refused(opened, capsys):
    assert launch.run_tui(args(fresh=True)) == 2
    assert "--fresh goes with --demo" in capsys.readouterr().err and opened == []
