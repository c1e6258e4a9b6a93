"""Finding a game's view: ``game.pygame_view()`` if the game has one, else a built-in view by name.

This module does not import pygame (the renderer's registration stays cheap);
the views themselves are imported when a window shows them.
"""
from __future__ import annotations

import importlib

from plyground.protocols import Game

#: Built-in views, by game name: "module:class" inside this package (imported only when used).
BUILTIN = {
    "tictactoe": "tictactoe:TicTacToeView",
    "checkers": "checkers:CheckersView",
    "chess": "chess:ChessView",
}


def view_for(game: Game):
    """A new :class:`~.base.BoardView` for ``game``, or ``None`` when there is none."""
    factory = getattr(game, "pygame_view", None)
    if callable(factory):
        view = factory()
        if isinstance(view, type):
            view = view(game)
        if view is not None:
            return view
    target = BUILTIN.get(game.name)
    if target is None:
        return None
    module, _, cls = target.partition(":")
    return getattr(importlib.import_module(f"{__name__}.{module}"), cls)(game)


def has_view(game_cls: type) -> bool:
    """Whether a game (class or instance) can be shown, without building a view."""
    return callable(getattr(game_cls, "pygame_view", None)) or getattr(game_cls, "name", None) in BUILTIN
