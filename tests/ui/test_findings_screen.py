"""The findings in the TUI (pilot): the header's count, `D`, accept into Discoveries with
the evidence, dismiss (remembered in the session, gone from the list), `u` undoes."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList, Static

from tui_support import make_app, until

from cockpit.store.toml_store import load_session
from cockpit.ui.live.diagnosis import FindingsWatch
from cockpit.ui.screens.findings import FindingsScreen


@pytest.fixture(autouse=True)
def watch_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(FindingsWatch, "enabled", True)


def _text(app, selector: str) -> str:  # noqa: ANN001
    return str(app.screen.query_one(selector, Static).render())


async def test_count_in_header_then_accept_and_dismiss(example_path: Path) -> None:
    app = make_app(example_path)
    async with app.run_test(size=(120, 40)) as pilot:
        # the example session alone: b2's drop (236 tok/s, down from 1,867) is a regression, and
        # b1's notes (~330 W of 600 W) say the GPUs were starved
        header = app.main_screen.query_one("#header-findings", Static)
        await until(lambda: "2 findings" in str(header.render()), pilot)
        await pilot.press("D")
        await until(lambda: isinstance(app.screen, FindingsScreen), pilot)
        screen = app.screen
        assert [f.key for f in screen.findings] == ["regression:b2", "power_starved:profile l1"]
        assert "236 output tok/s, down from 1,867" in _text(app, "#findings-detail")
        await pilot.press("a")
        await until(lambda: len(screen.findings) == 1, pilot)
        d8 = next(d for d in app.editor.session.discoveries if d.id == "d8")
        assert d8.status.value == "hypothesis" and d8.benchmarks == ["b2"]
        assert "power fell to ~125 W" in (d8.evidence or "") and d8.tags[:2] == ["diagnosis", "regression"]
        assert "starved" in _text(app, "#findings-detail")
        await pilot.press("x")
        await until(lambda: not screen.findings, pilot)
        assert "No open finding" in _text(app, "#findings-detail")
        assert app.screen.query_one(OptionList).option_count == 0
        assert "1 finding" not in str(header.render()) and not header.display
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, FindingsScreen), pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        saved = load_session(example_path)
        assert [(d.key, d.decision, d.by) for d in saved.findings] == [
            ("regression:b2", "accepted", None), ("power_starved:profile l1", "dismissed", None)]
        assert saved.journal[-1].kind == "finding.dismissed"
        await pilot.press("u")  # one undoable edit each
        await until(lambda: len(app.editor.session.findings) == 1, pilot)
        await pilot.press("u")
        await until(lambda: not app.editor.session.findings, pilot)
        assert "d8" not in {d.id for d in app.editor.session.discoveries}
