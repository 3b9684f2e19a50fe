"""Textual's Linux driver, made to survive its terminal going away.

When the terminal closes (tmux killed, ssh dropped) every write and read on it fails with
EIO. Textual's writer thread dies on the first failed write and its queue holds only 30
writes, so the app's next frames block the main thread for good: the exit, the demo's
cleanup and the signal handlers never run (seen in CI: cockpit alive 20 s after its pane
went). Here a write to a gone terminal is dropped, and the first failed write or read ends
the app as SIGHUP does; a watchdog ends the process if even that exit hangs.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import IO, Any

from textual.drivers.linux_driver import LinuxDriver

EXIT_GRACE_S = 10.0
"""How long the app's own exit may take once the terminal is gone, before the process ends."""


class _GoneAwareFile:
    """The file the writer thread writes to: an OSError there means the terminal is gone,
    said once, and later writes are dropped instead of killing the thread."""

    def __init__(self, file: IO[str], on_gone: Callable[[], None]) -> None:
        self._file = file
        self._on_gone = on_gone
        self.gone = False

    def _guard(self, call: Callable[[], object]) -> None:
        if self.gone:
            return
        try:
            call()
        except (OSError, ValueError):  # EIO on a hung-up tty; ValueError on a closed file
            self.gone = True
            self._on_gone()

    def write(self, text: str) -> None:
        self._guard(lambda: self._file.write(text))

    def flush(self) -> None:
        self._guard(self._file.flush)

    def fileno(self) -> int:
        return self._file.fileno()

    def isatty(self) -> bool:
        return self._file.isatty()


class TerminalDriver(LinuxDriver):
    """LinuxDriver whose output and input threads treat a failed terminal as a hangup."""

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self._file = _GoneAwareFile(sys.__stderr__, self._terminal_gone)  # type: ignore[arg-type,assignment]
        self._gone_once = threading.Lock()
        self._gone = False

    def _terminal_gone(self) -> None:
        with self._gone_once:
            if self._gone:
                return
            self._gone = True
        hangup = getattr(self._app, "terminal_hung_up", None)
        loop = getattr(self._app, "_loop", None)
        try:
            if hangup is not None and loop is not None:
                loop.call_soon_threadsafe(hangup)
        except RuntimeError:  # the loop already closed: the app is ending anyway
            pass
        watchdog = threading.Thread(target=self._end_if_stuck, name="cockpit-hangup-watchdog", daemon=True)
        watchdog.start()

    def _end_if_stuck(self) -> None:
        threading.Event().wait(EXIT_GRACE_S)
        last_resort = getattr(self._app, "last_resort_cleanup", None)
        if last_resort is not None:
            last_resort()
        os._exit(129)  # 128 + SIGHUP, as a shell reports a hangup

    def _run_input_thread(self) -> None:
        try:
            self.run_input_thread()
        except OSError:  # EIO: the terminal is gone, not a bug to show (there is no screen)
            self._terminal_gone()
        except BaseException:  # as Textual's own input thread: any other failure is a panic
            import rich.traceback

            self._app.call_later(self._app.panic, rich.traceback.Traceback())
