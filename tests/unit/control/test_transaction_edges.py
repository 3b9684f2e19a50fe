"""The transaction's retry bound (control/transaction.py): a hand edit landing inside the
change is taken in and the change applied again, up to three reads; a file still changing
after the third is refused with EBUSY, the hand edits kept and the change not written."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from cockpit.control import transaction
from cockpit.model.edit.edits import SessionEditor
from cockpit.model.session import Session
from cockpit.store.toml_store import load_session, save_session


def _hand_edits(path: Path, times: int):
    """A change that, on each of its first TIMES runs, lets a writer that ignores the lock
    save a new title between the transaction's read and its write."""
    calls: list[int] = []

    def change(editor: SessionEditor) -> str:
        calls.append(1)
        if len(calls) <= times:
            by_hand = load_session(path)
            by_hand.title = f"retitled by hand {len(calls)}"
            save_session(by_hand, path)
        return editor.add_task("through the transaction")

    return change, calls


@pytest.mark.parametrize("hand_edits", [1, 2])
def test_hand_edits_inside_the_bound_are_taken_in_and_the_change_lands(tmp_path: Path, hand_edits: int) -> None:
    path = tmp_path / "s.toml"
    save_session(Session(title="start"), path)
    change, calls = _hand_edits(path, hand_edits)
    transaction.edit(path, change, "assistant")
    session = load_session(path)
    assert session.title == f"retitled by hand {hand_edits}"
    assert [t.title for t in session.tasks] == ["through the transaction"]
    assert len(calls) == hand_edits + 1


def test_a_file_changing_on_every_one_of_three_reads_is_refused_and_keeps_the_hand_edits(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    save_session(Session(title="start"), path)
    change, calls = _hand_edits(path, 3)
    with pytest.raises(OSError) as err:
        transaction.edit(path, change, "assistant")
    assert err.value.errno == errno.EBUSY and "changed 3 times" in str(err.value)
    session = load_session(path)
    assert session.title == "retitled by hand 3" and session.tasks == []
    assert len(calls) == 3
