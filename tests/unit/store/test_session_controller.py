"""SessionController without a UI: saves merge, a held lock is 'busy', a broken file is
never written over by accident, listeners hear every change."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cockpit.control.session_controller import SessionController
from cockpit.model.edit.edits import SessionEditor
from cockpit.store.toml_store import load_session, save_session


@pytest.fixture
def path(example_copy: Path) -> Path:
    return example_copy


def _outside_add(path, title):
    editor = SessionEditor(load_session(path))
    ident = editor.add_task(title)
    save_session(editor.session, path)
    return ident


def test_save_merges_an_outside_add_and_tells_listeners(path):
    control = SessionController(load_session(path), path)
    heard = []
    control.add_listener(lambda: heard.append(control.session.tasks[-1].title))
    mine = control.apply(lambda e: e.add_task("mine"))
    theirs = _outside_add(path, "theirs")
    assert mine == theirs and control.unsaved_edits == 1
    outcome = control.save()
    assert outcome.saved and outcome.merge.renumbered == {mine: control.session.tasks[-1].id}
    titles = {t.title for t in load_session(path).tasks}
    assert {"mine", "theirs"} <= titles
    assert control.unsaved_edits == 0 and "renumbered" in control.merge_note
    assert len(heard) == 2, "one for the edit, one for the merge"


def test_a_removed_listener_hears_nothing_more(path):
    control = SessionController(load_session(path), path)
    heard = []
    stop = control.add_listener(lambda: heard.append("a"))
    control.apply(lambda e: e.add_task("one"))
    stop()
    stop()  # twice is harmless (a screen unmounted after the app stopped)
    control.apply(lambda e: e.add_task("two"))
    assert heard == ["a"]


def test_a_held_lock_is_busy_and_nothing_is_written(path):
    control = SessionController(load_session(path), path, lock_wait_s=0.1)
    control.apply(lambda e: e.add_task("waits"))
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from cockpit.store.lock import session_lock
        with session_lock({str(path)!r}):
            print("held", flush=True)
            sys.stdin.readline()
    """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        before = path.read_bytes()
        assert control.save().status == "busy"
        assert path.read_bytes() == before and control.unsaved_edits == 1
    finally:
        holder.communicate("\n", timeout=10)
    assert control.save().saved
    assert "waits" in {t.title for t in load_session(path).tasks}


def test_a_broken_file_is_written_over_only_when_asked(path):
    control = SessionController(load_session(path), path)
    control.apply(lambda e: e.add_task("kept"))
    path.write_text("title = [\n")
    outcome = control.save()
    assert outcome.status == "broken" and "s.toml:" in outcome.message
    assert path.read_text() == "title = [\n" and control.disk_broken and not control.autosave_due
    outcome = control.save(over_broken=True)
    assert outcome.saved and outcome.overwrote_broken and not control.disk_broken
    assert path.with_name("s.toml.bak").read_text() == "title = [\n"


def test_take_outside_merges_into_unsaved_edits_which_stay_unsaved(path):
    control = SessionController(load_session(path), path)
    control.apply(lambda e: e.add_note("local"))
    _outside_add(path, "from a shell")
    sig, base = control.outside_change(), control.base
    assert sig is not None
    result = control.take_outside(control.read_disk(), sig, base)
    assert result is not None and result.taken == 1
    assert "from a shell" in {t.title for t in control.session.tasks}
    assert control.unsaved_edits == 1 and control.outside_change() is None


def test_an_out_of_date_read_is_not_taken(path):
    control = SessionController(load_session(path), path)
    _outside_add(path, "first")
    sig, base = control.outside_change(), control.base
    theirs = control.read_disk()
    _outside_add(path, "second")  # changed again after the read
    assert control.take_outside(theirs, sig, base) is None
    assert "first" not in {t.title for t in control.session.tasks}


def test_a_failed_save_says_path_and_reason(path):
    control = SessionController(load_session(path), path)
    control.apply(lambda e: e.add_note("x"))
    path.chmod(0o444)
    outcome = control.save()
    assert outcome.status == "failed" and "read-only" in outcome.message and str(path) in outcome.message
