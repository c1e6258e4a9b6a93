"""Codes and small rules shared by the generic and the compiled search.

Outcome codes follow docs/kernels.md: 0 player 0 won, 1 player 1 won, 2 draw
(-1: the game goes on).  A proven value is stored on each node from the point
of view of the player who made the move into that node (its *mover*).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .evaluators import DRAW_OUTCOME
from .tree import DRAW, LOSS, UNKNOWN, WIN

PROVEN_NAMES = {WIN: "win", DRAW: "draw", LOSS: "loss", UNKNOWN: None}


def proven_of_outcome(outcome: int, mover: int) -> int:
    """The proven value of a finished game (outcome code) for ``mover``."""
    if outcome == DRAW_OUTCOME:
        return DRAW
    return WIN if outcome == mover else LOSS


@dataclass
class ChildStats:
    """What the search knows about one move at the root."""

    move: Any
    visits: int
    score: float          # mean score in [0, 1] for the side to move (win 1, draw 0.5)
    proven: int           # WIN / DRAW / LOSS / UNKNOWN for the side to move
    proof_plies: int      # plies to the proven end (meaningful when proven)


def proven_choice(children: list) -> tuple[Any, list]:
    """What the tree's proofs decide at the root, for children with ``proven`` (for the side to move),
    ``proof_plies`` and ``visits``: (the proven win that ends soonest, or None; the moves still worth
    choosing among -- those not proven lost, or, when every move is, the loss that takes longest).

    Visit counts lag behind a proof: a move that was searched most before a rarely tried one was
    proven a win still has the most visits, and the mean value of a move proven lost can still look
    fine.  Every search's final choice goes through this first (MCTS-Solver's rule)."""
    wins = [ch for ch in children if ch.proven == WIN]
    if wins:
        return min(wins, key=lambda ch: (ch.proof_plies, -ch.visits)), wins
    alive = [ch for ch in children if ch.proven != LOSS]
    if not alive and children:
        alive = [max(children, key=lambda ch: (ch.proof_plies, ch.visits))]
    return None, alive


def pick_move(children: list[ChildStats]) -> ChildStats:
    """The move to play: a proven win (the shortest), else the most-visited move that is not a
    proven loss, else (every move loses) the loss that takes longest."""
    win, alive = proven_choice(children)
    return win if win is not None else max(alive, key=lambda ch: (ch.visits, ch.score))


def root_proven(children: list[ChildStats]) -> int:
    """The proven value of the root for the side to move, from its children's values."""
    if any(ch.proven == WIN for ch in children):
        return WIN
    if children and all(ch.proven != UNKNOWN for ch in children):
        return DRAW if any(ch.proven == DRAW for ch in children) else LOSS
    return UNKNOWN
