"""The headless rooms never import Textual (they run in scripts and CI without a UI)."""

import subprocess
import sys

import pytest

HEADLESS = [
    "cockpit.model.session", "cockpit.model.edits", "cockpit.model.targets",
    "cockpit.store.toml_store", "cockpit.store.handoff_md", "cockpit.store.export_json",
    "cockpit.cli", "cockpit.cli.session_cmds",
]


@pytest.mark.parametrize("module", HEADLESS)
def test_headless_module_does_not_import_textual(module):
    code = f"import sys, {module}; sys.exit('textual' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_the_cli_parser_loads_without_textual():
    code = "import sys; from cockpit.cli import build_parser; build_parser(); sys.exit('textual' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
