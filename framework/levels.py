"""Difficulty levels: which player each level of a game means (the pygame menu's Level choice).

A level is a list of player specs in order of preference; the first whose player can play the game
here is the level's opponent (as :attr:`Game.default_opponents` work), so chess levels use Stockfish
where it is installed and our own alpha-beta at small depths where it is not.  Each game brings its own
table as its ``levels`` attribute (level name -> specs, :attr:`Game.levels`), a third-party game as much
as a bundled one.  docs/gui.md shows the bundled games' tables; tests check it names every spec.
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

def level_table(game: "Game") -> Mapping[str, Sequence[str]]:
    """``game``'s levels (its ``levels`` attribute); empty when it has none."""
    return getattr(game, "levels", None) or {}


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
