"""Hostile session text on every TUI surface: shown as visible placeholders, never raw.

For each vector (OSC 0/2/52, CSI 2J, tmux DCS passthrough, C1 CSI, bidi, zero-width,
Textual markup tags, a bracketed regex, a 10,000-character line) a session holds it in every text field; the
app is driven to every tab, form and pane, and what the compositor sends to the terminal
(the segments' text, before Rich or a terminal could drop anything) is checked per
surface: no raw ESC, C1, BEL, bidi or zero-width character, and the placeholder shown.
"""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.content import Content
from textual.strip import Strip
from textual.widgets._toast import Toast

from hostile import NAMES, VECTORS, check_text, hostile_session, shown
from tui_support import make_app, until

from cockpit.live.log.items import SourceState, lines_of
from cockpit.parse.gpu.events import GpuSamplesTaken
from cockpit.parse.gpu.nvsmi_topo import TopologyMatrix
from cockpit.parse.gpu.sample import GpuSample
from cockpit.parse.log.sglang_log import parse_text
from cockpit.store.toml_store import save_session
from cockpit.ui.safe_text import inert_renderable
from cockpit.ui.screens.forms.records import BenchmarkForm, DiscoveryForm, LinkForm, RecordForm, TaskForm
from cockpit.ui.screens.help import HelpScreen
from cockpit.ui.widgets.session.records_view import PackagesTable
from cockpit.ui.widgets.session.text_views import HandoffView


def frame(app) -> list[Strip]:  # noqa: ANN001
    """The screen's lines as sent to the terminal. The one reach into Textual's privates (as
    `tui_support.screen_text`), but without Rich's export, which would drop control codes."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    return [Strip.join(line) for line in update.strips]


def region_text(lines: list[Strip], app, widget) -> str:  # noqa: ANN001
    """The raw text sent for `widget`'s region of the screen."""
    r = widget.region.intersection(app.screen.region)
    return "\n".join("".join(seg.text for seg in lines[y].crop(r.x, r.right)) for y in range(r.y, r.bottom))


def _topology(vector: str) -> TopologyMatrix:
    return TopologyMatrix(gpus=("GPU0", "GPU1"), nics=("NIC0",), matrix={"GPU0": {"GPU1": "NV18"}, "GPU1": {"GPU0": "NV18"}},
                          nic_links={"GPU0": {"NIC0": "PIX"}, "GPU1": {"NIC0": "SYS"}},
                          nic_names={"NIC0": f"mlx5_0{vector}"}, warnings=(f"odd row {vector}",))


