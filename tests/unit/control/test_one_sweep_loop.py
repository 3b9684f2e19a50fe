"""One sweep loop in the codebase: the experiment service's (control/experiment_sweep.py)
is the only place that builds a SweepRunner. `cockpit sweep`, the TUI and a launch search's
trials (control/search/server_trials.py) all call the service; a second construction site
would be a second loop to keep in step, so this scan of cockpit/'s syntax trees fails on one.
"""

from __future__ import annotations

import ast
from pathlib import Path

COCKPIT = Path(__file__).resolve().parents[3] / "cockpit"
THE_LOOP = "control/experiment_sweep.py"


def _construction_sites(tree: ast.AST) -> list[int]:
    """Lines that call SweepRunner, under its name, an `import ... as` alias or a module path."""
    names = {"SweepRunner"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names.update(a.asname for a in node.names if a.name == "SweepRunner" and a.asname)
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Name) and func.id in names) or (
                    isinstance(func, ast.Attribute) and func.attr == "SweepRunner"):
                lines.append(node.lineno)
    return lines


def _sites() -> dict[str, list[int]]:
    found = {}
    for path in sorted(COCKPIT.rglob("*.py")):
        lines = _construction_sites(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        if lines:
            found[path.relative_to(COCKPIT).as_posix()] = lines
    return found


def test_only_the_experiment_service_builds_a_sweep_runner() -> None:
    sites = _sites()
    assert list(sites) == [THE_LOOP], f"SweepRunner built outside the experiment service: {sites}"
    assert len(sites[THE_LOOP]) == 1


def test_the_scan_sees_a_second_site_under_any_name() -> None:
    """The check itself: a trial runner that builds its own runner again is caught, aliased or not."""
    for source in ("from cockpit.control.sweep_runner import SweepRunner\nr = SweepRunner(plan, host, sink)\n",
                   "from cockpit.control.sweep_runner import SweepRunner as Loop\nr = Loop(plan, host, sink)\n",
                   "import cockpit.control.sweep_runner as m\nr = m.SweepRunner(plan, host, sink)\n"):
        assert _construction_sites(ast.parse(source)) == [2]
    assert _construction_sites(ast.parse("class SweepRunner:\n    pass\nx = SweepRunner\n")) == []


def test_the_search_trials_go_through_the_service() -> None:
    """The trial runner names the service and none of the pieces it used to compose itself."""
    text = (COCKPIT / "control/search/server_trials.py").read_text(encoding="utf-8")
    assert "ExperimentService(" in text
    for piece in ("ServerControl(", "follow_launch", "SweepRunner", "run_started", "watch_tasks"):
        assert piece not in text, piece
