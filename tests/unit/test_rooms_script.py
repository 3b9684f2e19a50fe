"""tools/rooms.py, the rooms-by-feature move, run on a small fake `cockpit` in a git repo.

What a merge after the move relies on: modules and their .tcss move with git, every way of
naming an old module is rewritten, the moved code still runs, a second run changes nothing,
and a run after a merge rewrites the old imports the merge brought and lists modules it does
not know.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from paths import REPO

SCRIPT = REPO / "tools" / "rooms.py"

LAYOUT = {
    "cockpit.ground": {".": ["the ground", ["cockpit.parse.sanitize"]]},
    "cockpit.parse": {"gpu": ["GPU text", ["gpu_sample"]]},
    # live/fleet.py moves into the folder live/fleet/ that takes its name
    "cockpit.live": {"fleet": ["the fleet", ["fleet", "fleet_sources"]]},
    "cockpit.ui.widgets": {"panes": ["panes", ["pane", "helper:pane_helper"]]},
    "cockpit.sources": {"transport": ["transport", ["child"]]},
}

FILES = {
    "cockpit/__init__.py": "",
    "cockpit/parse/__init__.py": "",
    "cockpit/parse/sanitize.py": "def sanitize(text):\n    return text.replace('\\x1b', '?')\n",
    "cockpit/parse/gpu_sample.py": "class GpuSample:\n    pass\n",
    "cockpit/live/__init__.py": "",
    "cockpit/live/fleet.py": "FLEET = 'fleet'\n",
    "cockpit/live/fleet_sources.py": "from cockpit.live.fleet import FLEET\n\nSOURCES = FLEET + ' sources'\n",
    "cockpit/ui/__init__.py": "",
    "cockpit/ui/widgets/__init__.py": "",
    "cockpit/ui/widgets/pane.py": "from pathlib import Path\n\nCSS = Path(__file__).with_suffix('.tcss').read_text()\n",
    "cockpit/ui/widgets/pane.tcss": "Pane { height: 1; }\n",
    "cockpit/ui/widgets/helper.py": "from .pane import CSS\n\nHELPED = CSS.strip()\n",
    "cockpit/sources/__init__.py": "",
    "cockpit/sources/child.py": "from pathlib import Path\n\nROOT = Path(__file__).resolve().parents[2]\n"
                                "HERE = Path(__file__).resolve().parent.parent\n",
    "cockpit/cli/__init__.py": "",
    "cockpit/cli/main.py": (
        "import cockpit.parse.gpu_sample\n"
        "from cockpit.parse import sanitize, gpu_sample as gs  # both moved\n"
        "from cockpit.live import fleet\n"
        "from cockpit.live.fleet_sources import SOURCES\n"
        "from cockpit.ui.widgets import helper\n"
        "from cockpit.sources.child import HERE, ROOT\n"
        "\n"
        "PATCH_TARGET = 'cockpit.parse.sanitize.sanitize'\n"
        "CHILD = ['python', '-m', 'cockpit.sources.child']\n"
        "\n"
        "\n"
        "def show():\n"
        "    print(sanitize.sanitize('a\\x1bb'), gs.GpuSample.__name__, fleet.FLEET, SOURCES, helper.HELPED)\n"
        "    print(cockpit.parse.gpu_sample.GpuSample is gs.GpuSample, ROOT, HERE.name)\n"
    ),
    "README.md": "The sanitizer is `cockpit/parse/sanitize.py`; the look is in `ui/widgets/pane.tcss`.\n"
                 "Kept: `cockpit/parse/other.py`, `cockpit.parse.sanitizer_notes`.\n",
    "pyproject.toml": '[tool.importlinter]\nignore_imports = ["cockpit.live.** -> cockpit.parse.sanitize"]\n',
}


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout


def _rooms(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    layout = root.parent / "layout.json"
    layout.write_text(json.dumps(LAYOUT))
    return subprocess.run([sys.executable, str(SCRIPT), "--root", str(root), "--layout", str(layout), *args],
                          capture_output=True, text=True, timeout=120)


def _show(root: Path) -> list[str]:
    done = subprocess.run([sys.executable, "-c", "from cockpit.cli.main import show; show()"], cwd=root,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(root)}, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _contents(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.parts and "__pycache__" not in p.parts}


@pytest.fixture
def fake(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "before")
    return root


def test_the_move_keeps_the_code_running_with_every_reference_rewritten(fake: Path) -> None:
    before = _show(fake)
    done = _rooms(fake)
    assert done.returncode == 0, done.stderr
    assert "move  cockpit.live.fleet -> cockpit.live.fleet.fleet" in done.stdout
    # moved with git (renames, not delete + add), .tcss beside its module, packages made
    status = _git(fake, "status", "--porcelain")
    assert "R  cockpit/ui/widgets/pane.tcss -> cockpit/ui/widgets/panes/pane.tcss" in status
    assert "cockpit/ui/widgets/helper.py -> cockpit/ui/widgets/panes/pane_helper.py" in status
    for rel in ("ground/sanitize.py", "parse/gpu/gpu_sample.py", "live/fleet/fleet.py", "live/fleet/__init__.py",
                "sources/transport/child.py", "ground/__init__.py"):
        assert (fake / "cockpit" / rel).is_file(), rel
    assert not (fake / "cockpit/live/fleet.py").exists() and not (fake / "cockpit/parse/sanitize.py").exists()
    # the same output: imports, `from pkg import module` (renamed: `as`), relative imports,
    # Path(__file__) one folder deeper, the .tcss found beside its module
    assert _show(fake) == before
    main = (fake / "cockpit/cli/main.py").read_text()
    assert "import cockpit.parse.gpu.gpu_sample\n" in main
    assert "from cockpit.ground import sanitize\nfrom cockpit.parse.gpu import gpu_sample as gs  # both moved" in main
    assert "from cockpit.live.fleet import fleet\n" in main
    assert "from cockpit.ui.widgets.panes import pane_helper as helper\n" in main
    assert "'cockpit.ground.sanitize.sanitize'" in main and "'-m', 'cockpit.sources.transport.child'" in main
    assert "from cockpit.ui.widgets.panes.pane import CSS" in (fake / "cockpit/ui/widgets/panes/pane_helper.py").read_text()
    assert "parents[3]" in (fake / "cockpit/sources/transport/child.py").read_text()
    # docs and config: file paths (full and room-relative) and dotted names; others untouched
    readme = (fake / "README.md").read_text()
    assert "`cockpit/ground/sanitize.py`" in readme and "`ui/widgets/panes/pane.tcss`" in readme
    assert "`cockpit/parse/other.py`, `cockpit.parse.sanitizer_notes`" in readme
    assert "cockpit.live.** -> cockpit.ground.sanitize" in (fake / "pyproject.toml").read_text()


def test_a_second_run_changes_nothing(fake: Path) -> None:
    assert _rooms(fake).returncode == 0
    after_first = _contents(fake)
    again = _rooms(fake)
    assert again.returncode == 0 and "nothing to do" in again.stdout
    assert _contents(fake) == after_first


def test_a_run_after_a_merge_rewrites_its_old_imports_and_lists_unknown_modules(fake: Path) -> None:
    assert _rooms(fake).returncode == 0
    # what another branch brings after the move: a new module in an old folder, old imports
    (fake / "cockpit/live/alerts.py").write_text(
        "from cockpit.live.fleet import FLEET\nfrom cockpit.parse.gpu_sample import GpuSample\n"
        "from cockpit.parse import sanitize\nfrom cockpit.live.fleet import fleet_sources\n")
    done = _rooms(fake)
    assert done.returncode == 0
    assert "unknown, left in place: cockpit/live/alerts.py" in done.stdout
    assert (fake / "cockpit/live/alerts.py").read_text() == (
        "from cockpit.live.fleet.fleet import FLEET\nfrom cockpit.parse.gpu.gpu_sample import GpuSample\n"
        "from cockpit.ground import sanitize\nfrom cockpit.live.fleet import fleet_sources\n")
    check = subprocess.run([sys.executable, "-c", "import cockpit.live.alerts"], cwd=fake, capture_output=True,
                           text=True, env={**os.environ, "PYTHONPATH": str(fake)})
    assert check.returncode == 0, check.stderr


def test_check_names_crowded_folders_and_long_modules(fake: Path) -> None:
    assert _rooms(fake, "--check").returncode == 0
    for n in range(16):  # beside sanitize.py and gpu_sample.py
        (fake / f"cockpit/parse/m{n}.py").write_text("")
    (fake / "cockpit/live/long.py").write_text("x = 1\n" * 401)
    done = _rooms(fake, "--check")
    assert done.returncode == 1
    assert "cockpit/parse/: 18 flat modules (over 15)" in done.stdout
    assert "cockpit/live/long.py: 401 lines (over 400)" in done.stdout


def test_the_real_layout_puts_no_more_than_15_modules_in_a_folder() -> None:
    spec = importlib.util.spec_from_file_location("rooms", SCRIPT)
    assert spec and spec.loader
    rooms = importlib.util.module_from_spec(spec)
    sys.modules["rooms"] = rooms  # its dataclasses look their module up
    spec.loader.exec_module(rooms)
    plan = rooms.build_plan(rooms.LAYOUT)
    per_folder: dict[str, int] = {}
    for module in [*plan.moves.values(), *plan.keep]:
        folder = module.rpartition(".")[0]
        per_folder[folder] = per_folder.get(folder, 0) + 1
    assert per_folder and max(per_folder.values()) <= 15, per_folder
    assert plan.moves["cockpit.parse.sanitize"] == "cockpit.ground.sanitize"
    assert plan.moves["cockpit.live.demo_fleet"].startswith("cockpit.demo.")
