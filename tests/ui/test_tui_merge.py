"""The open TUI and other writers on one session file: merged by id, nothing lost."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tui_support import keys_for, make_app, screen_text, task, until

from cockpit.model.edit.edits import SessionEditor
from cockpit.store.lock import session_lock
from cockpit.store.toml_store import load_session, save_session


def _with_autosave_delay(path: Path, delay: float) -> None:
    session = load_session(path)
    save_session(session.model_copy(update={"ui": session.ui.model_copy(update={"autosave_delay_s": delay})}), path)


def _shell_add(path: Path, title: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "cockpit", "add", "task", str(path), title],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


async def _add_in_tui(pilot, title: str) -> None:  # noqa: ANN001
    await pilot.press("a")
    await pilot.press(*keys_for(title))
    await pilot.press("enter")


async def test_a_shell_add_between_a_tui_edit_and_its_save_is_kept(session_path):
    """The reported loss: one unsaved TUI edit, `cockpit add` from a shell, then ctrl+s."""
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+o", "greater_than_sign")  # autosave off, t1 -> doing
        done = subprocess.run([sys.executable, "-m", "cockpit", "add", "task", str(session_path), "OUT"],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert task(app, "t6").title == "OUT", "the merged state is shown at once"
    on_disk = {t.id: t for t in load_session(session_path).tasks}
    assert on_disk["t6"].title == "OUT" and on_disk["t1"].status.value == "doing"


async def test_both_writers_pick_the_same_new_id_and_the_tui_record_is_renumbered(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+o")
        await _add_in_tui(pilot, "from the tui")
        assert task(app, "t6").title == "from the tui"
        editor = SessionEditor(load_session(session_path))
        assert editor.add_task("from a shell") == "t6"
        save_session(editor.session, session_path)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert task(app, "t6").title == "from a shell" and task(app, "t7").title == "from the tui"
        assert "renumbered" in screen_text(app)
        await pilot.press("u")  # undo the add: finds the renumbered record
        assert task(app, "t7") is None and task(app, "t6").title == "from a shell"
        await pilot.press("ctrl+s")
    saved = load_session(session_path)
    assert {t.title for t in saved.tasks} >= {"from a shell"} and "from the tui" not in {t.title for t in saved.tasks}
    assert any(e.kind == "merge.renumbered" and "t6 renumbered t7" in e.text for e in saved.journal)


async def test_the_same_field_changed_on_both_sides_keeps_ours_and_says_so(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+o", "greater_than_sign")  # t1 -> doing here
        editor = SessionEditor(load_session(session_path))
        editor.edit_task("t1", status="blocked")
        save_session(editor.session, session_path)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "1 conflict, yours kept" in screen_text(app)
    saved = load_session(session_path)
    assert next(t for t in saved.tasks if t.id == "t1").status.value == "doing"
    [note] = [e for e in saved.journal if e.kind == "merge.conflict"]
    assert "tasks t1.status" in note.text and "'blocked'" in note.text


async def test_an_autosave_waits_for_a_slow_add_holding_the_lock_and_keeps_its_record(session_path):
    """The lock race made deterministic: another writer holds the lock (reading, adding,
    writing slowly) exactly when the autosave fires."""
    _with_autosave_delay(session_path, 0.0)
    holder = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from cockpit.model.edit.edits import SessionEditor
        from cockpit.store.lock import session_lock
        from cockpit.store.toml_store import load_session, save_session
        path = Path({str(session_path)!r})
        with session_lock(path):
            print("locked", flush=True)
            editor = SessionEditor(load_session(path))
            editor.add_task("slow add")
            sys.stdin.readline()  # held until the test has seen the autosave wait (no race with a loaded CPU)
            time.sleep(0.3)
            save_session(editor.session, path)
    """)
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        slow = subprocess.Popen([sys.executable, "-c", holder], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                text=True)
        assert slow.stdout.readline().strip() == "locked"
        await pilot.press("greater_than_sign")  # the autosave fires while the lock is held
        await until(lambda: app.unsaved_edits >= 1, pilot, timeout=10)
        await pilot.pause(0.6)
        assert app.unsaved_edits == 1, "no 'saved' while another writer holds the lock"
        assert "saved" not in screen_text(app).split("unsaved")[0].split()[-1:]
        slow.stdin.write("release\n")
        slow.stdin.flush()
        assert slow.wait(10) == 0
        await until(lambda: app.unsaved_edits == 0, pilot, timeout=5)
        assert any(t.title == "slow add" for t in app.editor.session.tasks)
    tasks = {t.title: t for t in load_session(session_path).tasks}
    assert "slow add" in tasks and tasks["Try EP=8 with DeepEP low-latency kernels"].status.value == "doing"


