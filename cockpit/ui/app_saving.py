"""The app's session file: edits' state, saving (autosave debounced), quitting with the
unsaved-edits question, and taking in what another writer saved (polled).

A part of CockpitApp (ui/app.py), split out whole: CockpitApp -> LiveFeeds (app_live.py)
-> SessionSaving -> CockpitAppBase. The session itself is the SessionController's
(control/session_controller.py, no Textual); this turns its outcomes into toasts and timers.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual import work
from textual.timer import Timer

from cockpit.control.session_controller import LOCK_RETRY_S, SessionController
from cockpit.model.edit.edits import SessionEditor
from cockpit.model.edit.merge import MergeResult
from cockpit.model.session import UiState
from cockpit.store.errors import SessionFileError
from cockpit.ui.app_base import CockpitAppBase
from cockpit.ui.live.experiment import ExperimentControl
from cockpit.ui.screens.confirm_quit import ConfirmQuitScreen
from cockpit.ui.screens.main.main import MainScreen


class SessionSaving(CockpitAppBase):
    # Set in CockpitApp.__init__ (ui/app.py, where each is explained).
    controller: SessionController
    path: Path
    alert_bell: bool
    experiment: ExperimentControl
    watch_interval_s: float | None
    _autosave_timer: Timer | None

    @property
    def main_screen(self) -> MainScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

    # ----- the session ----------------------------------------------------------------------
    @property
    def editor(self) -> SessionEditor:
        return self.controller.editor

    @property
    def autosave(self) -> bool:
        return self.controller.autosave

    @autosave.setter
    def autosave(self, value: bool) -> None:
        self.controller.autosave = value

    @property
    def disk_conflict(self) -> bool:
        """The file on disk does not load: autosave waits, ctrl+s saves over it (kept as .bak)."""
        return self.controller.disk_broken

    @property
    def unsaved_edits(self) -> int:
        return self.controller.unsaved_edits

    # ----- saving -------------------------------------------------------------------------
    def current_ui(self) -> UiState:
        ui = self.editor.session.ui
        bell = self.alert_bell if (self.alert_bell or ui.alert_bell is not None) else None  # unset stays unset
        return self.main_screen.capture_ui(ui.model_copy(update={"autosave": self.autosave, "alert_bell": bell}))

    def save(self, *, announce: bool = False, over_broken: bool = False) -> bool:
        """Save through the controller (merged with other writers' saves, under the lock)
        and say what happened. Returns False when nothing was written."""
        try:
            outcome = self.controller.save(self.current_ui(), over_broken=over_broken)
        except Exception as exc:  # noqa: BLE001 - a save never takes the app (and the edits) down with it
            self.notify(f"Could not save: {type(exc).__name__}: {exc}. {self._where_edits_are()}",
                        severity="error", timeout=15)
            self.main_screen.refresh_header()
            return False
        if outcome.status == "busy":
            self.notify("Another writer is saving the session; trying again shortly", timeout=3)
            self._schedule_autosave(delay=LOCK_RETRY_S, force=True)
            return False
        if outcome.status == "broken":
            self.notify(f"Not saved: the session file on disk does not load (fix it, or ctrl+s to save "
                        f"over it; it is kept as .bak). {self._where_edits_are()}\n{outcome.message}",
                        severity="error", timeout=15)
            self.main_screen.refresh_header()
            return False
        if outcome.status == "failed":
            self.notify(f"Could not save: {outcome.message}. {self._where_edits_are()}", severity="error", timeout=10)
            return False
        if outcome.overwrote_broken:
            self.notify(f"The file on disk did not load; it is kept as {self.path.name}.bak",
                        severity="warning", timeout=8)
        if outcome.merge is not None:
            self._announce_merge(outcome.merge)
        if self._autosave_timer is not None:
            self._autosave_timer.stop()
            self._autosave_timer = None
        if announce:
            self.notify(f"Saved {self.path.name}", timeout=3)
        self.main_screen.refresh_header()
        return True

    def _where_edits_are(self) -> str:
        count = self.unsaved_edits
        if not count:
            return "Nothing of yours is unsaved."
        return f"Your {count} unsaved edit{'s' if count != 1 else ''} stay{'s' if count == 1 else ''} here, in memory."

    def _announce_merge(self, result: MergeResult) -> None:
        """Renumbered ids and conflicts in toasts (the header has the summary)."""
        if result.renumbered:
            self.notify("Another writer took these ids first; yours were renumbered: "
                        + ", ".join(f"{a} -> {b}" for a, b in result.renumbered.items()), timeout=8)
        if result.conflicts:
            lines = "\n".join(c.describe() for c in result.conflicts[:5])
            more = f"\n(+{len(result.conflicts) - 5} more in the journal)" if len(result.conflicts) > 5 else ""
            self.notify(f"Both you and another writer changed the same field; yours were kept:\n{lines}{more}",
                        severity="warning", timeout=12)

    def _schedule_autosave(self, delay: float | None = None, force: bool = False) -> None:
        if self.screen_stack and isinstance(self.screen_stack[0], MainScreen):
            self.main_screen.refresh_header()
        if not force and not self.controller.autosave_due:
            return
        if self._autosave_timer is not None:
            self._autosave_timer.stop()
        wait = self.editor.session.ui.autosave_delay_s if delay is None else delay
        wait = max(wait, 0.01)  # a zero-interval Textual timer divides by zero
        self._autosave_timer = self.set_timer(wait, self._autosave)

    def _autosave(self) -> None:
        self._autosave_timer = None
        if not self.screen_stack:  # exiting: the screens (and the view to save) are gone
            return
        if self.controller.autosave_due:
            self.save()

    def toggle_autosave(self) -> None:
        self.autosave = not self.autosave
        self.notify(f"Autosave {'on' if self.autosave else 'off'}", timeout=2)
        self._schedule_autosave()

    # ----- quitting -----------------------------------------------------------------------
    async def action_quit(self) -> None:
        self.request_quit()

    def request_quit(self) -> None:
        if (in_flight := self.experiment.in_flight()) is not None:  # a sweep point would be lost: ask
            from cockpit.ui.screens.confirm_quit_sweep import ConfirmQuitSweepScreen

            def answer(quit_anyway: bool | None) -> None:
                if quit_anyway:
                    self._quit_saving()
                else:
                    self.notify("Not quit: the sweep goes on", timeout=3)

            self.push_screen(ConfirmQuitSweepScreen(in_flight), answer)
            return
        self._quit_saving()

    def _quit_saving(self) -> None:
        if not self.unsaved_edits:
            self._save_view_if_moved()
            self.exit()
            return

        def choose(choice: str | None) -> None:
            if choice == "save" and self.save():
                self.exit()
            elif choice == "discard":
                self.exit()

        self.push_screen(ConfirmQuitScreen(self.unsaved_edits), choose)

    def _save_view_if_moved(self) -> None:
        """No edits, but the view moved (tab, selection, theme): keep it for the reopen
        (merged with any outside change like every save)."""
        if self.current_ui() != self.editor.session.ui and not self.controller.disk_broken:
            self.save()

    # ----- outside changes to the session file ----------------------------------------------------
    @work(exclusive=True, group="session-watch", exit_on_error=False, description="watch the session file")
    async def watch_session_file(self) -> None:
        assert self.watch_interval_s
        while True:
            await asyncio.sleep(self.watch_interval_s)
            await self.check_disk()

    async def check_disk(self) -> None:
        """Take in what another writer saved: merged with unsaved local edits, which stay
        unsaved (the next save writes them, merged again under the lock)."""
        controller = self.controller
        sig = controller.outside_change()
        if sig is None:
            return
        base = controller.base
        try:
            theirs, read_sig = await asyncio.to_thread(controller.read_disk_signed)
        except SessionFileError as exc:
            controller.mark_broken(sig)
            self.notify(f"The session file changed on disk but does not load; keeping yours (autosave "
                        f"waits for a file that loads).\n{exc.render()}", severity="error", timeout=15)
            self.main_screen.refresh_header()
            return
        except OSError as exc:
            self.notify(f"Could not read {self.path}: {exc.strerror or exc}", severity="error", timeout=10)
            return
        result = controller.take_outside(theirs, read_sig, base)  # the signature of the text read
        if result is None:
            return  # a save merged it meanwhile, or it changed again: the next look takes it
        self._announce_merge(result)
        if not result.summary():
            self.notify("Reloaded: the session file changed on disk", timeout=4)
