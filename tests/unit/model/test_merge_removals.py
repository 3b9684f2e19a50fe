"""Every merge rule at its edge: something removed on one side and kept (untouched) on the
other stays removed, in both orders (this writer removed it, or the file's writer did), for
links, tags, records, journal events and earlier last actions. A link removed here that the
merge brought back would put a claim back on a task a person unlinked it from."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from paths import EXAMPLE_SESSION

from cockpit.model.edit.edits import SessionEditor
from cockpit.model.edit.merge import merge_sessions
from cockpit.model.session import JournalEvent, LastAction, Session
from cockpit.store.toml_store import load_session

ORDERS = pytest.mark.parametrize("removed_here", [True, False], ids=["removed-here", "removed-there"])


def _merge(base: Session, remover: SessionEditor, keeper: SessionEditor, removed_here: bool) -> Session:
    """Merge with the remover as this side (ours) or as the file (theirs)."""
    ours, theirs = (remover, keeper) if removed_here else (keeper, remover)
    return merge_sessions(base, ours.session, theirs.session).session


def _disc(session: Session, ident: str):
    return next(d for d in session.discoveries if d.id == ident)


def _task(session: Session, ident: str):
    return next((t for t in session.tasks if t.id == ident), None)


@ORDERS
def test_a_link_removed_on_one_side_while_the_other_adds_one_stays_removed(removed_here: bool) -> None:
    base = load_session(EXAMPLE_SESSION)
    assert _disc(base, "d2").tasks == ["t8", "t10"]
    remover, keeper = SessionEditor(base), SessionEditor(base)
    remover.link_task("t8", "d2")  # unlinks: t8 was linked
    keeper.link_task("t9", "d2")  # the other side links another task to the same claim
    merged = _merge(base, remover, keeper, removed_here)
    assert sorted(_disc(merged, "d2").tasks) == ["t10", "t9"], "the unlinked task came back"
    assert _task(merged, "t8").discoveries == []
    assert _task(merged, "t9").discoveries == ["d2"]


@ORDERS
def test_a_link_removed_on_one_side_and_left_alone_on_the_other_stays_removed(removed_here: bool) -> None:
    base = load_session(EXAMPLE_SESSION)
    remover, keeper = SessionEditor(base), SessionEditor(base)
    remover.link_task("t10", "d2")
    keeper.add_task("unrelated")  # the file changed, but not this claim
    merged = _merge(base, remover, keeper, removed_here)
    assert _disc(merged, "d2").tasks == ["t8"]
    assert _task(merged, "t10").discoveries == []


@ORDERS
def test_a_tag_removed_on_one_side_while_the_other_adds_one_stays_removed(removed_here: bool) -> None:
    base = load_session(EXAMPLE_SESSION)
    assert _disc(base, "d2").tags == ["allreduce", "sm120"]
    remover, keeper = SessionEditor(base), SessionEditor(base)
    remover.edit_discovery("d2", tags=["allreduce"])
    keeper.edit_discovery("d2", tags=["allreduce", "sm120", "nvlink"])
    merged = _merge(base, remover, keeper, removed_here)
    assert _disc(merged, "d2").tags == ["allreduce", "nvlink"], "a removed tag came back"


@ORDERS
def test_a_record_deleted_on_one_side_and_only_reordered_on_the_other_stays_deleted(removed_here: bool) -> None:
    """A new `order` (a column renumbered) is layout, not content: it does not keep a record."""
    base = load_session(EXAMPLE_SESSION)
    remover, keeper = SessionEditor(base), SessionEditor(base)
    remover.delete_task("t9")
    keeper.reorder_task("t9", -1)  # t9 and t8 swap places in the to-do column
    assert _task(keeper.session, "t9").order != _task(base, "t9").order
    merged = _merge(base, remover, keeper, removed_here)
    assert _task(merged, "t9") is None, "a task deleted on one side came back"
    assert _task(merged, "t8") is not None


@ORDERS
def test_a_record_deleted_on_one_side_and_kept_unchanged_on_the_other_stays_deleted(removed_here: bool) -> None:
    base = load_session(EXAMPLE_SESSION)
    remover, keeper = SessionEditor(base), SessionEditor(base)
    remover.delete_benchmark("b3")
    keeper.edit_discovery("d1", claim="an unrelated edit")
    result = merge_sessions(base, *((remover.session, keeper.session) if removed_here
                                    else (keeper.session, remover.session)))
    assert [b.id for b in result.session.benchmarks] == ["b1", "b2"]
    assert _disc(result.session, "d1").claim == "an unrelated edit"
    assert not result.conflicts


@ORDERS
def test_a_record_deleted_on_one_side_and_changed_on_the_other_is_kept_with_a_conflict(removed_here: bool) -> None:
    base = load_session(EXAMPLE_SESSION)
    remover, keeper = SessionEditor(base), SessionEditor(base)
    remover.delete_task("t9")
    keeper.edit_task("t9", title="still needed")
    result = merge_sessions(base, *((remover.session, keeper.session) if removed_here
                                    else (keeper.session, remover.session)))
    assert _task(result.session, "t9").title == "still needed"
    [conflict] = result.conflicts
    assert conflict.where == "tasks t9"


def _with_journal(base: Session) -> Session:
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    events = [JournalEvent(when=start + timedelta(minutes=i), kind="note", text=f"note {i}") for i in range(3)]
    return base.model_copy(update={"journal": events})


@ORDERS
def test_a_journal_event_removed_on_one_side_stays_removed(removed_here: bool) -> None:
    """An undo of a saved edit takes its journal event out; the other writer's copy of the
    file still has it and must not bring it back."""
    base = _with_journal(load_session(EXAMPLE_SESSION))
    remover, keeper = SessionEditor(base), SessionEditor(base)
    remover.replace(base.model_copy(update={"journal": base.journal[:1] + base.journal[2:]}))
    keeper.add_note("a new note from the other side")
    merged = _merge(base, remover, keeper, removed_here)
    texts = [e.text for e in merged.journal]
    assert "note 1" not in texts, "a removed journal event came back"
    assert "note 0" in texts and "note 2" in texts and "a new note from the other side" in texts


def _with_history(base: Session) -> Session:
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    earlier = [LastAction(text=f"step {i}", when=start + timedelta(minutes=i)) for i in range(3)]
    return base.model_copy(update={"last_actions": earlier})


@ORDERS
def test_an_earlier_last_action_removed_on_one_side_stays_removed(removed_here: bool) -> None:
    base = _with_history(load_session(EXAMPLE_SESSION))
    remover, keeper = SessionEditor(base), SessionEditor(base)
    remover.replace(base.model_copy(update={"last_actions": [base.last_actions[0], base.last_actions[2]]}))
    keeper.set_last_action("the other side's words")  # pushes the current one into the history
    merged = _merge(base, remover, keeper, removed_here)
    texts = [a.text for a in merged.last_actions]
    assert "step 1" not in texts, "a removed earlier last action came back"
    assert {"step 0", "step 2", base.last_action.text} <= set(texts), "the other side's history was lost"
