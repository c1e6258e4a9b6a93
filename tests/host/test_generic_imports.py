"""The house's import rules, over every module of every folder (docs/architecture.md):

* the layers: a module imports only its own layer and the layers below it, framework (``plyground``) <
  games (``plyground.games``) < players (``plyground.players``) < plugins (``plyground.plugins``);
* generic code never imports a particular game: no module under framework/, players/ or plugins/ imports
  ``plyground.games`` (absolutely, relatively, or by name through importlib); a game offers its own parts
  through ``plyground.capabilities`` (issue #36, "A house a newcomer can read"; plugins/ since issue #75
  point 4, when Deep Pepper's chess layout became the game's FeatureLayouts capability)."""
from __future__ import annotations

import ast
from pathlib import Path

from import_walk import imports

REPO = Path(__file__).resolve().parents[2]
#: The generic folders and the package each one is installed as (setup.py's PACKAGE_DIRS).
GENERIC = {"framework": "plyground", "players": "plyground.players", "plugins": "plyground.plugins"}
GAMES = "plyground.games"
#: Every folder, lowest layer first, with its package.
LAYERS = {"framework": "plyground", "games": "plyground.games", "players": "plyground.players",
          "plugins": "plyground.plugins"}


def package_of(path: Path, folder: str) -> list[str]:
    """The package a module file under ``folder`` is installed in, as a list of names."""
    return LAYERS[folder].split(".") + list(path.relative_to(REPO / folder).parent.parts)


def layer_of(module: str) -> int | None:
    """The layer (0: framework .. 3: plugins) of a plyground module; None for anything else."""
    if module != "plyground" and not module.startswith("plyground."):
        return None
    ranks = [rank for rank, package in enumerate(LAYERS.values()) if rank and
             (module == package or module.startswith(package + "."))]
    return ranks[0] if ranks else 0


def upward_imports(folders=tuple(LAYERS)) -> list[str]:
    """``file:line: module`` for every import of a higher layer by a module under ``folders``."""
    offenders: dict[str, str] = {}
    for folder in folders:
        own = list(LAYERS).index(folder)
        for path in sorted((REPO / folder).rglob("*.py")):
            for line, module in imported_modules(path, package_of(path, folder)):
                if (layer_of(module) or 0) > own:
                    offenders.setdefault(f"{path.relative_to(REPO)}:{line}", module)
    return [f"{where}: {module}" for where, module in offenders.items()]


def test_no_module_imports_a_layer_above_its_own():
    offenders = upward_imports()
    assert offenders == [], ("a module imports a layer above its own (framework < games < players < plugins); "
                             "move what it needs down a layer:\n" + "\n".join(offenders))


def test_the_layer_check_sees_an_upward_import(tmp_path):
    module = tmp_path / "engine.py"                     # as if it were games/checkers/alphabeta/engine.py
    module.write_text("from plyground.players.search.tree import WIN\nfrom ...search import x\n"
                      "from plyground.negamax.tables import tt_store\nfrom ..kernels import gen_moves\n",
                      encoding="utf-8")
    names = [name for _, name in imported_modules(module, ["plyground", "games", "checkers", "alphabeta"])]
    assert [layer_of(name) for name in names] == [2, 2, 1, 1, 0, 0, 1, 1]
    assert layer_of("numpy") is None and layer_of("plyground.plugins.console") == 3


