"""Every import a module makes, as the house's import rules read them (tests/host/test_generic_imports.py, the layers
of the four folders; tests/host/test_framework_rooms.py, the rooms of framework/)."""
from __future__ import annotations

import ast
from pathlib import Path
from typing import NamedTuple


class Import(NamedTuple):
    line: int
    module: str              # absolute: relative imports resolved
    in_function: bool        # made inside a function (or method) body
    type_checking: bool      # under ``if TYPE_CHECKING:`` (never executed)


def imports(path: Path, package: list[str]) -> list[Import]:
    """Every import in ``path``, a module of ``package`` (a list of names): ``import X`` gives X; ``from X import
    a, b`` gives X, X.a and X.b (a name may be a module: "from plyground import games" imports the games
    package); a constant name passed to ``importlib.import_module`` or ``__import__`` counts too."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    type_checking = {id(inner) for node in ast.walk(tree)
                     if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
                     for statement in node.body for inner in ast.walk(statement)}
    in_function = {id(inner) for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                   for inner in ast.walk(node) if inner is not node}
    found: list[Import] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names = [module] + [f"{module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if called in ("import_module", "__import__"):
                names = [node.args[0].value]
        found += [Import(node.lineno, name, id(node) in in_function, id(node) in type_checking) for name in names]
    return found
