"""tools/mutation_check.py stays runnable: every mutant's text is in its file exactly once
and names test files that exist, so a change that moves a guarded line says so here (update
the mutant beside the change) instead of leaving the check unable to plant it."""

from __future__ import annotations

import importlib.util
import sys

from paths import REPO


def _tool():  # noqa: ANN202 -- a module loaded from its file (tools/ is no package)
    spec = importlib.util.spec_from_file_location("mutation_check", REPO / "tools" / "mutation_check.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutation_check"] = module
    spec.loader.exec_module(module)
    return module


def test_every_mutant_plants_once_and_names_tests_that_exist() -> None:
    tool = _tool()
    assert len(tool.MUTANTS) >= 30 and len({m.name for m in tool.MUTANTS}) == len(tool.MUTANTS)
    for mutant in tool.MUTANTS:
        text = (REPO / mutant.path).read_text(encoding="utf-8")
        assert text.count(mutant.old) == 1, f"{mutant.name}: its text is in {mutant.path} {text.count(mutant.old)} times"
        assert mutant.old != mutant.new
        assert mutant.tests and all((REPO / t).is_file() for t in mutant.tests), mutant.name
