"""A tab switch does only the work the switch needs (issue 39: the key after `0` waited
~0.5 s, most of it the switch back to the main tab, not the handoff): with the session
unchanged the board is neither rebuilt nor redrawn, the footer's keys are updated in place
(not mounted again), and the handoff's long text is drawn as a Static draws it. The wall
and CPU times are benchmarks/bench_handoff.py's."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.content import Content
from textual.geometry import Region
from textual.widgets import OptionList, Static
from textual.widgets._footer import FooterKey

from tui_support import make_app, screen_text, until

from cockpit.ui.widgets.chrome.fitted_footer import FittedFooter
from cockpit.ui.widgets.chrome.long_text import LongText
from cockpit.ui.widgets.session.task_board import TaskBoard, TaskList


def _footer_line(app) -> str:  # noqa: ANN001
    return screen_text(app).rstrip("\n").splitlines()[-1]


async def test_tab_switches_with_an_unchanged_session_leave_the_board_and_footer_keys_be(session_path,
                                                                                        monkeypatch):
    shows: list[object] = []
    cleared: list[str] = []
    real_show, real_clear = TaskBoard.show, OptionList._clear_caches

    def show(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        shows.append(self)
        return real_show(self, *args, **kwargs)

    def clear(self):  # noqa: ANN001, ANN202
        if isinstance(self, TaskList):
            cleared.append(self.id or "")
        return real_clear(self)

    monkeypatch.setattr(TaskBoard, "show", show)
    monkeypatch.setattr(OptionList, "_clear_caches", clear)
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.main_screen
        await until(lambda: "▶ todo" in screen_text(app) and "? Keys" in _footer_line(app), pilot)
        await pilot.pause(0.3)  # the first frame's deferred work (hidden tabs) done
        shows.clear()
        cleared.clear()
        keys_before = list(screen.query_one(FittedFooter).query(FooterKey))
        main_footer = _footer_line(app)
        assert "W Write file" not in main_footer

        await pilot.press("0")  # the Handoff tab: its own keys in the footer
        await until(lambda: "W Write file" in _footer_line(app), pilot)
        await pilot.press("1", "4", "1")  # back, the Benchmarks tab, back
        await until(lambda: screen.active_tab == "main" and _footer_line(app) == main_footer, pilot)
        await until(lambda: "▶ todo" in screen_text(app), pilot)

        assert shows == [] and cleared == []  # nothing of the board made or drawn again
        keys_after = list(screen.query_one(FittedFooter).query(FooterKey))
        assert set(keys_before) <= set(keys_after)  # the same key widgets, updated in place (and more)
        assert "Try EP=8 with DeepEP" in screen_text(app)

        # A changed session, on the other hand, is shown when its tab is next shown.
        await pilot.press("4")
        await until(lambda: screen.active_tab == "benchmarks", pilot)
        app.controller.apply(lambda editor: editor.add_task("added unseen"))
        assert shows == []
        await pilot.press("1")
        await until(lambda: "added unseen" in screen_text(app), pilot)
        assert len(shows) == 1


class _Both(App[None]):
    CSS = "Static { padding: 0 1; width: 36; }"

    def __init__(self, content: Content) -> None:
        super().__init__()
        self.content = content

    def compose(self) -> ComposeResult:
        yield Static(self.content, id="static")
        yield LongText(self.content, classes="long")


async def test_long_text_draws_what_a_static_draws_and_again_after_an_update():
    words = "lorem ipsum dolor sit amet, consectetur adipiscing elit"
    lines: list[str | tuple[str, str]] = []
    for i in range(120):
        lines += [(f"line {i} ", "bold $primary") if i % 7 == 0 else f"line {i} ",
                  words * (i % 3) + "\t| a | b |", "\n"]
    app = _Both(Content.assemble(*lines))
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        static, long = app.query_one("#static", Static), app.query_one(LongText)

        def drawn(widget: Static) -> list[list[tuple[str, object]]]:
            strips = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
            return [[(seg.text, seg.style) for seg in strip] for strip in strips]

        assert long.size == static.size and static.size.height > 120  # wrapped lines, the same count
        assert drawn(long) == drawn(static)
        shorter = Content("one line now")
        static.update(shorter)
        long.update(shorter)
        await pilot.pause()
        assert long.size.height == static.size.height == 1
        assert drawn(long) == drawn(static)
