"""Playing moves given as text, for the rules tests of any game."""
from __future__ import annotations


def play(state, *moves):
    """``state`` after the moves (in the game's notation) are applied to it in place."""
    for text in moves:
        state.apply(state.parse_move(text))
    return state
