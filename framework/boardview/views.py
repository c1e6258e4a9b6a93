"""Finding a game's view: the board views registered through the host's ``register_board_views`` hook.

Every front end that draws games (the window, the web page) finds a game's view here; any plugin may register one
for its game, as the built-in games register theirs.  The registry collects the views, and so imports them, the
first time a view is asked for.
"""
from __future__ import annotations

from plyground.protocols import Game
from plyground.registry import get_registry

#: The registry kind of board views (a host kind: :data:`plyground.hookspecs.FRONT_END_KINDS`).
KIND = "board-views"


def view_class(game: Game | type) -> type | None:
    """The view class registered for ``game`` (a Game or Game class), or ``None``."""
    entry = get_registry().find(KIND, game.name)
    return None if entry is None else entry.cls


def view_for(game: Game):
    """A new :class:`~.base.BoardView` for ``game``, or ``None`` when there is none."""
    cls = view_class(game)
    return None if cls is None else cls(game)


def has_view(game_cls: Game | type) -> bool:
    """Whether a game (class or instance) can be shown."""
    return view_class(game_cls) is not None


def no_view_reason(game: Game | type, view: str = "board view") -> str | None:
    """Why a renderer that draws games through their views cannot show ``game`` (the renderers'
    ``unsupported_reason``), ``view`` naming what it lacks; None when a view is registered for it."""
    if has_view(game):
        return None
    return (f"there is no {view} for {game.name} (a plugin registers one with the register_board_views hook; "
            f"see docs/plugins.md)")
