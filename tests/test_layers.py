"""A module imports only modules listed above it in STYLE.md's layout."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "generator"
ORDER = ["slugs", "models", "config", "load", "cites", "body", "figures", "similarity", "related_stories", "checks", "view", "render",
         "site", "feeds", "search", "cache", "workers", "memo", "prepare", "build", "write", "serve", "publish", "cli", "__main__"]


def _layer(module: str) -> int:
    return ORDER.index(module.split(".")[0])


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level >= 1:
            depth = len(path.relative_to(PACKAGE).parts) - 1
            if node.level > depth + 1 or node.module is None:
                continue
            found.add(node.module)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("generator."):
            found.add(node.module.removeprefix("generator."))
    return found


def test_every_module_is_in_the_layout():
    modules = {p.relative_to(PACKAGE).parts[0].removesuffix(".py") for p in PACKAGE.rglob("*.py")}
    assert modules - {"__init__"} <= set(ORDER)


def test_modules_import_only_from_above():
    for path in PACKAGE.rglob("*.py"):
        own = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        if own == "__init__":
            continue
        for imported in _imports(path):
            if imported.split(".")[0] == own:
                continue
            assert _layer(imported) < _layer(own), f"{path.name} imports {imported}"
