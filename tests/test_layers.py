"""A module imports only from its own package or from packages (and top-level modules) listed above it."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "generator"
# Lowest first: a package or top-level module may import from those before it, and within itself.
ORDER = ["content", "analysis", "checks", "render", "site", "output", "engine", "serve", "desk", "publish", "cli",
         "__main__"]


def _layer(module: str) -> int:
    return ORDER.index(module.split(".")[0])


def _imports(path: Path) -> set[str]:
    """The modules `path` imports from this package, as dotted names below it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    package = parts[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level >= 1:
            base = package[: len(package) - (node.level - 1)]
            names = [node.module] if node.module else [alias.name for alias in node.names]
            found.update(".".join([*base, name]) for name in names if base or name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("generator."):
            found.add(node.module.removeprefix("generator."))
    return {name for name in found if name.split(".")[0] in ORDER}


def _own(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def test_every_module_is_in_the_layout():
    modules = {_own(p) for p in PACKAGE.rglob("*.py")}
    assert modules - {"__init__"} <= set(ORDER)


def test_modules_import_only_from_above():
    for path in PACKAGE.rglob("*.py"):
        own = _own(path)
        if own == "__init__":
            continue
        for imported in _imports(path):
            if imported.split(".")[0] == own:
                continue
            assert _layer(imported) < _layer(own), f"{path.relative_to(PACKAGE)} imports {imported}"


def test_the_command_line_imports_nothing_heavy_before_a_command_needs_it():
    """`ledgerpress build` with nothing to do answers from the saved state and the output record: the command
    line and those modules load without the engine's libraries (YAML, pydantic, numpy, Jinja, Markdown)."""
    import subprocess
    import sys

    heavy = ["yaml", "frontmatter", "pydantic", "numpy", "jinja2", "markdown_it", "snowballstemmer"]
    code = ("import sys, generator.cli, generator.engine.state, generator.output.record, generator.output.look; "
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({heavy!r})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=PACKAGE.parent)
    assert done.stdout.strip() == "[]", done.stdout


def test_no_function_takes_more_than_six_parameters_without_a_reason_beside_it():
    """Inputs travel as values (Run, SiteInputs, a StoryJob): a function of more parameters says why, in a
    comment on its signature or first lines (a click command's options, a tool's input schema)."""
    wide = []
    for path in PACKAGE.rglob("*.py"):
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                given = node.args
                names = [a.arg for a in (*given.posonlyargs, *given.args, *given.kwonlyargs)]
                count = len(names) + bool(given.vararg) + bool(given.kwarg) - (names[:1] in (["self"], ["cls"]))
                said = "\n".join(lines[node.lineno - 1:node.body[0].lineno + 3])
                if count > 6 and "# (" not in said:
                    wide.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({count} parameters)")
    assert wide == []


def test_every_module_name_says_its_role_once():
    """No two modules of the generator share a file name (pages.py thrice, images.py four times, told apart
    only by their folders): each name says what its module does."""
    names: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path.name not in ("__init__.py", "__main__.py"):
            names.setdefault(path.name, []).append(str(path.relative_to(PACKAGE)))
    assert {name: paths for name, paths in names.items() if len(paths) > 1} == {}
