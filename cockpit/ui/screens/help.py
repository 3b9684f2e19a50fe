"""`?`: every key, generated from the live bindings, not written by hand.

"Here" lists what the focused widget and its screen answer to right now
(`Screen.active_bindings`); below, every registry action grouped by area, with the
key actually bound (after any keymap override). The line at the top filters as you type
(a row stays when its key or words contain the text); down or enter moves to the list,
which scrolls with j / k / g / G.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import ActiveBinding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from cockpit.ui.keys.actions import ACTIONS, BY_ID, MODAL_SCOPES, bindings_for


def key_text(app_display: str) -> Text:
    return Text(app_display, style="bold")


class HelpScreen(ModalScreen[None]):
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = bindings_for("help")

    def __init__(self, active: dict[str, ActiveBinding], bound_keys: dict[str, str],
                 scopes: tuple[str, ...] | None = None) -> None:
        """`active`: the bindings live where `?` was pressed; `bound_keys`: binding id -> key
        shown; `scopes`: the registry scopes listed below (None: all but `cockpit log`'s)."""
        super().__init__()
        self.active = active
        self.bound_keys = bound_keys
        self.scopes = scopes

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("Keys", classes="form-title")
            # no blink: a steady cursor reads as well here, and a blinking one made its snapshots timing-dependent
            filter_box = Input(placeholder="type to filter the keys", id="help-filter", compact=True)
            filter_box.cursor_blink = False
            yield filter_box
            with VerticalScroll(id="help-list"):
                yield Static(self._here(), classes="help-here")
                yield Static(self._everything(), classes="help-all")
            yield Static("esc: close · down: to the list (j k g G) · /: filter · ctrl+p: every action",
                         classes="form-hint")

    def _matches(self, *texts: str) -> bool:
        wanted = self.query_one("#help-filter", Input).value.strip().casefold() if self.is_mounted else ""
        return not wanted or any(wanted in text.casefold() for text in texts)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.query_one(".help-here", Static).update(self._here())
        self.query_one(".help-all", Static).update(self._everything())
        self.query_one("#help-list", VerticalScroll).scroll_home(animate=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#help-list", VerticalScroll).focus()

    def _list(self) -> VerticalScroll:
        return self.query_one("#help-list", VerticalScroll)

    def action_list_scroll(self, lines: int) -> None:
        listing = self._list()
        if not listing.has_focus:  # down from the filter line: to the list, where j / k scroll
            listing.focus()
            return
        listing.scroll_relative(y=lines, animate=False)

    def action_list_end(self) -> None:
        self._list().focus()
        self._list().scroll_end(animate=False)

    def action_list_home(self) -> None:
        self._list().focus()
        self._list().scroll_home(animate=False)

    def action_filter(self) -> None:
        self.query_one("#help-filter", Input).focus()

    def _here(self) -> Table:
        """Registry actions live at the focus, each with all the keys that reach it."""
        keys: dict[str, list[str]] = {}
        enabled: dict[str, bool] = {}
        for active in self.active.values():
            binding = active.binding
            if binding.id not in BY_ID:
                continue
            keys.setdefault(binding.id, []).append(self.app.get_key_display(binding))
            enabled[binding.id] = enabled.get(binding.id, False) or active.enabled
        table = Table.grid(padding=(0, 2))
        table.add_column(justify="right", min_width=8)
        table.add_column()
        table.add_row(Text("Here", style="bold underline"), "")
        for ident, shown in keys.items():
            spec = BY_ID[ident]
            note = "" if enabled[ident] else " (not now)"
            key = ", ".join(dict.fromkeys(shown))
            if self._matches(key, spec.title):
                table.add_row(key_text(key), Text(f"{spec.title}{note}"))
        if self._matches("^p", "command palette: every action by name"):
            table.add_row(key_text("^p"), Text("command palette: every action by name"))
        return table

    def _everything(self) -> Table:
        groups: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for spec in ACTIONS:
            if spec.scope in MODAL_SCOPES or (spec.scope not in self.scopes if self.scopes else spec.scope == "logapp"):
                continue
            keys, what = self.bound_keys.get(spec.id, spec.keys), f"{spec.verb}: {spec.description}"
            if self._matches(keys, what, spec.area):
                groups[spec.area].append((keys, what))
        table = Table.grid(padding=(0, 2))
        table.add_column(justify="right", min_width=8)
        table.add_column()
        for area, rows in groups.items():
            table.add_row("", "")
            table.add_row(Text(area, style="bold underline"), "")
            for keys, what in rows:
                table.add_row(key_text(keys), Text(what))
        return table

    def action_close(self) -> None:
        self.dismiss(None)
