"""Accepting and dismissing findings: one undoable edit each, kept by evidence key through a
merge with another writer and a save and load."""

from __future__ import annotations

from pathlib import Path

import pytest

from paths import EXAMPLE_SESSION

from cockpit.model.edit.edits import SessionEditor
from cockpit.model.edit.merge import merge_sessions
from cockpit.model.finding_decisions import DecisionError, accept_finding, dismiss_finding
from cockpit.store.toml_store import load_session, save_session


def test_accept_makes_a_linked_hypothesis_and_undo_takes_both_back() -> None:
    e = SessionEditor(load_session(EXAMPLE_SESSION))
    ident = accept_finding(e, key="regression:b2", kind="regression", claim="b2 is a regression",
                           evidence="- 236 tok/s", benchmarks=["b2", "b99"])
    d = e.session.discoveries[-1]
    assert (d.id, d.status.value, d.benchmarks, d.tags) == (ident, "hypothesis", ["b2"], ["diagnosis", "regression"])
    assert e.session.findings[-1].discovery == ident and e.session.findings[-1].by is None
    with pytest.raises(DecisionError):
        dismiss_finding(e, key="regression:b2", kind="regression", claim="again")
    e.undo()
    assert not e.session.findings and ident not in {x.id for x in e.session.discoveries}


def test_the_assistant_is_said_as_who_decided() -> None:
    e = SessionEditor(load_session(EXAMPLE_SESSION), actor="assistant")
    accept_finding(e, key="k", kind="throttle", claim="GPU 2 is throttled", evidence="x")
    assert e.session.findings[-1].by == "assistant" and "via assistant" in e.session.discoveries[-1].tags
    assert e.session.journal[-1].text.endswith("(via assistant)")


def test_decisions_of_two_writers_merge_by_key_and_round_trip(tmp_path: Path) -> None:
    base = load_session(EXAMPLE_SESSION)
    ours, theirs = SessionEditor(base), SessionEditor(base)
    dismiss_finding(ours, key="pcie_downgrade::5:gen5 x8<gen5 x16", kind="pcie_downgrade", claim="GPU 5 x8")
    dismiss_finding(theirs, key="numa_split:tp8:16sys", kind="numa_split", claim="TP8 spans sockets")
    merged = merge_sessions(base, ours.session, theirs.session).session
    assert [f.key for f in merged.findings] == ["numa_split:tp8:16sys", "pcie_downgrade::5:gen5 x8<gen5 x16"]
    save_session(merged, tmp_path / "s.toml")
    assert load_session(tmp_path / "s.toml").findings == merged.findings
