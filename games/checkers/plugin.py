"""Registers English checkers with plyground (entry point ``checkers``), and its ``endgame`` command."""
from plyground.hookspecs import hookimpl

from .game import CheckersGame


@hookimpl
def register_games():
    return [CheckersGame]


@hookimpl
def register_commands(cli):
    from .endgame.command import register
    from .hub.command import register as register_hub
    register(cli)
    register_hub(cli)


@hookimpl
def register_board_views():
    """The game's board view, which the window and the web page draw (the host's hook), imported when a front end
    first wants it."""
    from .view import CheckersView
    return [CheckersView]


@hookimpl
def register_bayes_adapters():
    """The game's move keys and board features for the bayes player and trainer (the bayes plugin's hook)."""
    from .bayes_keys import CheckersAdapter
    return [CheckersAdapter]
