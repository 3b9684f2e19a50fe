"""SessionEditor: every edit journaled, undoable, and links kept whole."""

import pytest

from paths import EXAMPLE_SESSION

from cockpit.model.edit.edits import EditError, SessionEditor
from cockpit.model.enums import DiscoveryStatus, ProfileStatus, TaskStatus
from cockpit.model.session import Session
from cockpit.store.toml_store import load_session


def test_a_task_travels_through_every_column_and_back():
    editor = SessionEditor(Session())
    ident = editor.add_task("bench trtllm")
    seen = [editor.move_task(ident, +1) for _ in range(3)]
    assert seen == [TaskStatus.DOING, TaskStatus.DONE, TaskStatus.BLOCKED]
    with pytest.raises(EditError):
        editor.move_task(ident, +1)
    assert [editor.move_task(ident, -1) for _ in range(3)][-1] is TaskStatus.TODO


def test_reorder_swaps_within_the_column_only():
    editor = SessionEditor(Session())
    a, b, c = (editor.add_task(name) for name in "abc")
    editor.reorder_task(c, -1)
    assert [t.id for t in editor.column(editor.session, TaskStatus.TODO)] == [a, c, b]
    with pytest.raises(EditError):
        editor.reorder_task(a, -1)


def test_undo_and_redo_restore_exact_states_over_150_steps():
    editor = SessionEditor(Session())
    states = [editor.session]
    for n in range(150):
        editor.add_task(f"task {n}")
        states.append(editor.session)
    for expected in reversed(states[:-1]):
        assert editor.undo() is not None
        assert editor.session == expected
    assert editor.undo() is None
    for expected in states[1:]:
        editor.redo()
        assert editor.session == expected


def test_every_edit_appends_a_journal_event():
    editor = SessionEditor(Session())
    t = editor.add_task("x")
    editor.move_task(t, 1)
    editor.set_last_action("launched", next_step="bench", fallback="revert")
    assert [e.kind for e in editor.session.journal] == ["task.added", "task.moved", "last_action.set"]
    assert editor.session.journal[1].ref == t


def test_a_discovery_status_change_flags_its_linked_tasks_until_acknowledged():
    editor = SessionEditor(load_session(EXAMPLE_SESSION))
    assert not any(t.review for t in editor.session.tasks)
    assert editor.cycle_discovery_status("d2") is DiscoveryStatus.CONFIRMED
    flagged = {t.id for t in editor.session.tasks if t.review}
    assert flagged == {"t8", "t10"}
    editor.acknowledge_review("t8")
    assert {t.id for t in editor.session.tasks if t.review} == {"t10"}


def test_deleting_a_task_removes_links_to_it():
    editor = SessionEditor(load_session(EXAMPLE_SESSION))
    editor.delete_task("t8")
    assert "t8" not in editor.session.discoveries[1].tasks


def test_a_failed_edit_changes_nothing():
    editor = SessionEditor(Session())
    before = editor.session
    with pytest.raises(EditError):
        editor.edit_task("t99", title="x")
    with pytest.raises(ValueError):
        editor.link_task("t1", "d1")
    assert editor.session is before and editor.revision == 0


def test_one_launch_profile_is_working_at_a_time():
    editor = SessionEditor(load_session(EXAMPLE_SESSION))
    editor.mark_profile_working("l2")
    assert [p.status for p in editor.session.launch] == [ProfileStatus.CANDIDATE, ProfileStatus.WORKING]


def test_no_edit_changes_the_snapshot_undo_goes_back_to():
    """Edits work on a one-level copy of the records; each kind of edit must leave the
    session it started from exactly as it was."""
    editor = SessionEditor(load_session(EXAMPLE_SESSION))
    s = editor.session
    task, disc, bench = s.tasks[0].id, s.discoveries[0].id, s.benchmarks[0].id
    edits = [
        lambda e: e.add_task("new"), lambda e: e.edit_task(task, title="edited", notes="n"),
        lambda e: e.move_task(task, +1), lambda e: e.reorder_task(e.session.tasks[1].id, +1),
        lambda e: e.link_task(task, disc), lambda e: e.cycle_discovery_status(disc),
        lambda e: e.edit_discovery(disc, claim="c", tags=["x"], status=DiscoveryStatus.REFUTED),
        lambda e: e.acknowledge_review(task), lambda e: e.add_discovery("d", tasks=[task]),
        lambda e: e.add_benchmark(label="b", total_tok_s=1.0), lambda e: e.delete_benchmark(bench),
        lambda e: e.add_record("packages", name="sglang", version="1"),
        lambda e: e.edit_record("launch", s.launch[0].id, notes="changed"),
        lambda e: e.mark_profile_working(s.launch[-1].id), lambda e: e.set_last_action("x", "y"),
        lambda e: e.delete_task(task), lambda e: e.add_note("note"),
    ]
    for edit in edits:
        before = editor.session
        frozen = before.model_copy(deep=True)
        edit(editor)
        assert before == frozen, "an edit changed the session it started from"
    while editor.undo():
        pass
    assert editor.session == s
