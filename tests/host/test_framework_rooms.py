"""framework/ in rooms that say the layers (issue #75 point 2; the drawing is in docs/architecture.md).

Every module of ``plyground`` (the framework/ folder) lives in a room, and each room has a layer:

    0  util                                   knows nothing of plyground
    1  the host (top-level modules)           contracts, hooks, registry, options, capabilities, errors
    2  files                                  atomic writes, trainers' files, game records
    3  play, engines, negamax, boardview      games played, other processes, the alpha-beta core, board views
    4  learning, tournament, screen           what trainers share, tournaments, the front ends' screens
    5  the command line (cli, __main__)

A module imports only its own room and rooms of lower layers; the module graph has no loop; and no module of
framework/ imports plyground inside a function (the way a loop used to be dodged).  Imports under
``if TYPE_CHECKING:`` are not executed and are not counted.
"""
from __future__ import annotations

import functools
from pathlib import Path

from import_walk import imports

REPO = Path(__file__).resolve().parents[2]
FRAMEWORK = REPO / "framework"

#: Each room (a sub-package of plyground, "host" for the top-level modules, "cli" for the command line) and its layer.
ROOMS = {"util": 0, "host": 1, "files": 2, "play": 3, "engines": 3, "negamax": 3, "boardview": 3,
         "learning": 4, "tournament": 4, "screen": 4, "cli": 5}
#: The top-level modules that are the command line, above every room.
COMMAND_LINE = {"plyground.cli", "plyground.__main__"}


def module_of(path: Path, root: Path = FRAMEWORK) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(["plyground"] + (parts[:-1] if parts[-1] == "__init__" else parts))


def room_of(module: str) -> str:
    """The room of a plyground module: its sub-package, "host" for a top-level module, "cli" for the command line."""
    if module in COMMAND_LINE:
        return "cli"
    parts = module.split(".")
    return "host" if len(parts) <= 2 and not (FRAMEWORK / parts[-1]).is_dir() else parts[1]


def imports_of(path: Path, module: str, known: set[str]) -> list[tuple[int, str, bool]]:
    """(line, module of ``known``, inside a function) for each executed import by ``path`` (the module ``module``)
    of a module in ``known``: each name imported counts as the longest module of ``known`` it starts with."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = set()
    for line, name, inside, type_checking in imports(path, package):
        parts = name.split(".")
        while parts and ".".join(parts) not in known:
            parts.pop()
        target = ".".join(parts)
        if parts and target != module and not type_checking:
            found.add((line, target, inside))
    return sorted(found)


@functools.lru_cache(maxsize=None)       # one walk of the tree for the three checks below
def framework_graph(root: Path = FRAMEWORK) -> dict[str, dict[str, list[tuple[int, bool]]]]:
    """Each module of ``root`` (installed as ``plyground``) -> the modules of ``root`` it imports -> (line, inside
    a function) of each import."""
    paths = {module_of(path, root): path for path in sorted(root.rglob("*.py"))}
    graph: dict[str, dict[str, list[tuple[int, bool]]]] = {module: {} for module in paths}
    for module, path in paths.items():
        for line, target, inside in imports_of(path, module, set(paths)):
            graph[module].setdefault(target, []).append((line, inside))
    return graph


def loops(graph: dict[str, dict]) -> list[list[str]]:
    """The import loops of ``graph``: its strongly connected components of more than one module, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:                     # Tarjan's algorithm, iteratively (no recursion limit to meet)
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(graph.get(successor, {}))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_every_framework_module_is_in_a_room_of_the_table():
    rooms = {room_of(module) for module in framework_graph()}
    assert rooms <= set(ROOMS), f"a folder under framework/ that is not a room of ROOMS: {sorted(rooms - set(ROOMS))}"
    assert {"util", "host", "files", "play", "engines", "learning", "cli"} <= rooms


def test_no_framework_module_imports_a_room_above_its_own():
    offenders = [f"framework module {module} (room {room_of(module)}, layer {ROOMS[room_of(module)]}) imports "
                 f"{target} (room {room_of(target)}, layer {ROOMS[room_of(target)]}) on line {lines[0][0]}"
                 for module, targets in framework_graph().items() for target, lines in targets.items()
                 if room_of(target) != room_of(module) and ROOMS[room_of(target)] >= ROOMS[room_of(module)]]
    assert offenders == [], "a room imports a room of its own layer or above:\n" + "\n".join(offenders)


def test_the_framework_import_graph_has_no_loop():
    found = loops(framework_graph())
    assert found == [], "import loops in framework/: " + "; ".join(" <-> ".join(loop) for loop in found)


def test_no_framework_module_imports_plyground_inside_a_function():
    offenders = [f"{module} line {line}: {target}" for module, targets in framework_graph().items()
                 for target, lines in targets.items() for line, inside in lines if inside]
    assert offenders == [], "imports inside functions (import at the top; a loop is fixed, not dodged):\n" + \
        "\n".join(offenders)


def test_the_checks_see_a_loop_an_upward_import_and_an_import_in_a_function(tmp_path):
    """A framework with a loop hidden inside a function and a host module importing a room above it."""
    root = tmp_path / "framework"
    (root / "files").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "files" / "__init__.py").write_text("")
    (root / "protocols.py").write_text("from .errors import E\n\ndef lock():\n    from .files.storage import RunLock\n")
    (root / "errors.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import protocols\n")
    (root / "files" / "storage.py").write_text("from .. import protocols\nfrom ..errors import E\n")
    graph = framework_graph(root)
    assert graph["plyground.protocols"] == {"plyground.errors": [(1, False)], "plyground.files.storage": [(4, True)]}
    assert graph["plyground.errors"] == {}                       # under TYPE_CHECKING: not counted
    assert loops(graph) == [["plyground.files.storage", "plyground.protocols"]]
    assert room_of("plyground.protocols") == "host" and room_of("plyground.files.storage") == "files"
    assert room_of("plyground.cli") == "cli" and room_of("plyground.play") == "play"
