"""No write lost in a writer's start-up gap: an add that lands after a writer read the file,
at any moment before its first save (Textual importing, sources starting, a sweep waiting
on /health), is kept by that save. The base a writer merges against is what it read, with
the signature of that same read."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from cockpit.control.session_controller import SessionController
from cockpit.model.edit.edits import SessionEditor
from cockpit.store.lock import session_lock
from cockpit.store.signature import disk_signature
from cockpit.store.toml_store import load_session, load_session_with_signature, save_session


@pytest.fixture
def path(example_copy: Path) -> Path:
    return example_copy


def outside_add(path: Path, title: str) -> None:
    """What `cockpit add task` does from another shell: locked read-modify-write."""
    with session_lock(path):
        editor = SessionEditor(load_session(path))
        editor.add_task(title)
        save_session(editor.session, path)


def titles(path: Path) -> set[str]:
    return {t.title for t in load_session(path).tasks}


# ----- the controller ------------------------------------------------------------------------

def _add_after_the_read(monkeypatch: Any, path: Path) -> None:
    """Another writer adds a task right after the TUI's start read the file."""
    from cockpit.cli import open_tui

    real_resolve = open_tui.resolve_session

    def resolve(arg: Any) -> Any:
        out = real_resolve(arg)
        outside_add(path, "gap add")
        return out

    monkeypatch.setattr(open_tui, "resolve_session", resolve)

def test_the_signature_comes_from_the_read_not_from_a_later_stat(path):
    session, sig = load_session_with_signature(path)
    outside_add(path, "landed after the read")
    assert disk_signature(path) != sig, "the add changed the file's signature"
    control = SessionController(session, path, disk_sig=sig)
    assert control.outside_change() == disk_signature(path), "the watcher sees the add"
    control.apply(lambda e: e.add_task("mine"))
    assert control.save().saved
    assert {"landed after the read", "mine"} <= titles(path)
    assert control.merge_note, "what the merge took in, for the header"


def test_a_controller_without_a_signature_merges_at_its_first_save(path):
    """A caller that forgot the signature loses nothing: the file is taken as changed."""
    session = load_session(path)
    outside_add(path, "landed before the build")
    control = SessionController(session, path)
    control.apply(lambda e: e.add_task("mine"))
    assert control.save().saved
    assert {"landed before the build", "mine"} <= titles(path)


def test_an_unchanged_file_under_an_unknown_signature_is_no_merge(path):
    control = SessionController(load_session(path), path)
    theirs, sig = control.read_disk_signed()
    assert control.take_outside(theirs, sig, control.base) is None
    assert control.disk_sig == sig and control.editor.revision == 0 and control.outside_change() is None


def test_the_signature_after_a_save_is_the_written_file(path):
    """Taken from the write itself: a save that lands right after ours is still an outside change."""
    control = SessionController.open(path)
    control.apply(lambda e: e.add_task("mine"))
    assert control.save().saved
    assert control.disk_sig == disk_signature(path)
    outside_add(path, "right after")
    assert control.outside_change() is not None


