"""No stale names after a move: every file path (`live/state.py`, `cockpit/ui/app.py`,
`tests/...`, `docs/....md`) and every dotted module (`cockpit.control.log_pipeline`, or a name
in one: `cockpit.parse.log.summary.Summary`) that cockpit's code, docstrings and comments
or docs/*.md name exists. A comment that points at a module which moved away sends its reader
nowhere."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import cockpit

PACKAGE = Path(cockpit.__file__).resolve().parent
REPO = PACKAGE.parent
ROOMS = "model|store|parse|control|live|sources|ui|cli|assistant|demo|ground|sandbox"
PATH = re.compile(r"(?<![\w./-])((?:cockpit/)?(?:" + ROOMS + r")/[\w/]*\w\.(?:py|tcss)"
                  r"|(?:tests|tools|benchmarks)/[\w/]*\w\.py|docs/[\w-]+\.md)\b")
DOTTED = re.compile(r"(?<![\w.])(cockpit(?:\.[A-Za-z_]\w*)+)")


@functools.cache
def top_level_names(module: Path) -> frozenset[str]:
    """What a module defines or imports at its top (or under an `if`, as TYPE_CHECKING)."""
    names: set[str] = set()
    body = list(ast.parse(module.read_text(encoding="utf-8")).body)
    while body:
        node = body.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.If, ast.Try)):
            body += node.body
    return frozenset(names)


def dotted_exists(name: str) -> bool:
    """`cockpit.a.b` is a package or module, or a name defined at the top of the last one."""
    parts = name.split(".")
    folder, module, i = PACKAGE, PACKAGE / "__init__.py", 1
    while i < len(parts):
        if (folder / parts[i] / "__init__.py").exists():
            folder, module = folder / parts[i], folder / parts[i] / "__init__.py"
            i += 1
        elif (folder / f"{parts[i]}.py").exists():
            module = folder / f"{parts[i]}.py"
            i += 1
            break
        else:
            break
    if i == len(parts):
        return True
    return parts[i].startswith("__") or parts[i] in top_level_names(module)


def path_exists(path: str) -> bool:
    if path.startswith(("tests/", "tools/", "benchmarks/", "docs/", "cockpit/")):
        return (REPO / path).exists()
    return (PACKAGE / path).exists()  # a room's path, as cockpit's comments write them


def stale_names(files: list[Path]) -> list[str]:
    out = []
    for file in files:
        for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{file.relative_to(REPO) if file.is_relative_to(REPO) else file.name}:{n}"
            out += [f"{where}: {m}" for m in PATH.findall(line) if not path_exists(m)]
            out += [f"{where}: {m}" for m in DOTTED.findall(line) if not dotted_exists(m)]
    return out


def test_every_path_and_module_named_in_cockpit_and_docs_exists() -> None:
    files = sorted(PACKAGE.rglob("*.py")) + sorted((REPO / "docs").glob("*.md"))
    assert len(files) > 300
    assert stale_names(files) == []


def test_a_moved_module_named_in_a_comment_is_found(tmp_path: Path) -> None:
    planted = tmp_path / "planted.md"
    planted.write_text("See live/fleet/fleet_model.py, `cockpit.live.experiment.sweep_session` and\n"
                       "cockpit.live.routes.NO_SUCH; but live/routes.py and cockpit.live.routes.ROUTES exist.\n",
                       encoding="utf-8")
    assert stale_names([planted]) == ["planted.md:1: live/fleet/fleet_model.py",
                                      "planted.md:1: cockpit.live.experiment.sweep_session",
                                      "planted.md:2: cockpit.live.routes.NO_SUCH"]
