"""The headless rooms never import Textual (they run in scripts and CI without a UI)."""

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import cockpit

ROOMS = ("model", "store", "parse", "sources", "live", "control", "cli", "assistant", "demo", "ground")
PACKAGE = Path(cockpit.__file__).parent


def headless_modules() -> list[str]:
    """Every module of the headless rooms, found on disk (a new module is covered at once)."""
    found = []
    for room in ROOMS:
        found.append(f"cockpit.{room}")
        found += [m.name for m in pkgutil.walk_packages([str(PACKAGE / room)], prefix=f"cockpit.{room}.")]
    return sorted(found)


def test_the_list_covers_every_room():
    modules = headless_modules()
    for room in ROOMS:
        assert sum(m.startswith(f"cockpit.{room}.") for m in modules) >= 2, room
    assert "cockpit.control.session_controller" in modules and "cockpit.sources.transport.ssh_pool" in modules


@pytest.mark.parametrize("room", ROOMS)
def test_no_module_of_a_headless_room_imports_textual(room):
    modules = [m for m in headless_modules() if m == f"cockpit.{room}" or m.startswith(f"cockpit.{room}.")]
    code = ("import importlib, sys\n"
            f"for name in {modules!r}:\n"
            "    importlib.import_module(name)\n"
            "    if 'textual' in sys.modules:\n"
            "        sys.exit(name)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, f"{done.stderr.strip()} imported textual"


def test_the_cli_parser_loads_without_textual():
    code = "import sys; from cockpit.cli import build_parser; build_parser(); sys.exit('textual' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
