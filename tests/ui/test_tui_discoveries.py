"""Discoveries: status changes flag the tasks resting on them; add and edit with links."""

from __future__ import annotations

from tui_support import keys_for, make_app, screen_text, task

from cockpit.model.enums import DiscoveryStatus
from cockpit.ui.screens.forms.records import DiscoveryForm
from cockpit.ui.widgets.session.task_board import TaskBoard


def disc(app, ident):  # noqa: ANN001, ANN201
    return next(d for d in app.editor.session.discoveries if d.id == ident)


async def test_a_status_change_flags_linked_tasks_until_acknowledged(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("3", "down")  # d2, which t3 rests on
        await pilot.press("s")
        assert disc(app, "d2").status is DiscoveryStatus.CONFIRMED
        assert task(app, "t3").review is True
        assert task(app, "t1").review is False, "unlinked tasks are left alone"
        assert "⚑ review" in screen_text(app), "the detail pane lists the flagged task"
        await pilot.press("1")
        assert "⚑ review t3" in screen_text(app), "the board shows the flag"
        await pilot.press("l", "r")
        assert app.screen.query_one(TaskBoard).selected_task_id == "t3"
        assert task(app, "t3").review is False
        assert "⚑ review" not in screen_text(app)


async def test_status_cycles_hypothesis_confirmed_refuted(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("3", "down")
        seen = []
        for _ in range(3):
            await pilot.press("s")
            seen.append(disc(app, "d2").status)
        assert seen == [DiscoveryStatus.CONFIRMED, DiscoveryStatus.REFUTED, DiscoveryStatus.HYPOTHESIS]


async def test_a_discovery_is_added_with_evidence_and_links(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("3", "a")
        form = app.screen
        assert isinstance(form, DiscoveryForm)
        await pilot.press(*keys_for("EP=8 halves allreduce traffic"))
        form.query_one("#field-evidence").text = "b3 vs b1"
        form.query_one("#field-benchmarks").value = "b3 b9"
        form.query_one("#field-tasks").value = "t1"
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, DiscoveryForm), "an unknown id keeps the form open"
        assert "unknown benchmark id b9" in screen_text(app)
        form.query_one("#field-benchmarks").value = "b3"
        await pilot.press("ctrl+s")
        added = disc(app, "d4")
        assert (added.claim, added.evidence, added.benchmarks, added.tasks) == (
            "EP=8 halves allreduce traffic", "b3 vs b1", ["b3"], ["t1"])
        assert "EP=8 halves allreduce traffic" in screen_text(app)
        await pilot.press("u")  # the claim and its links were one edit: one undo takes both
        assert [d.id for d in app.editor.session.discoveries] == ["d1", "d2", "d3"]
        assert app.editor.session.journal[-1].kind != "discovery.added"


async def test_editing_the_status_in_the_form_also_flags_tasks(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("3", "e")  # d1, which t2 rests on
        form = app.screen
        form.query_one("#field-status").value = "refuted"
        await pilot.press("ctrl+s")
        assert disc(app, "d1").status is DiscoveryStatus.REFUTED
        assert task(app, "t2").review is True
