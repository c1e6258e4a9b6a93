"""Difficulty levels: which player each level of a game means (the pygame menu's Level choice).

A level is a list of player specs in order of preference; the first whose player can play the game
here is the level's opponent (as :attr:`Game.default_opponents` work), so chess levels use Stockfish
where it is installed and our own alpha-beta at small depths where it is not.  A game may offer its
own table as a ``levels`` attribute (the same shape: level name -> specs); :data:`LEVELS` holds the
tables of the bundled games.  docs/gui.md shows these tables; tests check it names every spec.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from .errors import OptionError
from .options import Spec

if TYPE_CHECKING:
    from .protocols import Game
    from .registry import Registry

#: The level a new menu starts at: the strongest, as everywhere (it is the game's default opponent, the one
#: ``plyground play`` starts against); the menu's Level choice makes it easier.
DEFAULT_LEVEL = "strongest"

LEVELS: dict[str, dict[str, tuple[str, ...]]] = {
    "checkers": {
        "easy": ("alphabeta:eval=material,depth=1",),
        "medium": ("alphabeta:eval=learned,depth=3",),
        "hard": ("alphabeta:eval=learned,depth=5",),
        "strongest": ("alphabeta:eval=learned,depth=8",),   # the default opponent of `plyground play`
    },
    "chess": {   # Stockfish 15 plays UCI_Elo 1350 to 2850; Skill Level 0 is weaker still
        "easy": ("stockfish:skill=0", "alphabeta:eval=learned,depth=1"),
        "medium": ("stockfish:elo=1500", "alphabeta:eval=learned,depth=3"),
        "hard": ("stockfish:elo=2000", "alphabeta:eval=learned,depth=5"),
        "strongest": ("stockfish", "alphabeta:eval=learned,seconds=2"),
    },
    "tictactoe": {
        "easy": ("mcts:simulations=10",),
        "medium": ("mcts:simulations=50",),
        "hard": ("mcts:simulations=200",),
        "strongest": ("alphazero",),   # plays tic-tac-toe perfectly
    },
}


def level_table(game: "Game") -> Mapping[str, Sequence[str]]:
    """``game``'s levels (its own ``levels`` attribute, else :data:`LEVELS`); empty when it has none."""
    return getattr(game, "levels", None) or LEVELS.get(game.name, {})


def level_spec(registry: "Registry", game: "Game", level: str) -> Spec | None:
    """The player that ``level`` means for ``game`` here: the first of its specs whose player can play
    ``game`` (None when none can); an unknown level is refused, naming the game's levels."""
    table = level_table(game)
    if level not in table:
        valid = ", ".join(table) or "none: this game has no levels"
        raise OptionError(f"{game.name} has no level {level!r}; its levels are {valid}")
    installed = registry.players_for(game)
    for text in table[level]:
        spec = Spec.parse(text)
        if spec.name in installed:
            return spec
    return None
