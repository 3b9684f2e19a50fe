"""The README's quick start, typed literally in a scratch clone, as a newcomer would.

The install line is read from README.md ("Install and try it") and run as written in a
shell in tmux, from a `git clone` of this checkout's HEAD in a temporary folder: its
`bash .ci/bootstrap` makes a fresh `.venv` there with pip (about a minute; it needs the
package registry), `. .venv/bin/activate` puts that venv's `cockpit` on the PATH, and
`cockpit --demo` must open the demo. `q` quits it. The second line, `bash .ci/run`, is what CI
runs: tests/unit/test_docs_links.py checks it against the file `.ci/run`.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from readme_quickstart import ROOT, quick_start

from tmux_driver import tmux  # noqa: F401  (the fixture)


def _clone_head(dest: Path) -> Path:
    """A clone of the commit checked out here (committed files only, as a newcomer gets them)."""
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
    assert head.returncode == 0, f"{ROOT} is not a git checkout: {head.stderr.strip()}"
    clone = dest / "cockpit"
    for argv in (["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(clone)],
                 ["git", "-C", str(clone), "checkout", "--quiet", "--detach", head.stdout.strip()]):
        done = subprocess.run(argv, capture_output=True, text=True)
        assert done.returncode == 0, f"{' '.join(argv)}: {done.stderr.strip()}"
    assert not (clone / ".venv").exists()
    return clone


@pytest.mark.timeout(900)
def test_the_install_line_opens_the_demo_from_a_fresh_clone(tmux, tmp_path):
    install, _tests = quick_start()
    clone = _clone_head(tmp_path)
    # a newcomer's shell: no venv active, no checkout on PYTHONPATH (a developer running this
    # test may have both, and the clone's cockpit must be the one that runs)
    tmux.start(f"unset PYTHONPATH PYTHONHOME VIRTUAL_ENV; cd {clone} && {install}", width=120, height=40)
    # bootstrap installs from the registry first: allow it minutes, not seconds
    screen = tmux.wait_until(lambda s: "DEMO" in s or "COCKPIT-EXIT=" in s, "the demo", timeout=600)
    assert "COCKPIT-EXIT=" not in screen, f"the install line ended before the demo opened:\n{screen}"
    screen = tmux.wait_for("1 Main", timeout=60)
    assert "GLM-5-NVFP4" in screen, "the demo's campaign is on screen"
    assert (clone / ".venv" / "bin" / "cockpit").exists(), "bootstrap made the clone's own .venv"
    tmux.keys("q")
    screen = tmux.wait_for("COCKPIT-EXIT=", timeout=60)
    assert "COCKPIT-EXIT=0" in screen, screen
    flat = screen.replace("\n", "")
    assert "your demo session stays at" in flat
    # back on the shell's screen: bootstrap said what it was doing before the demo took over
    assert "bootstrap: installing cockpit into .venv" in flat and "bootstrap: done" in flat, screen