def imported_modules(path: Path, package: list[str]) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path``, a module of ``package``, those under
    ``if TYPE_CHECKING:`` included (:func:`import_walk.imports`)."""
    return [(found.line, found.module) for found in imports(path, package)]


def game_imports(folders=tuple(GENERIC)) -> list[str]:
    """``file:line: module`` for every import of a game by a module under ``folders``."""
    offenders: dict[str, str] = {}
    for folder in folders:
        for path in sorted((REPO / folder).rglob("*.py")):
            for line, module in imported_modules(path, package_of(path, folder)):
                if module == GAMES or module.startswith(GAMES + "."):
                    offenders.setdefault(f"{path.relative_to(REPO)}:{line}", module)   # one per statement
    return [f"{where}: {module}" for where, module in offenders.items()]


def test_no_module_under_framework_players_or_plugins_imports_a_game():
    offenders = game_imports()
    assert offenders == [], ("generic code imports a particular game; let the game offer the part through "
                             "plyground.capabilities instead:\n" + "\n".join(offenders))


def _games_imported(path: Path, package: list[str]) -> list[str]:
    return [name for _, name in imported_modules(path, package) if name == GAMES or name.startswith(GAMES + ".")]


def test_the_check_sees_every_form_of_import(tmp_path):
    """Each way of importing a game is caught, and imports of generic modules are not."""
    player_module = tmp_path / "example.py"             # as if it were players/somewhere/example.py
    player_module.write_text("import plyground.games.chess\n"
                             "from plyground.games.checkers import kernels\n"
                             "from plyground import games\n"
                             "from ...games.checkers import bits\n"
                             "import importlib\nimportlib.import_module('plyground.games.chess.game')\n"
                             "from plyground.capabilities import alphabeta_engine\n"
                             "from ..games import names\n"        # plyground.players.games: not a game
                             "from ..search import root\n", encoding="utf-8")
    assert _games_imported(player_module, ["plyground", "players", "somewhere"]) == [
        "plyground.games.chess", "plyground.games.checkers", "plyground.games.checkers.kernels", "plyground.games",
        "plyground.games.checkers", "plyground.games.checkers.bits", "plyground.games.chess.game"]
    trainer_module = tmp_path / "networks.py"           # as if it were plugins/trainers/expert_iteration/
    trainer_module.write_text("from plyground.games.chess.encoding import DEEP_PEPPER_SIZE\n"
                              "from plyground.capabilities import feature_layout\n", encoding="utf-8")
    assert _games_imported(trainer_module, ["plyground", "plugins", "trainers", "expert_iteration"]) == [
        "plyground.games.chess.encoding", "plyground.games.chess.encoding.DEEP_PEPPER_SIZE"]
    framework_module = tmp_path / "host.py"             # as if it were framework/host.py
    framework_module.write_text("from .games.tictactoe import TicTacToe\nfrom .options import Option\n",
                                encoding="utf-8")
    assert _games_imported(framework_module, ["plyground"]) == ["plyground.games.tictactoe",
                                                                 "plyground.games.tictactoe.TicTacToe"]
    assert package_of(REPO / "players" / "alphabeta" / "player.py", "players") == ["plyground", "players", "alphabeta"]


#: The built-in games, by the folders under games/ that hold one (their names as the registry knows them).
GAME_NAMES = sorted(path.parent.name for path in (REPO / "games").glob("*/game.py"))
#: Generic code may name one game: the command line's default (framework/registry.py).
DEFAULT_GAME_LINE = 'DEFAULT_GAME = "checkers"'


def game_names_in_code(path: Path, names=GAME_NAMES) -> list[int]:
    """Lines of ``path`` where a string in code (not a docstring) is a game's name or a spec of it
    (``"checkers"``, ``"chess:encoding=x"``), or a name built on it (``f"checkers-{x}"``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)
                  and isinstance(node.value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            text = node.value
            if any(text == name or text.startswith((name + ":", name + "-")) for name in names):
                found.append(node.lineno)
    return sorted(found)


def test_no_game_is_named_in_generic_code():
    """A game's name appears only in its own folder (and the default game's line): generic code asks the
    registry and the game's capabilities (issue #53)."""
    offenders = []
    for folder in ("framework", "players", "plugins"):
        for path in sorted((REPO / folder).rglob("*.py")):
            lines = path.read_text(encoding="utf-8").splitlines()
            offenders += [f"{path.relative_to(REPO)}:{line}: {lines[line - 1].strip()}"
                          for line in game_names_in_code(path) if lines[line - 1].strip() != DEFAULT_GAME_LINE]
    assert GAME_NAMES == ["checkers", "chess", "tictactoe"]
    assert offenders == [], "generic code names a game:\n" + "\n".join(offenders)


def test_the_game_name_check_sees_names_specs_and_built_names_but_not_docstrings(tmp_path):
    module = tmp_path / "screens.py"
    module.write_text('"""Pictures of checkers games."""\nif game.name == "chess":\n    pass\n'
                      'spec = "checkers:variant=x"\nout = f"tictactoe-{n}.png"\nword = "chessboard"\n')
    assert game_names_in_code(module) == [2, 4, 5]
