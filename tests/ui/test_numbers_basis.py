"""Numbers with a basis in the TUI (issue 39 item 7): the header counts the findings the
findings view lists, and `v` in Packages records the versions or says why it cannot."""

from __future__ import annotations

import sys
from pathlib import Path

from textual.widgets import Static

from tui_support import make_app, screen_text, until

from cockpit.model.session import LaunchProfile, Package, Session
from cockpit.store.toml_store import save_session
from cockpit.ui.screens.findings import FindingsScreen


async def test_the_header_counts_what_the_findings_view_lists(example_path: Path) -> None:
    app = make_app(example_path)  # (the 1 Hz watch is off in these tests: only the view counts)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        await pilot.press("D")
        await until(lambda: isinstance(app.screen, FindingsScreen), pilot)
        listed = len(app.screen.findings)
        assert listed > 0
        assert f"Findings · {listed} open" in screen_text(app)
        await pilot.press("escape")
        header = app.main_screen.query_one("#header-findings", Static)
        word = "finding" if listed == 1 else "findings"
        await until(lambda: f"{listed} {word}" in str(header.render()), pilot)


async def test_v_with_no_package_says_why_nothing_is_recorded(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    save_session(Session(), path)
    app = make_app(path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("6", "v")
        await until(lambda: "add one first" in screen_text(app), pilot)


async def test_v_when_every_version_is_as_recorded_says_so(tmp_path: Path) -> None:
    from importlib import metadata

    path = tmp_path / "s.toml"
    save_session(Session(packages=[Package(id="p1", name="pytest", version=metadata.version("pytest"))],
                         launch=[LaunchProfile(id="l1", name="here", status="working",
                                               command=f"{sys.executable} -m sglang.launch_server --tp 1")]), path)
    app = make_app(path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("6", "v")
        await until(lambda: "Nothing recorded: 1 already as recorded" in screen_text(app), pilot, timeout=30)
        assert len(app.editor.session.journal) == 0  # no edit made