@pytest.mark.parametrize("name", NAMES)
async def test_every_surface_shows_hostile_text_inert(name, tmp_path):
    vector = VECTORS[name]
    path = tmp_path / "hostile.toml"
    save_session(hostile_session(vector), path)
    app = make_app(path, keymap={})
    async with app.run_test(size=(160, 50), notifications=True) as pilot:
        await pilot.pause()
        screen = app.screen

        def check(surface: str, selector, *, visible: bool = True) -> None:  # noqa: ANN001
            widget = app.screen.query_one(selector) if isinstance(selector, str) else selector
            lines = frame(app)
            check_text(region_text(lines, app, widget), name, surface, visible=visible)
            check_text("\n".join("".join(seg.text for seg in line) for line in lines), name, "whole screen",
                       visible=False)

        # Main tab: header (title, a host's state quoting an SSH error), banner, targets, board.
        app.feeds.set_host_state("gpu1", f"reconnecting: {vector}")
        await pilot.pause()
        check("header", "#header")
        check("banner", "#banner")
        check("targets strip", "#targets")
        check("task board", "#board")

        # Live panes: the log pane's source state and a line; the GPU pane's names and host.
        log = screen.query_one("#log")
        log.feed(SourceState(text=f"tailing {vector}"))
        log.feed(lines_of(parse_text(f"[2026-11-28 21:00:00] line {vector}\n".encode())))
        gpu = screen.query_one("#gpu")
        gpu.feed(GpuSamplesTaken(f"host{vector}", (GpuSample(index=0, name=f"RTX {vector}", power_w=300,
                                                             power_limit_w=600, util_gpu_pct=50),), 1.0))
        screen.query_one("#topology").feed(_topology(vector))
        await pilot.pause(0.2)
        check("log pane", log)
        check("gpu pane", gpu)

        # Every tab.
        for key, tab in (("2", "goal"), ("3", "discoveries"), ("4", "benchmarks"), ("5", "files"),
                         ("7", "launch"), ("8", "last"), ("9", "topology"), ("0", "handoff")):
            await pilot.press(key)
            await pilot.pause(0.1)
            if tab == "handoff":  # made in a thread when its tab is shown: wait until it is up
                view = screen.query_one(HandoffView)
                await until(lambda: view.shown_whole, pilot)  # noqa: B023
                await pilot.pause()
            check(f"tab {tab}", f"#{tab}")
        await pilot.press("6")
        screen.query_one(PackagesTable).show_drift([], f"checked {vector}")  # a host's words in the title
        await pilot.pause()
        check("tab packages", "#packages")
        await pilot.press("7", "d", "down")  # l1 is the diff base, l2 shown against it
        await pilot.pause(0.1)
        check("launch diff", "#launch")
        # The Benchmarks chart's legend and the compare screen quote profile names.
        await pilot.press("4", "v")
        await pilot.pause(0.1)
        check("benchmarks chart", "#bench-chart", visible=False)  # the legend cuts names to its width
        await pilot.press("c")
        await pilot.pause(0.1)
        check("compare", app.screen)
        await pilot.press("escape", "v")
        await pilot.pause()

        # Forms show the values inert.
        for keys, form_type in ((("1", "e"), TaskForm), (("1", "c"), LinkForm), (("3", "e"), DiscoveryForm),
                                (("4", "a"), BenchmarkForm), (("7", "d", "e"), RecordForm)):
            await pilot.press(*keys)
            await pilot.pause(0.1)
            assert isinstance(app.screen, form_type)
            check(f"form {form_type.__name__}", "#dialog")  # BenchmarkForm: the working profile's name
            await pilot.press("escape")
            await pilot.pause()

        # The keys screen shows no session text, and nothing raw.
        await pilot.press("question_mark")
        await pilot.pause(0.1)
        assert isinstance(app.screen, HelpScreen)
        check("help", "#dialog", visible=False)
        await pilot.press("escape")

        # Toasts: message and title quote data, never markup; `[/bogus]` does not crash.
        app.notify(f"toast {vector}", title=f"t {vector}")
        await pilot.pause(0.2)
        toasts = list(app.screen.query(Toast))
        assert toasts
        check("toast", toasts[-1])
        assert app.return_code is None and app.is_running


async def test_markup_in_a_toast_is_shown_literally(tmp_path):
    path = tmp_path / "s.toml"
    save_session(hostile_session("x"), path)
    app = make_app(path, keymap={})
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        app.notify("bad [/bogus] regex '^[a-z][0-9]+$'")
        await until(lambda: bool(list(app.screen.query(Toast))), pilot)
        await pilot.pause(0.2)
        text = region_text(frame(app), app, list(app.screen.query(Toast))[-1])
        assert "bad [/bogus] regex '^[a-z][0-9]+$'" in text
        assert app.is_running


def test_inert_renderable_keeps_styles_on_the_text_they_covered():
    text = Text("GPU0 ")
    text.append("RTX\x1b[2J", "bold red")
    text.append(" ok\u202e", "blue")
    out = inert_renderable(text)
    assert out.plain == "GPU0 RTX␛[2J ok<U+202E>"
    assert [(out.plain[s.start:s.end], s.style) for s in out.spans] == [("RTX␛[2J", "bold red"), (" ok<U+202E>", "blue")]
    content = inert_renderable(Content.assemble("a ", ("b\x9b2J", "bold"), " c\u200b"))
    assert content.plain == "a b\\x9b2J c<U+200B>"
    assert [(content.plain[s.start:s.end], s.style) for s in content.spans] == [("b\\x9b2J", "bold")]
    clean = Text("clean", "bold")
    assert inert_renderable(clean) is clean


def test_the_placeholders_are_what_a_person_sees():
    assert shown("OSC 52") == "␛]52;c;aGVsbG8=␇"
    assert shown("DCS tmux") == "␛Ptmux;␛␛]0;pwn␇␛\\"
    assert shown("C1 CSI") == "\\x9b2J"
    assert shown("bidi") == "abc<U+202E>def"
    assert shown("markup tags") == VECTORS["markup tags"]
