"""The one way to record (control/session_port.py): a sweep point through either port, the
open session's controller (the TUI's; saved by the controller itself, no app in between) or
the session file's transaction, lands on disk journaled as the sweep; the file port parses
the file only when another writer changed it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from cockpit.control.session_controller import SessionController
from cockpit.control.session_port import ControllerPort, PortSink, SessionPort
from cockpit.control.transaction import SWEEP, SessionFile, edit
from cockpit.model.session import Session, Sweep
from cockpit.store import toml_store
from cockpit.store.toml_store import load_session, save_session

FIELDS = {"label": "sweep c4", "sweep": "s1", "sweep_run": "r1", "concurrency": 4}


def _session(path: Path) -> Path:
    save_session(Session(title="one port", sweeps=[Sweep(
        id="s1", name="one", input_len=16, output_len=8, concurrencies=[4], prompts_per_concurrency=1)]), path)
    return path


@pytest.mark.parametrize("kind", ["controller", "file"])
def test_a_point_recorded_through_either_port_is_on_disk_merged_with_another_writers(tmp_path: Path,
                                                                                     kind: str) -> None:
    path = _session(tmp_path / "s.toml")
    port: SessionPort = (ControllerPort(SessionController.open(path)) if kind == "controller"
                         else SessionFile(path, actor=SWEEP))
    edit(path, lambda e: e.add_task("another writer's"), "person")  # saved meanwhile: merged, not lost
    sink = PortSink(port)
    ident = asyncio.run(sink.record("s1:r1:c4", FIELDS))
    assert asyncio.run(sink.record("s1:r1:c4", FIELDS)) == ident  # a resumed run's point is not doubled
    assert port.saved
    on_disk = load_session(path)
    assert [(b.id, b.label) for b in on_disk.benchmarks] == [(ident, "sweep c4")]
    assert [t.title for t in on_disk.tasks] == ["another writer's"]
    # the TUI's records are the person's session edits (undo); the file's say who wrote them
    said = "benchmark added: sweep c4" + (" (via sweep)" if kind == "file" else "")
    assert [e.text for e in on_disk.journal if e.kind == "benchmark.added"] == [said]


def test_the_file_port_parses_the_file_only_when_another_writer_changed_it(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    path = _session(tmp_path / "s.toml")
    port = SessionFile(path)
    parses: list[str] = []
    real = toml_store.loads_session
    monkeypatch.setattr(toml_store, "loads_session", lambda text, where="<string>": parses.append(str(where))
                        or real(text, where))
    assert port.session.title == "one port" and len(parses) == 1  # the first read
    asyncio.run(port.apply(lambda e: e.add_task("first")))
    asyncio.run(port.apply(lambda e: e.add_task("second")))
    assert [t.title for t in port.session.tasks] == ["first", "second"] and len(parses) == 1  # its own writes
    edit(path, lambda e: e.add_task("by hand"), "person")  # another writer: its text is read once
    assert len(parses) == 2
    assert [t.title for t in port.session.tasks] == ["first", "second", "by hand"] and len(parses) == 3
    asyncio.run(port.apply(lambda e: e.add_task("third")))
    assert len(parses) == 3
