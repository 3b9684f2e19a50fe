"""The one session transaction (control/transaction.py): `cockpit add`, the MCP tools and
`cockpit sweep`'s records all go through it, each journaled as who acted, and none of
them loses what another writer saved meanwhile."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from mcp import Client

from cockpit.assistant.mcp_server import build_server
from cockpit.cli import main as cockpit_main
from cockpit.control import transaction
from cockpit.control.session_port import PortSink
from cockpit.control.transaction import SessionFile
from cockpit.model.edit.edits import SessionEditor
from cockpit.model.session import Session, Sweep
from cockpit.store.toml_store import load_session, save_session


def _session(path: Path) -> Path:
    save_session(Session(title="one transaction", sweeps=[Sweep(
        id="s1", name="one", input_len=16, output_len=8, concurrencies=[4], prompts_per_concurrency=1)]), path)
    return path


async def _mcp_add(path: Path, title: str) -> None:
    async with Client(build_server(path)) as client:
        result = await client.call_tool("add_task", {"title": title})
    assert not result.is_error, result.content


def test_the_three_writers_go_through_the_one_transaction_and_the_journal_names_each(tmp_path, monkeypatch):
    path = _session(tmp_path / "s.toml")
    actors: list[str] = []
    real = transaction.edit_session

    def spy(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        actors.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(transaction, "edit_session", spy)

    assert cockpit_main(["add", "task", str(path), "from the shell"]) == 0
    asyncio.run(_mcp_add(path, "from the assistant"))
    sink = PortSink(SessionFile(path))
    ident = asyncio.run(sink.record("s1:r1:c4", {"label": "sweep c4", "sweep": "s1", "sweep_run": "r1",
                                                 "concurrency": 4}))

    assert actors == ["person", "assistant", "sweep"]
    session = load_session(path)
    assert {t.title for t in session.tasks} == {"from the shell", "from the assistant"}
    assert [b.label for b in session.benchmarks] == ["sweep c4"] and session.benchmarks[0].id == ident
    said = [e.text for e in session.journal]
    assert said == ["task added: from the shell", "task added: from the assistant (via assistant)",
                    "benchmark added: sweep c4 (via sweep)"], said


def test_a_sweep_point_recorded_twice_is_one_record(tmp_path):
    # A resumed run whose point landed meanwhile: checked under the lock, not doubled.
    path = _session(tmp_path / "s.toml")
    sink = PortSink(SessionFile(path))
    fields = {"label": "sweep c4", "sweep": "s1", "sweep_run": "r1", "concurrency": 4}
    first = asyncio.run(sink.record("s1:r1:c4", fields))
    again = asyncio.run(sink.record("s1:r1:c4", fields))
    assert first == again == sink.recorded("s1:r1:c4")
    assert len(load_session(path).benchmarks) == 1


def test_a_cockpit_add_and_an_mcp_add_landing_together_lose_nothing(tmp_path, monkeypatch):
    """The MCP add lands while `cockpit add` holds the transaction (read done, not yet
    written): it waits for the lock and reads what the shell wrote. Both stay."""
    path = _session(tmp_path / "s.toml")
    landed: list[threading.Thread] = []
    real_add = SessionEditor.add_task

    def add_while_an_mcp_call_lands(self, title, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if title.startswith("shell") and not landed:
            mcp = threading.Thread(target=lambda: asyncio.run(_mcp_add(path, "mcp add")))
            mcp.start()
            landed.append(mcp)
            mcp.join(0.5)  # it is waiting on the lock this transaction holds
            assert mcp.is_alive(), "the MCP add did not wait for the shell's transaction"
        return real_add(self, title, *args, **kwargs)

    monkeypatch.setattr(SessionEditor, "add_task", add_while_an_mcp_call_lands)
    assert cockpit_main(["add", "task", str(path), "shell add"]) == 0
    landed[0].join(30)
    assert not landed[0].is_alive()
    session = load_session(path)
    assert sorted(t.title for t in session.tasks) == ["mcp add", "shell add"]
    assert [e.text for e in session.journal] == ["task added: shell add", "task added: mcp add (via assistant)"]


def test_a_hand_edit_landing_inside_a_transaction_is_taken_in_not_written_over(tmp_path):
    """A writer that ignores the lock (an editor saving the file by hand) between the read
    and the write: the signature of the read no longer matches, so the change is applied
    again on top of what it saved."""
    path = _session(tmp_path / "s.toml")
    calls = 0

    def change(editor: SessionEditor) -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            by_hand = load_session(path)
            by_hand.title = "retitled by hand"
            save_session(by_hand, path)
        return editor.add_task("through the transaction")

    transaction.edit(path, change, "assistant")
    session = load_session(path)
    assert session.title == "retitled by hand"
    assert [t.title for t in session.tasks] == ["through the transaction"] and calls == 2
