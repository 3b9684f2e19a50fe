"""Shared test setup: hermetic env for Textual and the loopback sshd fixture."""

import os
import sys
from pathlib import Path

# Textual reads NO_COLOR at App init: it would turn every snapshot monochrome.
os.environ.pop("NO_COLOR", None)
os.environ.pop("TEXTUAL", None)

sys.path.insert(0, str(Path(__file__).parent))
from sshd_fixture import sshd  # noqa: E402,F401
