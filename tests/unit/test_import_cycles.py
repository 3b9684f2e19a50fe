"""No import circles among cockpit's modules: each file's dependencies point one way.

Every `import` counts, at module level, inside a function (a lazy import breaks the
circle at import time only; the files still depend on each other) or under
`if TYPE_CHECKING:` (never run, but the code is written against the other file all the same:
a screen typed as the App is coupled to it).
"""

from __future__ import annotations

import ast
from pathlib import Path

import cockpit

ROOT = Path(cockpit.__file__).resolve().parent
# Circles still to remove; an entry here may only disappear, none may be added. (The last,
# ui.theme_file <-> ui.themes, went with ui/theme/roles.py; the nine ui files around the App
# with ui/port.py; ui.app <-> ui.experiment with control/experiment.py.)
KNOWN: set[frozenset[str]] = set()


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The cockpit modules `module` imports, anywhere (`if TYPE_CHECKING:` too)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()

    def add(name: str) -> None:
        while name and name not in modules:  # `from pkg import name` where name is not a module
            name = name.rpartition(".")[0]
        if name and name != module:
            found.add(name)

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            walk_stmt(child)

    def walk_stmt(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                add(f"{base}.{alias.name}")
        else:
            walk(node)

    walk(ast.parse(path.read_text(encoding="utf-8")))
    return {name for name in found if name.startswith("cockpit.")}


def import_cycles() -> list[frozenset[str]]:
    """The strongly connected groups of two or more modules (Tarjan)."""
    modules = _modules()
    graph = {m: _imports(m, p, modules) for m, p in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(frozenset(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def test_no_new_import_cycles() -> None:
    new = [sorted(group) for group in import_cycles() if group not in KNOWN]
    assert not new, f"import circles: {new}"


def test_the_finder_sees_lazy_and_type_checking_imports(tmp_path: Path) -> None:
    """The walker counts a function-level import and a TYPE_CHECKING one (and its else)."""
    names = "abcd"
    modules = {f"cockpit.{n}": tmp_path / f"{n}.py" for n in names}
    modules["cockpit.a"].write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import cockpit.c\n"
                                    "else:\n    import cockpit.d\ndef f():\n    from cockpit.b import x\n")
    assert _imports("cockpit.a", modules["cockpit.a"], modules) == {"cockpit.b", "cockpit.c", "cockpit.d"}
