"""The headless commands' stderr, made inert for the terminal as a last line of defence.

Every message there is meant to pass `sanitize` where it is made; a path or a session
value that a new message forgets (an argparse error, a traceback, a library's warning)
is still drawn as `␛]0;x␇` instead of setting the pane's title or the clipboard.
Messages are lines, so LF is kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TextIO

from cockpit.ground.sanitize import sanitize


class InertStderr:
    """A text stream that sanitizes what is written, then hands it to `raw`."""

    def __init__(self, raw: TextIO) -> None:
        self._raw = raw

    def write(self, text: str) -> int:
        self._raw.write(sanitize(text, multiline=True))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding, buffer, ...
        return getattr(self._raw, name)
