"""The known deprecation warnings of cockpit's libraries, kept off a person's terminal.

asyncssh 2.24 names cryptography's DSA (and older ciphers) in annotations evaluated at
import; cryptography 46+ warns on each name, so every SSH command printed ten lines of
`CryptographyDeprecationWarning` before its one-line answer. They say nothing about this
run, so each process cockpit starts (the CLI, `python -m cockpit`, its Python children)
drops them first. Matched by the module the warning names and its wording, never by
importing cryptography (its import costs ~50 ms that `parse-log` should not pay).
"""

from __future__ import annotations

import warnings

# the wording of cryptography's deprecations ("DSA is deprecated ...", "TripleDES has been
# moved to cryptography.hazmat.decrepit ... and will be removed ...")
_DEPRECATED = r".*\b(deprecated|has been moved|will be removed)\b"
_FROM = r"asyncssh(\.|$)"  # the module the warning is attributed to: the one that used the name


def quiet_known_warnings() -> None:
    """Ignore the known deprecations raised by asyncssh's use of cryptography (idempotent)."""
    # CryptographyDeprecationWarning is a UserWarning: shown by default, whatever -W says
    warnings.filterwarnings("ignore", message=_DEPRECATED, category=UserWarning, module=_FROM)
    warnings.filterwarnings("ignore", category=DeprecationWarning, module=_FROM)
