"""Start-up without full garbage collections (a 5,000-task session's first frame:
benchmarks/README.md): the collector is held while the session loads and the app is built, and runs
again once the first frame is drawn, or when the app quits before it."""

from __future__ import annotations

import gc

from tui_support import make_app

from cockpit.store.toml_store import load_session


def test_loading_a_session_leaves_the_collector_as_it_found_it(example_path) -> None:  # noqa: ANN001
    assert gc.isenabled()
    session = load_session(example_path)
    assert session.tasks and gc.isenabled()
    gc.disable()
    try:
        load_session(example_path)
        assert not gc.isenabled(), "a caller that had it off keeps it off"
    finally:
        gc.enable()


async def test_the_collector_is_held_while_the_app_is_built_and_runs_after_the_first_frame(
        example_path, monkeypatch) -> None:  # noqa: ANN001
    from cockpit.ui.screens.main.screen import MainScreen

    during_mount: list[bool] = []
    original = MainScreen.on_mount

    def on_mount(screen: MainScreen) -> None:
        during_mount.append(gc.isenabled())
        original(screen)

    monkeypatch.setattr(MainScreen, "on_mount", on_mount)
    app = make_app(example_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert during_mount == [False], "no collections while the screens are built"
        assert gc.isenabled(), "settled after the first frame: the collector runs again"
        assert "todo" in app.main_screen.query_one("#tasks-todo").parent.query_one(".column-title").render().plain
    assert gc.isenabled()


def test_an_app_that_goes_away_before_its_first_frame_gives_the_collector_back() -> None:
    """What on_unmount does (release) when the app quits before the first frame settled it."""
    from cockpit.ui import gc_settle

    gc_settle.hold()
    try:
        assert not gc.isenabled()
    finally:
        gc_settle.release()
    assert gc.isenabled()
    gc.disable()  # held by someone else: hold/settle leave it as they found it
    try:
        gc_settle.hold()
        gc_settle.settle()
        assert not gc.isenabled()
    finally:
        gc_settle.release()
        gc.enable()
