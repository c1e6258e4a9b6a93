"""What identifies a position for the searches that walk the Python ``State`` API (tree reuse), and a line
of moves from it as text."""
from __future__ import annotations

from typing import Any

from plyground.protocols import State


def position_key(state: State) -> Any:
    """``state.key()``, or None for a game without keys."""
    try:
        return state.key()
    except NotImplementedError:
        return None


def root_signature(state: State) -> tuple:
    """What identifies the root position for tree reuse: text, key and ply."""
    return state.to_text(), position_key(state), state.ply


def pv_text(state: State, pv: list) -> list[str]:
    """A principal variation from ``state`` as move text (as far as it is legal from ``state``)."""
    s = state.clone()
    out = []
    for move in pv:
        if s.is_terminal() or move not in s.legal_moves():
            break
        out.append(s.move_to_text(move))
        s.apply(move)
    return out
