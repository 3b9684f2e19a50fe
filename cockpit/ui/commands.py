"""The command palette: every registry action as "area: Verb", with its description and key."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from cockpit.ui.actions import ACTIONS, MODAL_SCOPES, PUSHED_SCOPES, ActionSpec


def palette_actions() -> list[ActionSpec]:
    return [spec for spec in ACTIONS if spec.scope not in MODAL_SCOPES]


class CockpitCommands(Provider):
    def _specs(self) -> list[ActionSpec]:
        # A pushed screen's commands while it is up; the main screen's otherwise.
        pushed = getattr(self.screen, "scope", None)
        return [spec for spec in palette_actions()
                if (spec.scope == pushed if pushed in PUSHED_SCOPES else spec.scope not in PUSHED_SCOPES)]

    def _runner(self, spec: ActionSpec):  # noqa: ANN202
        from cockpit.ui.screens.main import MainScreen

        screen = self.screen
        if spec.scope in PUSHED_SCOPES:
            return partial(screen.run_action, spec.action) if getattr(screen, "scope", None) == spec.scope else None
        if not isinstance(screen, MainScreen):
            return None
        return partial(screen.run_registry_action, spec.id)

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
