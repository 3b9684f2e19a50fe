"""The footer at 80 columns (issue 39: `S Rest▏^p paletted`): on every tab it shows whole keys
only, in the registry's order (the pane's own first), and `? Keys` stays when some had to go."""

from __future__ import annotations

from day_session import day_session

from tui_support import make_app, screen_text

from cockpit.ui.keys.actions import TABS
from cockpit.ui.widgets.chrome.fitted_footer import fitting


def test_fitting_keeps_whole_keys_in_order_and_the_keys_key():
    items = [("a", 10), ("b", 30), ("c", 5), ("?", 7)]
    assert fitting(items, 60, "?") == ["a", "b", "c", "?"]  # all fit
    assert fitting(items, 30, "?") == ["a", "c", "?"]  # b left out, the shorter c after it still fits
    assert fitting(items, 8, "?") == ["?"]
    assert fitting([("a", 10), ("b", 30)], 20, None) == ["a"]


async def test_every_tab_footer_at_80_columns_is_whole_keys(tmp_path):
    app = make_app(day_session(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for tab, _label, _short, key in TABS:  # one app, every tab: each a key away
            await pilot.press(key)
            await pilot.pause(0.2)
            footer = screen_text(app).rstrip("\n").splitlines()[-1]
            assert footer.rstrip().endswith("▏^p palette"), (tab, footer)
            shown = footer.split("▏")[0].strip()
            keys = [f"{app.get_key_display(b)} {b.description}"
                    for _n, b, _e, _t in app.screen.active_bindings.values() if b.show and b.key != "ctrl+p"]
            # the footer reads as whole keys, one after the other, in the bindings' order
            rest, last = shown, -1
            while rest:
                match = next((k for k in keys if rest.startswith(k) and keys.index(k) > last), None)
                assert match is not None, (tab, rest, keys)
                last = keys.index(match)
                rest = rest[len(match):].lstrip()
            assert "? Keys" in shown, (tab, footer)
