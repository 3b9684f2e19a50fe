"""Shared test setup: hermetic env for Textual and the loopback sshd fixture."""

import os
import shutil
import sys
from pathlib import Path

import pytest

# Textual reads NO_COLOR at App init: it would turn every snapshot monochrome.
os.environ.pop("NO_COLOR", None)
os.environ.pop("TEXTUAL", None)

sys.path.insert(0, str(Path(__file__).parent))
from sshd_fixture import sshd  # noqa: E402,F401


@pytest.fixture
def example_copy(tmp_path: Path) -> Path:
    """A copy of the example session (the seed's campaign) to write to, as `s.toml`."""
    from paths import EXAMPLE_SESSION

    target = tmp_path / "s.toml"
    shutil.copyfile(EXAMPLE_SESSION, target)
    return target


@pytest.fixture
def runs(tmp_path: Path):
    """A run_dir for launched servers (the STAND-IN's); every group still there at the end is killed."""
    from standin.procs import kill_groups_left

    d = tmp_path / "runs"
    yield d
    kill_groups_left(d)


@pytest.fixture(autouse=True)
def own_confirm_key(tmp_path_factory, monkeypatch) -> Path:
    """Each test its own per-user confirmation key (sources/server/confirm_key.py), never the real
    user's: subprocesses inherit XDG_STATE_HOME, so `cockpit run` in a test seals with it."""
    state = tmp_path_factory.mktemp("xdg-state")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return state / "cockpit" / "confirm.key"
