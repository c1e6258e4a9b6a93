"""What identifies a position for the searches that walk the Python ``State`` API (tree reuse), and what a
search player may spend on a move there."""
from __future__ import annotations

from typing import Any

from plyground.errors import MoveError, UsageError
from plyground.protocols import Budget, Move, State


def position_key(state: State) -> Any:
    """``state.key()``, or None for a game without keys."""
    try:
        return state.key()
    except NotImplementedError:
        return None


def root_signature(state: State) -> tuple:
    """What identifies the root position for tree reuse: text, key and ply."""
    return state.to_text(), position_key(state), state.ply


def move_budget(player: str, config: dict, budget: Budget, state: State) -> tuple[int, float | None, list[Move]]:
    """(simulations, seconds, legal moves) for a simulation-counting player's move: the budget's limits, else
    the player's ``simulations`` and ``seconds`` options; a budget of no simulations or a finished game is
    refused, naming ``player``."""
    simulations = config["simulations"] if budget.simulations is None else budget.simulations
    seconds = config["seconds"] if budget.seconds is None else budget.seconds
    if simulations < 1:
        raise UsageError(f"{player}: the budget allows {simulations} simulations; at least 1 is needed")
    legal = state.legal_moves()
    if not legal:
        raise MoveError(f"{player} was asked to move in a finished game ({state.to_text()})")
    return simulations, seconds, legal
