"""The app's session file: saving (autosave debounced), quitting with the unsaved-edits
question, and taking in what another writer saved (polled).

`SessionSaving` is an object the App owns (ui/app.py builds it and calls it). The session
itself is the SessionController's (control/session_controller.py, no Textual): this turns
its outcomes into toasts, timers and the quit dialogs. What it needs of the App is named in
its constructor: the Textual app it runs its timers and dialogs on, the view to save, the
header to redraw, and what a quit now would cut short.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from textual.app import App
from textual.timer import Timer

from cockpit.control.session_controller import LOCK_RETRY_S, SessionController
from cockpit.model.edit.merge import MergeResult
from cockpit.model.session import UiState
from cockpit.store.errors import SessionFileError
from cockpit.ui.screens.confirm_quit import ConfirmQuitScreen


class SessionSaving:
    def __init__(self, app: App[None], controller: SessionController, path: Path, *,
                 current_ui: Callable[[], UiState], refresh_header: Callable[[], None],
                 in_flight: Callable[[], str | None]) -> None:
        """`app`: where the toasts, timers, dialogs and the exit happen; `current_ui`: the
        view as it is now (saved with the session); `refresh_header`: the header shows the
        save state (no-op while the main screen is not up); `in_flight`: what quitting now
        would lose (the sweep point running), None when nothing."""
        self.app = app
        self.controller = controller
        self.path = path
        self.current_ui = current_ui
        self._refresh_header = refresh_header
        self._in_flight = in_flight
        self._autosave_timer: Timer | None = None

    @property
    def unsaved_edits(self) -> int:
        return self.controller.unsaved_edits

    # ----- saving -------------------------------------------------------------------------
    def save(self, *, announce: bool = False, over_broken: bool = False) -> bool:
        """Save through the controller (merged with other writers' saves, under the lock)
        and say what happened. Returns False when nothing was written."""
        notify = self.app.notify
        try:
            outcome = self.controller.save(self.current_ui(), over_broken=over_broken)
        except Exception as exc:  # noqa: BLE001 - a save never takes the app (and the edits) down with it
            notify(f"Could not save: {type(exc).__name__}: {exc}. {self._where_edits_are()}",
                   severity="error", timeout=15)
            self._refresh_header()
            return False
        if outcome.status == "busy":
            notify("Another writer is saving the session; trying again shortly", timeout=3)
            self.schedule_autosave(delay=LOCK_RETRY_S, force=True)
            return False
        if outcome.status == "broken":
            notify(f"Not saved: the session file on disk does not load (fix it, or ctrl+s to save "
                   f"over it; it is kept as .bak). {self._where_edits_are()}\n{outcome.message}",
                   severity="error", timeout=15)
            self._refresh_header()
            return False
        if outcome.status == "failed":
            notify(f"Could not save: {outcome.message}. {self._where_edits_are()}", severity="error", timeout=10)
            return False
        if outcome.overwrote_broken:
            notify(f"The file on disk did not load; it is kept as {self.path.name}.bak", severity="warning", timeout=8)
        if outcome.merge is not None:
            self._announce_merge(outcome.merge)
        if self._autosave_timer is not None:
            self._autosave_timer.stop()
            self._autosave_timer = None
        if announce:
            notify(f"Saved {self.path.name}", timeout=3)
        self._refresh_header()
        return True

    def _where_edits_are(self) -> str:
        count = self.unsaved_edits
        if not count:
            return "Nothing of yours is unsaved."
        return f"Your {count} unsaved edit{'s' if count != 1 else ''} stay{'s' if count == 1 else ''} here, in memory."

    def _announce_merge(self, result: MergeResult) -> None:
        """Renumbered ids and conflicts in toasts (the header has the summary)."""
        if result.renumbered:
            self.app.notify("Another writer took these ids first; yours were renumbered: "
                            + ", ".join(f"{a} -> {b}" for a, b in result.renumbered.items()), timeout=8)
        if result.conflicts:
            lines = "\n".join(c.describe() for c in result.conflicts[:5])
            more = f"\n(+{len(result.conflicts) - 5} more in the journal)" if len(result.conflicts) > 5 else ""
            self.app.notify(f"Both you and another writer changed the same field; yours were kept:\n{lines}{more}",
                            severity="warning", timeout=12)

    def schedule_autosave(self, delay: float | None = None, force: bool = False) -> None:
        """After a change: the header shows it, and an autosave runs `delay` (default: the
        session's `ui.autosave_delay_s`) after the last one, when autosave is on and due."""
        self._refresh_header()
        if not force and not self.controller.autosave_due:
            return
        if self._autosave_timer is not None:
            self._autosave_timer.stop()
        wait = self.controller.session.ui.autosave_delay_s if delay is None else delay
        wait = max(wait, 0.01)  # a zero-interval Textual timer divides by zero
        self._autosave_timer = self.app.set_timer(wait, self.run_autosave)

    def run_autosave(self) -> None:
        """The autosave timer's work: save when an autosave is still due."""
        self._autosave_timer = None
        if not self.app.screen_stack:  # exiting: the screens (and the view to save) are gone
            return
        if self.controller.autosave_due:
            self.save()

    def toggle_autosave(self) -> None:
        self.controller.autosave = not self.controller.autosave
        self.app.notify(f"Autosave {'on' if self.controller.autosave else 'off'}", timeout=2)
        self.schedule_autosave()

    # ----- quitting -----------------------------------------------------------------------
    def request_quit(self) -> None:
        if (in_flight := self._in_flight()) is not None:  # a sweep point would be lost: ask
            from cockpit.ui.screens.confirm_quit_sweep import ConfirmQuitSweepScreen

            def answer(quit_anyway: bool | None) -> None:
                if quit_anyway:
                    self._quit_saving()
                else:
                    self.app.notify("Not quit: the sweep goes on", timeout=3)

            self.app.push_screen(ConfirmQuitSweepScreen(in_flight), answer)
            return
        self._quit_saving()

    def _quit_saving(self) -> None:
        if not self.unsaved_edits:
            self._save_view_if_moved()
            self.app.exit()
            return

        def choose(choice: str | None) -> None:
            if choice == "save" and self.save():
                self.app.exit()
            elif choice == "discard":
                self.app.exit()

        self.app.push_screen(ConfirmQuitScreen(self.unsaved_edits), choose)

    def _save_view_if_moved(self) -> None:
        """No edits, but the view moved (tab, selection, theme): keep it for the reopen
        (merged with any outside change like every save)."""
        if self.current_ui() != self.controller.session.ui and not self.controller.disk_broken:
            self.save()

    # ----- outside changes to the session file ----------------------------------------------------
    def watch_session_file(self, interval_s: float) -> None:
        """Every `interval_s`: take in what another writer saved (a worker on the app)."""
        self.app.run_worker(self._watch(interval_s), group="session-watch", exclusive=True, exit_on_error=False,
                            description="watch the session file")

    async def _watch(self, interval_s: float) -> None:
        while True:
            await asyncio.sleep(interval_s)
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
            self.app.notify(f"The session file changed on disk but does not load; keeping yours (autosave "
                            f"waits for a file that loads).\n{exc.render()}", severity="error", timeout=15)
            self._refresh_header()
            return
        except OSError as exc:
            self.app.notify(f"Could not read {self.path}: {exc.strerror or exc}", severity="error", timeout=10)
            return
        result = controller.take_outside(theirs, read_sig, base)  # the signature of the text read
        if result is None:
            return  # a save merged it meanwhile, or it changed again: the next look takes it
        self._announce_merge(result)
        if not result.summary():
            self.app.notify("Reloaded: the session file changed on disk", timeout=4)
