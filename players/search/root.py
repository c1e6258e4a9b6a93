"""What identifies a position for the searches that walk the Python ``State`` API (tree reuse)."""
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