async def test_four_shells_and_the_tui_write_at_once_and_nothing_is_lost(session_path):
    """Four shells add 25 tasks each while the TUI adds 10 and autosaves: 110 of 110."""
    _with_autosave_delay(session_path, 0.05)
    app = make_app(session_path, watch_interval_s=0.2)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        script = textwrap.dedent("""
            import sys
            from cockpit.cli import main
            for i in range(25):
                assert main(["add", "task", sys.argv[1], f"shell {sys.argv[2]} #{i}"]) == 0
        """)
        shells = [subprocess.Popen([sys.executable, "-c", script, str(session_path), str(n)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for n in range(4)]
        for i in range(10):
            await _add_in_tui(pilot, f"tui {i}")
            await pilot.pause(0.15)
        while any(s.poll() is None for s in shells):
            await pilot.pause(0.1)
        assert [s.returncode for s in shells] == [0] * 4, [s.stderr.read() for s in shells]
        await asyncio.sleep(0.1)
        await pilot.press("q")
        if app.is_running and app.screen.__class__.__name__ == "ConfirmQuitScreen":
            await pilot.press("s")
        await until(lambda: not app.is_running, pilot, timeout=10)
    titles = [t.title for t in load_session(session_path).tasks]
    wanted = {f"shell {n} #{i}" for n in range(4) for i in range(25)} | {f"tui {i}" for i in range(10)}
    assert len(wanted - set(titles)) == 0, sorted(wanted - set(titles))[:10]
    assert len(titles) == len(set(titles)), "no record twice"
    ids = [t.id for t in load_session(session_path).tasks]
    assert len(ids) == len(set(ids))


def test_the_lock_is_taken_through_a_symlink_at_the_real_file(tmp_path):
    real = tmp_path / "real.toml"
    real.write_text("")
    link = tmp_path / "link.toml"
    link.symlink_to(real)
    with session_lock(real):
        start = time.monotonic()
        try:
            with session_lock(link, timeout=0.2):
                raise AssertionError("the lock through the link was not the same lock")
        except TimeoutError:
            pass
        assert time.monotonic() - start >= 0.2


async def test_the_watcher_survives_a_bomb_in_the_file_and_takes_the_next_valid_one(session_path):
    good = session_path.read_text()
    app = make_app(session_path, watch_interval_s=0.1)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        session_path.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
        await until(lambda: app.disk_conflict, pilot)
        await until(lambda: "file on disk does not load" in screen_text(app), pilot)  # said on screen
        await pilot.press("ctrl+o", "greater_than_sign")  # autosave off; an edit waits meanwhile
        session_path.write_text(good)
        editor = SessionEditor(load_session(session_path))
        editor.add_task("after the bomb")
        save_session(editor.session, session_path)
        await until(lambda: task(app, "t6") is not None, pilot)
        assert not app.disk_conflict and "does not load" not in screen_text(app)
        assert task(app, "t1").status.value == "doing", "the local edit survived"


async def test_an_explicit_save_over_a_broken_file_keeps_it_as_bak(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+o", "greater_than_sign")
        broken = 'title = "half an edit\n'
        session_path.write_text(broken)
        app.saving.run_autosave()  # an autosave does not write over a file that does not load
        assert session_path.read_text() == broken and app.unsaved_edits == 1
        await pilot.press("ctrl+s")  # the first says why it does not load (autosave is off: nothing has)
        await pilot.pause()
        assert session_path.read_text() == broken and app.unsaved_edits == 1
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert next(t for t in load_session(session_path).tasks if t.id == "t1").status.value == "doing"
    assert session_path.with_name(session_path.name + ".bak").read_text() == broken