def test_same_size_same_mtime_is_still_a_change_by_inode(path):
    """Two saves within one mtime tick and the same size differ by inode (every save replaces)."""
    session, sig = load_session_with_signature(path)
    st = os.stat(path)
    editor = SessionEditor(load_session(path))
    editor.session.title = editor.session.title[:-1] + ("X" if editor.session.title[-1] != "X" else "Y")
    save_session(editor.session, path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_size == st.st_size and os.stat(path).st_mtime_ns == st.st_mtime_ns
    control = SessionController(session, path, disk_sig=sig)
    assert control.outside_change() is not None


# ----- the TUI: `cockpit FILE` ----------------------------------------------------------------
class _Stop(Exception):
    pass


@pytest.mark.parametrize("moment", ["after the read", "while sources start", "after the app is built"])
def test_the_tui_keeps_an_add_made_at_any_moment_of_its_start_up(path, monkeypatch, tmp_path, moment):
    """`cockpit FILE`: the file is read, then Textual is imported, the sources start and the
    app is built; an add from another shell in any of those gaps is kept by the TUI's save."""
    from cockpit.cli import open_tui
    from cockpit.sources import session_feeds
    from cockpit.ui.app import CockpitApp

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    if moment == "after the read":
        _add_after_the_read(monkeypatch, path)
    elif moment == "while sources start":
        real_sources = session_feeds.sources_for_session

        def sources(session: Any) -> Any:
            outside_add(path, "gap add")
            return real_sources(session)

        monkeypatch.setattr(session_feeds, "sources_for_session", sources)
    seen: dict[str, Any] = {}

    def run(self: CockpitApp, *a: Any, **k: Any) -> None:
        """The real TUI, headless: its first look at the file, then an edit and a save."""
        if moment == "after the app is built":
            outside_add(path, "gap add")
        self.watch_interval_s = None  # the test takes the first look itself

        async def drive() -> None:
            async with self.run_test(headless=True) as pilot:
                await pilot.pause()
                await self.saving.check_disk()
                await pilot.pause()
                seen["tasks"] = {t.title for t in self.editor.session.tasks}
                seen["header"] = str(self.main_screen.query_one("#header-dirty").render())
                self.controller.apply(lambda e: e.add_task("typed in the TUI"))
                seen["saved"] = self.save()

        asyncio.run(drive())

    monkeypatch.setattr(CockpitApp, "run", run)
    args = argparse.Namespace(session=str(path), demo=False, fresh=False, theme=None)
    assert open_tui.run_tui(args) == 0
    assert seen["saved"]
    assert {"gap add", "typed in the TUI"} <= titles(path)
    assert "gap add" in seen["tasks"], "the TUI shows the add at its first look"
    assert "merged 1 outside change" in seen["header"], seen


def test_a_new_session_created_by_the_tui_keeps_an_add_made_before_its_first_save(tmp_path, monkeypatch):
    from cockpit.cli import open_tui
    # the person answers y at "does not exist: create it?" (a new session is an explicit step)
    monkeypatch.setattr(open_tui, "_confirm_create", lambda path: True)
    from cockpit.ui.app import CockpitApp

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    path = tmp_path / "new.toml"
    _add_after_the_read(monkeypatch, path)
    monkeypatch.setattr(CockpitApp, "run", lambda self: self.controller.save())
    assert open_tui.run_tui(argparse.Namespace(session=str(path), demo=False, fresh=False, theme=None)) == 0
    assert "gap add" in titles(path)


# ----- `cockpit sweep` ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from sweep_support import StandinServer

    srv = StandinServer(tok_s=3000)
    yield srv
    srv.close()


def _sweep_session(tmp_path: Path, port: int) -> Path:
    from sweep_support import make_bench_python

    from cockpit.model.session import Host, LaunchProfile, Session, Sweep

    path = tmp_path / "s.toml"
    save_session(Session(
        hosts=[Host(name="local", run_dir=str(tmp_path / "runs"))],
        launch=[LaunchProfile(id="l1", name="base", host="local", python=make_bench_python(tmp_path),
                              command=f"python -m sglang.launch_server --model-path m --port {port}")],
        sweeps=[Sweep(id="s1", name="one", input_len=16, output_len=8, concurrencies=[1],
                      prompts_per_concurrency=1)]), path)
    return path


@pytest.mark.parametrize("moment", ["after the read", "while it looks for running servers", "during a slow /health"])
def test_a_sweep_keeps_an_add_made_at_any_moment_of_its_start_up(tmp_path, server, moment, monkeypatch, capsys):
    from cockpit.cli.experiment import sweep_cmd
    from cockpit.control import sweep_session

    path = _sweep_session(tmp_path, server.port)
    hooked = {"after the read": "find_sweep", "while it looks for running servers": "running_profiles",
              "during a slow /health": "server_ready"}[moment]
    real = getattr(sweep_session, hooked)
    if asyncio.iscoroutinefunction(real):
        async def hook(*a: Any, **k: Any) -> Any:
            outside_add(path, "gap add")
            await asyncio.sleep(0.3)  # slow: the add lands well inside the wait
            return await real(*a, **k)
    else:
        def hook(*a: Any, **k: Any) -> Any:  # type: ignore[misc]
            outside_add(path, "gap add")
            return real(*a, **k)
    monkeypatch.setattr(sweep_session, hooked, hook)
    monkeypatch.setattr(sys, "stdin", open(os.devnull))
    parser = argparse.ArgumentParser()
    sweep_cmd.register(parser.add_subparsers())
    args = parser.parse_args(["sweep", str(path), "s1", "--yes"])
    status = sweep_cmd.cmd_sweep(args)
    out = capsys.readouterr()
    assert status == 0, out.out + out.err
    session = load_session(path)
    assert "gap add" in {t.title for t in session.tasks}
    assert [b.concurrency for b in session.benchmarks] == [1] and session.sweeps[0].confirmed


# ----- the MCP server and `cockpit add`: every call is one locked read-modify-write ------------------
async def test_mcp_keeps_an_add_made_between_its_start_and_its_first_call(path):
    from mcp import Client

    from cockpit.assistant.mcp_server import build_server

    server = build_server(path)
    outside_add(path, "before the client connects")
    async with Client(server) as client:
        outside_add(path, "after the client connected")
        result = await client.call_tool("add_task", {"title": "from the assistant"})
        assert not result.is_error
    assert {"before the client connects", "after the client connected", "from the assistant"} <= titles(path)


def test_cockpit_add_keeps_an_add_landing_while_it_waits_for_the_lock(path):
    import subprocess
    import threading

    with session_lock(path):
        shell = subprocess.Popen([sys.executable, "-m", "cockpit", "add", "task", str(path), "from the shell"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # It reads only once it holds the lock: whatever lands before is in its base.
        editor = SessionEditor(load_session(path))
        editor.add_task("landed while it waited")
        save_session(editor.session, path)
        threading.Event().wait(0.3)
    assert shell.wait(timeout=60) == 0, shell.stderr.read() if shell.stderr else ""
    assert {"landed while it waited", "from the shell"} <= titles(path)
