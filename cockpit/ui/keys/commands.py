"""The command palette: every registry action as "area: Verb", with its description and key.

Textual's own palette commands that go around cockpit are left out (`textual_commands`):
its theme picker (a theme chosen there is not saved in the session; `view: Next theme`
is), its quit (cockpit's asks about unsaved edits) and its keys panel (`view: Keys`
lists every key from the registry)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

from cockpit.ui.keys.actions import ACTIONS, MODAL_SCOPES, PUSHED_SCOPES, ActionSpec
from cockpit.ui.port import port_of

LEFT_OUT = frozenset({"Theme", "Quit", "Keys"})
"""Titles of Textual's system commands that cockpit has its own of."""


def palette_actions() -> list[ActionSpec]:
    return [spec for spec in ACTIONS if spec.scope not in MODAL_SCOPES and spec.scope != "logapp"]


def textual_commands(commands: Iterable[Any]) -> Iterable[Any]:
    """Textual's system commands less those in LEFT_OUT (screenshot, maximize stay)."""
    return (command for command in commands if command.title not in LEFT_OUT)


class CockpitCommands(Provider):
    def _specs(self) -> list[ActionSpec]:
        # A pushed screen's commands while it is up; the main screen's otherwise.
        pushed = getattr(self.screen, "scope", None)
        specs = [spec for spec in palette_actions()
                 if (spec.scope == pushed if pushed in PUSHED_SCOPES else spec.scope not in PUSHED_SCOPES)]
        # a pane's action that the screen also binds, same key and area, once: the screen's,
        # which works from any pane (`log: Search log (any pane)`, not `log: Search` beside it)
        screen_wide = {(spec.area, spec.keys) for spec in specs if spec.scope == "screen"}
        return [spec for spec in specs if spec.scope == "screen" or (spec.area, spec.keys) not in screen_wide]

    def _runner(self, spec: ActionSpec) -> Callable[[], Awaitable[object]] | None:
        screen = self.screen
        if spec.scope in PUSHED_SCOPES:
            return partial(screen.run_action, spec.action) if getattr(screen, "scope", None) == spec.scope else None
        # The main screen runs registry actions where they belong (found by what it can do:
        # this module does not import the screens).
        run_registry_action = getattr(screen, "run_registry_action", None)
        return partial(run_registry_action, spec.id) if run_registry_action is not None else None

    def _help(self, spec: ActionSpec) -> str:
        displays: dict[str, str] = getattr(self.app, "bound_key_displays", dict)()
        keys = displays.get(spec.id, spec.keys)
        return f"{spec.description}  (key: {keys})"

    async def discover(self) -> Hits:
        for spec in self._specs():
            if runner := self._runner(spec):
                yield DiscoveryHit(spec.title, runner, help=self._help(spec))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for spec in self._specs():
            score = matcher.match(spec.title)
            if score > 0 and (runner := self._runner(spec)):
                yield Hit(score, matcher.highlight(spec.title), runner, text=spec.title, help=self._help(spec))


class HostCommands(Provider):
    """One "hosts: Reconnect NAME" per session host with a live feed (no key: a host each)."""

    def _hosts(self) -> list[str]:
        return port_of(self.screen).live_hosts()

    def _hit(self, host: str) -> tuple[str, Callable[[], None], str]:
        title = f"hosts: Reconnect {host}"
        return title, partial(port_of(self.screen).reconnect_host, host), (
            f"Connect {host} again now and restart its feeds, skipping the back-off")

    async def discover(self) -> Hits:
        for host in self._hosts():
            title, run, help_text = self._hit(host)
            yield DiscoveryHit(title, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for host in self._hosts():
            title, run, help_text = self._hit(host)
            if (score := matcher.match(title)) > 0:
                yield Hit(score, matcher.highlight(title), run, text=title, help=help_text)
