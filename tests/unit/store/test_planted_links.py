"""Outputs never follow a link another user could plant: export -o, the session and its
.bak, the lock. A link to nothing never creates its target, and a blocked lock says what
blocks it. A link the user made to their own file is still saved through."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from planted import USER, other_user, plant_link

from cockpit.model.session import Session
from cockpit.store.toml_store import load_session, save_session

ROOT = Path(__file__).resolve().parents[3]


def cockpit(*args: Any, user: int | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cockpit", *map(str, args)], capture_output=True, text=True,
                          timeout=60, cwd=ROOT, user=user)


@pytest.fixture(scope="module")
def someone() -> tuple[int, int]:
    return other_user()


@pytest.fixture
def pub(someone) -> Iterator[tuple[Path, Path]]:
    """A sticky world-writable folder (like /tmp or a shared pub/), and root's 0600 file."""
    top = Path(tempfile.mkdtemp(prefix="cockpit-pub-"))
    os.chmod(top, 0o755)
    folder = top / "pub"
    folder.mkdir()
    os.chmod(folder, 0o1777)
    home = top / "root-home"
    home.mkdir(mode=0o700)
    victim = home / "secret.txt"
    victim.write_text("precious\n")
    os.chmod(victim, 0o600)
    yield folder, victim
    shutil.rmtree(top)


def untouched(victim: Path) -> bool:
    return victim.read_text() == "precious\n" and sorted(p.name for p in victim.parent.iterdir()) == ["secret.txt"]


def test_export_to_a_link_another_user_planted_is_refused_and_the_target_kept(pub, someone, example_copy):
    folder, victim = pub
    out = folder / "handoff.md"
    plant_link(someone, out, victim)
    done = cockpit("export", example_copy, "-o", out)
    assert done.returncode == 1
    assert done.stderr.strip() == (f"{out}: {out} is a symlink owned by {USER} (uid {someone[0]}) in {folder}, "
                                   f"a sticky folder anyone can write: not followed (remove it, or give the real path)")
    assert untouched(victim) and out.is_symlink()


def test_a_session_link_another_user_planted_is_not_saved_through(pub, someone, tmp_path):
    folder, victim = pub
    real = tmp_path / "real.toml"
    save_session(Session(title="theirs to point at"), real)
    before = real.read_bytes()
    link = folder / "s.toml"
    plant_link(someone, link, real)
    done = cockpit("add", "task", link, "through their link")
    assert done.returncode == 1 and "is a symlink owned by cockpitsave" in done.stderr
    assert real.read_bytes() == before
    assert not (tmp_path / "real.toml.bak").exists() and not (tmp_path / ".real.toml.lock").exists()


def test_a_link_of_my_own_is_still_saved_through_and_stays_a_link(tmp_path, example_copy):
    link = tmp_path / "mine.toml"
    link.symlink_to(example_copy)
    assert cockpit("add", "task", link, "through my link").returncode == 0
    assert link.is_symlink() and "through my link" in {t.title for t in load_session(example_copy).tasks}
    out = tmp_path / "handoff.md"
    real_out = tmp_path / "real-handoff.md"
    real_out.write_text("old\n")
    out.symlink_to(real_out)
    assert cockpit("export", example_copy, "-o", out).returncode == 0
    assert out.is_symlink() and real_out.read_text().startswith("# ")


def test_opening_a_dangling_link_creates_nothing_at_its_target(tmp_path, monkeypatch):
    from cockpit.cli import open_tui
    # the person answers y at "does not exist: create it?" (a new session is an explicit step)
    monkeypatch.setattr(open_tui, "_confirm_create", lambda path: True)
    from cockpit.ui.app import CockpitApp

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "s.toml"
    link.symlink_to(elsewhere / "made.toml")
    monkeypatch.setattr(CockpitApp, "run", lambda self: pytest.fail("the TUI must not open"))
    status = open_tui.run_tui(argparse.Namespace(session=str(link), demo=False, fresh=False, theme=None))
    assert status == 1
    assert list(elsewhere.iterdir()) == [], "no session, .bak or .lock at the link's target"
    assert link.is_symlink()


def test_writers_on_a_dangling_link_leave_no_lock_at_its_target(tmp_path):
    from cockpit.control.transaction import ASSISTANT, SessionFile

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "s.toml"
    link.symlink_to(elsewhere / "made.toml")
    with pytest.raises(OSError, match="does not exist: cockpit does not create a file through a link"):
        SessionFile(link, actor=ASSISTANT).transact(lambda e: e.add_task("x"))
    done = cockpit("export", tmp_path / "none.toml", "-o", link)
    assert done.returncode == 1
    assert list(elsewhere.iterdir()) == []


def test_a_planted_lock_link_says_what_blocks_the_save(pub, someone, tmp_path):
    folder, victim = pub
    path = folder / "s.toml"
    save_session(Session(title="shared"), path)
    before = path.read_bytes()
    plant_link(someone, folder / ".s.toml.lock", victim)
    done = cockpit("add", "task", path, "blocked")
    assert done.returncode == 1
    assert done.stderr.strip() == (f"{path}: cannot take the session lock {folder / '.s.toml.lock'}: it is a symlink "
                                   f"(owned by {USER} (uid {someone[0]})), never followed; remove it to let cockpit save")
    assert path.read_bytes() == before and untouched(victim)


def test_a_lock_this_user_cannot_create_says_so(someone):
    """As the other user (effective ids): the session is theirs to write, its folder is not."""
    from cockpit.store.lock import LockBlockedError, session_lock

    top = Path(tempfile.mkdtemp(prefix="cockpit-ro-"))
    try:
        os.chmod(top, 0o755)
        path = top / "s.toml"
        save_session(Session(title="shared"), path)
        os.chown(path, *someone)
        os.setegid(someone[1])
        os.seteuid(someone[0])
        try:
            with pytest.raises(LockBlockedError) as caught:
                with session_lock(path):
                    pass
        finally:
            os.seteuid(0)
            os.setegid(0)
        assert str(caught.value) == (f"{path}: cannot take the session lock {top / '.s.toml.lock'}: "
                                     f"this user cannot create files in {top}")
    finally:
        shutil.rmtree(top)
