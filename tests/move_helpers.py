"""Playing moves given as text, or drawn at random, for the rules and search tests of any game."""
from __future__ import annotations

import random


def play(state, *moves):
    """``state`` after the moves (in the game's notation) are applied to it in place."""
    for text in moves:
        state.apply(state.parse_move(text))
    return state


def random_play(state, plies: int, rng):
    """``state`` after up to ``plies`` random moves are applied to it in place (fewer where the game ends first).
    ``rng``: a :class:`random.Random` (a move is its ``choice``) or a NumPy Generator (a move is the legal move its
    ``integers`` names), drawn from once a move."""
    for _ in range(plies):
        if state.is_terminal():
            break
        moves = state.legal_moves()
        state.apply(rng.choice(moves) if isinstance(rng, random.Random) else moves[int(rng.integers(len(moves)))])
    return state
