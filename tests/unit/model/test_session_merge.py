"""Three-way merge by record id: another writer's records are never lost."""

from __future__ import annotations

from paths import EXAMPLE_SESSION

from cockpit.model.edit.edits import SessionEditor
from cockpit.model.edit.merge import merge_sessions
from cockpit.model.enums import TASK_COLUMNS, DiscoveryStatus, TaskStatus
from cockpit.store.toml_store import load_session


def _sides():
    base = load_session(EXAMPLE_SESSION)
    return base, SessionEditor(base), SessionEditor(base)


def _task(session, ident):
    return next((t for t in session.tasks if t.id == ident), None)


def test_records_added_on_each_side_are_all_kept_and_a_taken_id_is_renumbered():
    base, ours, theirs = _sides()
    mine = ours.add_task("mine")
    disc = ours.add_discovery("claim about mine", tasks=[mine])
    other = theirs.add_task("theirs")
    theirs.add_note("a note from the shell")
    assert mine == other, "both sides picked the same next id"

    result = merge_sessions(base, ours.session, theirs.session)
    merged = result.session
    new_id = result.renumbered[mine]
    assert _task(merged, other).title == "theirs", "the file's record keeps its id"
    assert _task(merged, new_id).title == "mine"
    linked = next(d for d in merged.discoveries if d.id == disc)
    assert linked.tasks == [new_id], "the link follows the renumbered record"
    assert {e.kind for e in merged.journal} >= {"note", "task.added", "merge.renumbered"}
    assert [e.ref for e in merged.journal if e.kind == "discovery.added"][-1] == disc
    assert result.taken >= 1 and "renumbered" in result.summary()


def test_a_field_changed_on_both_sides_keeps_ours_and_records_theirs():
    base, ours, theirs = _sides()
    ident = base.tasks[0].id
    ours.edit_task(ident, title="our title")
    theirs.edit_task(ident, title="their title", notes="their notes")
    result = merge_sessions(base, ours.session, theirs.session)
    merged = _task(result.session, ident)
    assert merged.title == "our title"
    assert merged.notes == "their notes", "a field only the other side changed is taken"
    [conflict] = result.conflicts
    assert conflict.where == f"tasks {ident}.title" and "their title" in conflict.other
    note = [e for e in result.session.journal if e.kind == "merge.conflict"]
    assert note and "their title" in note[0].text and note[0].ref == ident


def test_one_side_deletes_the_other_leaves_alone_it_stays_deleted_both_ways():
    base, ours, theirs = _sides()
    gone_here, gone_there = base.tasks[0].id, base.tasks[1].id
    ours.delete_task(gone_here)
    theirs.delete_task(gone_there)
    merged = merge_sessions(base, ours.session, theirs.session).session
    assert _task(merged, gone_here) is None and _task(merged, gone_there) is None
    assert len(merged.tasks) == len(base.tasks) - 2


def test_deleted_here_but_changed_there_is_kept_not_lost():
    base, ours, theirs = _sides()
    ident = base.tasks[0].id
    ours.delete_task(ident)
    theirs.edit_task(ident, title="still needed")
    result = merge_sessions(base, ours.session, theirs.session)
    assert _task(result.session, ident).title == "still needed"
    assert result.conflicts


def test_link_lists_merge_as_sets_and_links_to_deleted_records_are_dropped():
    base, ours, theirs = _sides()
    disc = base.discoveries[0]
    free = [t.id for t in base.tasks if t.id not in disc.tasks]
    ours.link_task(free[0], disc.id)
    theirs.link_task(free[1], disc.id)
    merged = merge_sessions(base, ours.session, theirs.session).session
    got = next(d for d in merged.discoveries if d.id == disc.id)
    assert free[0] in got.tasks and free[1] in got.tasks

    base2 = merged
    here, there = SessionEditor(base2), SessionEditor(base2)
    new_disc = here.add_discovery("rests on a task the other side deletes", tasks=[free[2]])
    there.delete_task(free[2])
    result = merge_sessions(base2, here.session, there.session)
    got = next(d for d in result.session.discoveries if d.id == new_disc)
    assert got.tasks == [], "the link to a task the other side deleted is dropped"
    assert _task(result.session, free[2]) is None
    assert any(e.kind == "merge.links" for e in result.session.journal)


def test_journal_is_a_union_in_time_order_and_the_view_is_ours():
    base, ours, theirs = _sides()
    ours.add_note("ours")
    theirs.add_note("theirs")
    mine = ours.session.model_copy(update={"ui": ours.session.ui.model_copy(update={"active_tab": "launch"})})
    merged = merge_sessions(base, mine, theirs.session).session
    texts = [e.text for e in merged.journal]
    assert "ours" in texts and "theirs" in texts
    assert [e.when for e in merged.journal] == sorted(e.when for e in merged.journal)
    assert merged.ui.active_tab == "launch"


def test_nothing_changed_elsewhere_returns_ours_as_is():
    base, ours, _ = _sides()
    ours.add_task("x")
    result = merge_sessions(base, ours.session, base)
    assert result.session is ours.session and not result.summary()


def test_undo_after_a_merge_reverts_only_that_step():
    base, ours, theirs = _sides()
    ident = ours.add_task("mine, to be undone")
    ours.cycle_discovery_status(base.discoveries[0].id)
    theirs.add_task("theirs, must stay")
    result = merge_sessions(base, ours.session, theirs.session)
    assert ident in result.renumbered
    ours.adopt(result.session, result.renumbered)
    assert ours.undo().startswith("discovery")
    assert ours.undo().startswith("task added")
    titles = {t.title for t in ours.session.tasks}
    assert "theirs, must stay" in titles and "mine, to be undone" not in titles
    assert ours.session.discoveries[0].status == base.discoveries[0].status
    ours.redo()
    assert _task(ours.session, result.renumbered[ident]).title == "mine, to be undone"
    assert "theirs, must stay" in {t.title for t in ours.session.tasks}


def test_a_status_move_on_both_sides_to_different_columns_is_a_conflict():
    base, ours, theirs = _sides()
    ident = next(t.id for t in base.tasks if t.status is TaskStatus.TODO)
    ours.move_task(ident, TASK_COLUMNS.index(TaskStatus.DOING) - TASK_COLUMNS.index(TaskStatus.TODO))
    theirs.move_task(ident, TASK_COLUMNS.index(TaskStatus.BLOCKED) - TASK_COLUMNS.index(TaskStatus.TODO))
    result = merge_sessions(base, ours.session, theirs.session)
    assert _task(result.session, ident).status is TaskStatus.DOING
    assert any(c.where == f"tasks {ident}.status" and "blocked" in c.other for c in result.conflicts)


def test_discovery_status_from_the_other_side_is_taken():
    base, ours, theirs = _sides()
    disc = base.discoveries[0]
    theirs.edit_discovery(disc.id, status=DiscoveryStatus.REFUTED)
    ours.add_task("unrelated")
    merged = merge_sessions(base, ours.session, theirs.session).session
    assert next(d for d in merged.discoveries if d.id == disc.id).status is DiscoveryStatus.REFUTED
