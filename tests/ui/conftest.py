"""Fixtures for the TUI tests: a session copied into tmp_path, XDG dirs in tmp_path, a frozen clock."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from tui_campaign import build_session  # noqa: E402
from tui_support import EXAMPLE  # noqa: E402

from cockpit.store.toml_store import save_session  # noqa: E402


@pytest.fixture(autouse=True)
def hermetic_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user themes, keymaps or recent-session file leak in from the machine."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("TEXTUAL_THEME", raising=False)


@pytest.fixture(autouse=True)
def no_findings_watch(monkeypatch: pytest.MonkeyPatch) -> None:
    """The header's findings count comes from a thread worker at no fixed moment: off here,
    so snapshots stay exact (test_findings_screen.py turns it on)."""
    from cockpit.ui.live.diagnosis import FindingsWatch

    monkeypatch.setattr(FindingsWatch, "enabled", False)


@pytest.fixture
def session_path(tmp_path: Path) -> Path:
    """The small fixture campaign (stable ids t1..t5, d1..d3, b1..b3) on disk."""
    path = tmp_path / "campaign.toml"
    save_session(build_session(), path)
    return path


@pytest.fixture
def example_path(tmp_path: Path) -> Path:
    """A copy of the example session, the seed's campaign."""
    path = tmp_path / "glm5-nvfp4.toml"
    shutil.copyfile(EXAMPLE, path)
    return path

