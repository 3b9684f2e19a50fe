"""The merge's rules for what one side deleted and the other side still names, in both
orders: a host the other side's record runs on is kept (a record never names an unknown
host); a run's link to a launch profile the other side deleted is dropped and said in the
journal (never a link to nothing, never a lost run)."""

from __future__ import annotations

import pytest

from paths import EXAMPLE_SESSION

from cockpit.model.edit.edits import SessionEditor
from cockpit.model.edit.merge import merge_sessions
from cockpit.store.toml_store import load_session

ORDERS = pytest.mark.parametrize("removed_here", [True, False], ids=["removed-here", "removed-there"])


def _sides():  # noqa: ANN202
    base = load_session(EXAMPLE_SESSION)
    return base, SessionEditor(base), SessionEditor(base)


@ORDERS
def test_a_host_deleted_on_one_side_that_the_other_side_now_runs_on_is_kept(removed_here: bool) -> None:
    base, remover, keeper = _sides()
    assert "lxc" in {h.name for h in base.hosts} and next(x for x in base.launch if x.id == "l2").host is None
    remover.delete_host("lxc")
    keeper.edit_record("launch", "l2", host="lxc")
    ours, theirs = (remover, keeper) if removed_here else (keeper, remover)
    merged = merge_sessions(base, ours.session, theirs.session).session
    assert next(x for x in merged.launch if x.id == "l2").host == "lxc"
    assert "lxc" in {h.name for h in merged.hosts}, "a profile names a host the merge dropped"


@ORDERS
def test_a_run_linked_to_a_profile_the_other_side_deleted_loses_the_link_not_the_run(removed_here: bool) -> None:
    base, remover, keeper = _sides()
    remover.delete_record("launch", "l2")
    keeper.edit_benchmark("b2", profile="l2")
    ours, theirs = (remover, keeper) if removed_here else (keeper, remover)
    result = merge_sessions(base, ours.session, theirs.session)
    merged = result.session
    assert "l2" not in {x.id for x in merged.launch}
    bench = next(b for b in merged.benchmarks if b.id == "b2")
    assert bench.profile is None
    assert result.dropped_links == ["b2.profile -> l2"]
    [note] = [e for e in merged.journal if e.kind == "merge.links"]
    assert "b2.profile -> l2" in note.text
