"""No class chains built to split a file (issue 38, item 2).

A "split-only base" is a cockpit class that exactly one cockpit class, in another module,
derives from, and that nothing (cockpit/, tests/, benchmarks/) builds or hands on as a value
(`Base(...)`, `{Base}`, `isinstance(x, Base)`): it exists only so its subclass's body can live
in another file (`CockpitApp(LiveFeeds(SessionSaving(CockpitAppBase)))` was one). Parts of a
whole are objects the whole owns and calls, with their needs in their constructor; a base is
for a thing several classes are. Protocols are types, not parts: they are not counted.

The check reads the source (AST), so a chain is named here before anything runs.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from paths import REPO

# The reviewed allow-list: a split-only base kept on purpose, with the line saying why.
ALLOWED: dict[str, str] = {}

# TEMPORARY: mixin chains this check found outside the App and MainScreen (issue 38, item 2),
# not composed yet; each is to become an object its class owns, then leaves this list.
NOT_YET_COMPOSED: dict[str, str] = {}

_NOT_PARTS = {"Protocol", "TypedDict", "NamedTuple", "Enum", "StrEnum", "IntEnum"}
"""Bases that make a class a type or a set of values, not a part of another class."""


@dataclass
class _Module:
    name: str
    tree: ast.Module
    names: dict[str, str] = field(default_factory=dict)
    """Local name -> the qualified name it stands for (a cockpit module or class)."""


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _parse(root: Path, path: Path) -> _Module:
    module = _Module(_module_name(root, path), ast.parse(path.read_text(encoding="utf-8"), str(path)))
    for node in ast.walk(module.tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.split(".")[0] == "cockpit":
            for alias in node.names:
                module.names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "cockpit":
                    module.names[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ClassDef):
            module.names.setdefault(node.name, f"{module.name}.{node.name}")
    return module


def _resolve(module: _Module, expr: ast.expr) -> str | None:
    """The qualified name `expr` stands for in `module` (None: not a cockpit name)."""
    if isinstance(expr, ast.Name):
        return module.names.get(expr.id)
    if isinstance(expr, ast.Attribute):
        head = _resolve(module, expr.value)
        return f"{head}.{expr.attr}" if head is not None else None
    if isinstance(expr, ast.Subscript):  # Generic[T]-style bases: the class subscripted
        return _resolve(module, expr.value)
    return None


def _simple(expr: ast.expr) -> str:
    if isinstance(expr, ast.Subscript):
        return _simple(expr.value)
    return expr.attr if isinstance(expr, ast.Attribute) else expr.id if isinstance(expr, ast.Name) else ""


def _not_uses(tree: ast.Module) -> set[int]:
    """The nodes where a class name is no use of the class: a class's bases, annotations, and
    the class before a dot (`Base.COMMANDS`, `Base.method(self)`: what a subclass reads)."""
    skip: set[int] = set()

    def below(node: ast.AST | None) -> None:
        if node is not None:
            skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                below(base)
        elif isinstance(node, ast.arg | ast.AnnAssign):
            below(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            below(node.returns)
        elif isinstance(node, ast.Attribute):
            skip.add(id(node.value))
    return skip


def _uses(module: _Module, names: set[str]) -> set[str]:
    """Which of the classes `names` `module` builds or hands on as a value."""
    skip = _not_uses(module.tree)
    return {name for node in ast.walk(module.tree)
            if isinstance(node, ast.Name | ast.Attribute) and id(node) not in skip
            and (name := _resolve(module, node)) in names}


def split_only_bases(root: Path) -> dict[str, str]:
    """Split-only base (qualified) -> the one class derived from it, over `root`/cockpit."""
    modules = [_parse(root, path) for path in sorted((root / "cockpit").rglob("*.py"))]
    classes: dict[str, tuple[str, ast.ClassDef]] = {}
    children: dict[str, list[tuple[str, str]]] = {}
    for module in modules:
        for node in ast.walk(module.tree):
            if isinstance(node, ast.ClassDef):
                classes[f"{module.name}.{node.name}"] = (module.name, node)
                for base in node.bases:
                    if (name := _resolve(module, base)) is not None:
                        children.setdefault(name, []).append((module.name, f"{module.name}.{node.name}"))
    candidates = {}
    for name, derived in children.items():
        if name not in classes or len(derived) != 1:
            continue
        home, node = classes[name]
        child_home, child = derived[0]
        if child_home != home and not any(_simple(base) in _NOT_PARTS for base in node.bases):
            candidates[name] = child  # in another file than its one subclass, and a part, not a type
    used = set().union(*(_uses(module, set(candidates)) for module in modules))
    simple = {name.rsplit(".", 1)[1] for name in candidates}
    for path in sorted([*(root / "tests").rglob("*.py"), *(root / "benchmarks").rglob("*.py")]):
        text = path.read_text(encoding="utf-8")
        if any(word in text for word in simple):  # (only files that name one are parsed)
            used |= _uses(_parse(root, path), set(candidates))
    return {name: child for name, child in candidates.items() if name not in used}


def test_no_class_inherits_from_a_base_that_only_splits_a_file() -> None:
    assert all(len(why) > 40 for why in ALLOWED.values()), "each allowed base says why"
    allowed = ALLOWED | NOT_YET_COMPOSED
    found = split_only_bases(REPO)
    chains = [f"{child} derives from {base}, its only subclass, and {base} is never built"
              for base, child in sorted(found.items()) if base not in allowed]
    assert not chains, ("compose instead: make the base's part an object the class owns and calls, "
                        "its needs in its constructor:\n  " + "\n  ".join(chains))
    stale = sorted(set(allowed) - set(found))
    assert not stale, f"allowed split-only bases that are gone (drop them from the list): {stale}"


def test_the_check_names_a_planted_chain(tmp_path: Path) -> None:
    # The check can fail: a three-file chain is named; a real base (two subclasses), a base in
    # its subclass's own file, a built class, one handed on as a value and a Protocol are not.
    package = tmp_path / "cockpit"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text("class Base:\n    pass\n\n\nclass Shared:\n    pass\n\n\n"
                                     "class Local:\n    pass\n\n\nclass FromLocal(Local):\n    pass\n")
    (package / "middle.py").write_text(
        "from cockpit.base import Base\n\n\nclass Middle(Base):\n    pass\n")
    (package / "whole.py").write_text(
        "from typing import Protocol\n\nfrom cockpit import middle\nfrom cockpit.base import Shared\n\n\n"
        "class Whole(middle.Middle):\n    pass\n\n\nclass One(Shared):\n    pass\n\n\nclass Two(Shared):\n    pass\n\n\n"
        "class Port(Protocol):\n    pass\n\n\nclass Impl(Port):\n    pass\n\n\n"
        "class Built:\n    pass\n\n\nclass FromBuilt(Built):\n    pass\n\n\nBuilt()\n")
    (package / "handed.py").write_text(
        "from cockpit.whole import Two\n\n\nclass Handed:\n    pass\n\n\nKINDS = {Two}\n")
    (package / "from_handed.py").write_text(
        "from cockpit.handed import Handed\n\n\nclass FromHanded(Handed):\n    X = Handed.__name__\n\n\n"
        "PROVIDERS = [Handed]\n")
    assert split_only_bases(tmp_path) == {
        "cockpit.base.Base": "cockpit.middle.Middle",
        "cockpit.middle.Middle": "cockpit.whole.Whole",
    }
