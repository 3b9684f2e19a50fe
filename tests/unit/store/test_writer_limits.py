"""No writer can make the session unloadable: each text a writer sets has a bound (a title a
16 KB, notes and commands 64 KB), and a save that would write a file over the size a load
accepts is refused with nothing written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client

from cockpit.assistant.mcp_server import build_server
from cockpit.control.session_controller import SessionController
from cockpit.store.toml_store import load_session

TWO_MB = "x" * (2 * 1024 * 1024)


@pytest.fixture
def path(example_copy: Path) -> Path:
    return example_copy


def cockpit(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cockpit", *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **env})


async def test_five_mcp_add_task_calls_with_a_2_mb_title_are_refused_and_the_file_still_loads(path):
    before = path.read_bytes()
    async with Client(build_server(path)) as c:
        for _ in range(5):
            result = await c.call_tool("add_task", {"title": TWO_MB})
            assert result.is_error
            text = result.content[0].text  # type: ignore[union-attr]
            assert "title: 2,097,152 characters, over the 16,384-character limit" in text and len(text) < 1000
        ok = await c.call_tool("add_task", {"title": "a fair title", "notes": "n" * 60_000})
        assert not ok.is_error
    assert path.stat().st_size < len(before) + 70_000
    assert "a fair title" in {t.title for t in load_session(path).tasks}


def test_cockpit_add_refuses_a_title_over_its_bound_and_writes_nothing(path):
    before = path.read_bytes()
    done = cockpit("add", "task", str(path), "t" * 100_000)
    assert done.returncode == 1
    assert "tasks[" in done.stderr and "100,000 characters, over the 16,384-character limit" in done.stderr
    assert len(done.stderr) < 1000 and path.read_bytes() == before
    notes = cockpit("add", "task", str(path), "long notes", "--notes", "n" * 70_000)
    assert notes.returncode == 1 and "over the 65,536-character limit" in notes.stderr


def test_a_long_text_already_in_the_file_stays_savable(path):
    """A hand-written long note is the person's: other writers still save around it."""
    text = path.read_text(encoding="utf-8").replace('title = "', 'title = "' + "h" * 30_000, 1)
    path.write_text(text, encoding="utf-8")
    assert cockpit("add", "task", str(path), "next").returncode == 0
    assert load_session(path).title.startswith("h" * 30_000)


def test_a_save_that_would_pass_the_load_limit_is_refused_with_nothing_written(path, monkeypatch):
    size = path.stat().st_size
    limit = size + 20_000
    env = {"COCKPIT_MAX_SESSION_BYTES": str(limit)}
    outcomes = [cockpit("add", "task", str(path), f"task {i}", "--notes", "n" * 4000, **env) for i in range(8)]
    refused = [o for o in outcomes if o.returncode]
    assert refused, "the limit is reached within 8 adds of 4 KB"
    assert "not saved: the session would be" in refused[0].stderr and f"over the {limit:,}-byte limit" in refused[0].stderr
    assert "nothing was written" in refused[0].stderr
    assert path.stat().st_size <= limit
    monkeypatch.setenv("COCKPIT_MAX_SESSION_BYTES", str(limit))
    load_session(path)  # still loads under the same limit
    assert not list(path.parent.glob(".s.toml.*.tmp"))


def test_the_tui_controller_refuses_to_save_an_edit_over_its_bound(path):
    control = SessionController.open(path)
    before = path.read_bytes()
    control.apply(lambda e: e.add_task("ok"))
    control.apply(lambda e: e.edit_task(control.session.tasks[-1].id, title="T" * 20_000))
    outcome = control.save()
    assert outcome.status == "failed" and "over the 16,384-character limit" in outcome.message
    assert path.read_bytes() == before
    control.undo()
    assert control.save().saved and load_session(path).tasks[-1].title == "ok"
