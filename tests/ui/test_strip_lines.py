"""StripLines (the GPU rows and total): a repaint touches only the lines that changed, the
text is cropped to the widget, styles and the sanitizer apply, and the rows dim when stale."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.geometry import Region

from tui_support import until

from cockpit.ui.widgets.chrome.strip_lines import StripLines


class LinesApp(App[None]):
    CSS = "StripLines { width: 20; } .dim { text-opacity: 50%; }"

    def compose(self) -> ComposeResult:
        yield StripLines(id="lines")


def _screen_lines(app: App[None], n: int) -> list[str]:
    strips = app.screen._compositor.render_strips()
    return [strip.text.rstrip() for strip in strips[:n]]


def _refreshes(widget: StripLines) -> list[tuple[tuple[Region, ...], dict[str, object]]]:
    calls: list[tuple[tuple[Region, ...], dict[str, object]]] = []
    original = widget.refresh

    def counted(*regions: Region, **kwargs: object) -> StripLines:
        calls.append((regions, kwargs))
        return original(*regions, **kwargs)  # type: ignore[arg-type]

    widget.refresh = counted  # type: ignore[method-assign]
    return calls


async def test_only_changed_lines_are_repainted_and_what_shows_is_right() -> None:
    app = LinesApp()
    async with app.run_test(size=(30, 6)) as pilot:
        lines = app.query_one(StripLines)
        lines.show(Text("a 1\nb 2\nc 3"))
        await until(lambda: _screen_lines(app, 3) == ["a 1", "b 2", "c 3"], pilot, timeout=10)
        calls = _refreshes(lines)
        lines.show(Text("a 1\nb 9\nc 3"))
        assert calls == [((Region(0, 1, 20, 1),), {})], calls  # one line, not the widget
        await until(lambda: _screen_lines(app, 3) == ["a 1", "b 9", "c 3"], pilot, timeout=10)
        calls.clear()
        lines.show(Text("a 1\nb 9\nc 3"))
        assert calls == []  # nothing changed: nothing repainted
        styled = Text("a 1\nb 9\nc 3")
        styled.stylize(Style(bold=True), 0, 1)
        lines.show(styled)  # the same characters, a new style: that line repaints
        assert calls == [((Region(0, 0, 20, 1),), {})], calls
        calls.clear()
        lines.show(Text("a 1\nb 9"))  # one line fewer: a layout pass (the height changes)
        assert calls and calls[0][1].get("layout") is True
        await until(lambda: _screen_lines(app, 3) == ["a 1", "b 9", ""], pilot, timeout=10)
        await until(lambda: lines.size.height == 2, pilot, timeout=10)


async def test_long_lines_are_cropped_styles_kept_and_control_bytes_made_inert() -> None:
    app = LinesApp()
    async with app.run_test(size=(30, 6)) as pilot:
        lines = app.query_one(StripLines)
        text = Text("0123456789abcdefghijKLMNOP\nGPU \x1b[31mred")
        text.stylize(Style(bold=True), 0, 3)
        lines.show(text)
        await until(lambda: _screen_lines(app, 1) == ["0123456789abcdefghij"], pilot, timeout=10)
        second = _screen_lines(app, 2)[1]
        assert "\x1b" not in second and "GPU" in second and "red" in second
        assert "\x1b" not in lines.content.plain
        first = app.screen._compositor.render_strips()[0]
        bold = "".join(seg.text for seg in first if seg.style is not None and seg.style.bold)
        assert bold == "012"
        lines.add_class("dim")  # the stale rows' text-opacity applies to line-API lines too
        await pilot.pause()
        before = [seg.style.color for seg in app.screen._compositor.render_strips()[0] if seg.text.strip()]
        lines.remove_class("dim")
        await pilot.pause()
        after = [seg.style.color for seg in app.screen._compositor.render_strips()[0] if seg.text.strip()]
        assert before != after
