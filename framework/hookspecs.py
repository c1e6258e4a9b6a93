"""The hooks a plyground plugin may implement.  Each returns classes; the host names them.

These are the host's own kinds (board views among them: every front end that draws games uses them).  A plugin
that consumes a kind of class itself (AlphaZero networks, bayes adapters) owns that kind's hook:
it declares the hookspec in its own module and returns a :class:`Kind` from
``register_kinds``; the host adds the spec before it checks any plugin's hooks,
and lists the kind with the others (``plyground plugins``, ``plyground list``).
"""
from __future__ import annotations

from dataclasses import dataclass

import pluggy

hookspec = pluggy.HookspecMarker("plyground")
hookimpl = pluggy.HookimplMarker("plyground")


@dataclass(frozen=True)
class Kind:
    """A kind of registered class: its name, the hook that registers it, the class it must extend."""

    #: Plural, as typed in ``plyground list`` and shown by ``plyground plugins`` ("board-views").
    name: str
    #: For messages ("board view").
    singular: str
    #: The hook that returns the classes ("register_board_views").
    hook: str
    #: The base class every registered class extends, or ``"module:Class"`` imported when the kind is
    #: first collected (so declaring a kind stays cheap).
    base: type | str
    #: The class attribute a class is known by: ``name``, or for classes that serve one game (bayes
    #: adapters, board views) the attribute holding that game's name.
    key: str = "name"
    #: The module or class holding ``hook``'s ``@hookspec`` (``None`` for the host's own kinds).
    hookspecs: object = None


#: The host's own kinds, each registered through one of the hooks below and known by its ``name`` (what users
#: type).  The plugin manager asks these hooks which names a plugin provides (``PLYGROUND_DISABLE_PLUGINS``
#: takes them); the registry collects their classes.
HOST_KINDS = (
    Kind("games", "game", "register_games", "plyground.protocols:Game"),
    Kind("players", "player", "register_players", "plyground.protocols:Player"),
    Kind("renderers", "renderer", "register_renderers", "plyground.protocols:Renderer"),
    Kind("trainers", "trainer", "register_trainers", "plyground.protocols:Trainer"),
)
#: The host's kinds that only the front ends use (the window, the web page), collected the first time one asks for
#: them rather than when the registry is built: one board view a game, known by its game's name.
FRONT_END_KINDS = (
    Kind("board-views", "board view", "register_board_views", "plyground.boardview.base:BoardView",
         key="game_name"),
)


@hookspec
def register_games() -> list[type]:
    """Return Game subclasses this plugin provides."""


@hookspec
def register_players() -> list[type]:
    """Return Player subclasses this plugin provides."""


@hookspec
def register_renderers() -> list[type]:
    """Return Renderer subclasses this plugin provides."""


@hookspec
def register_trainers() -> list[type]:
    """Return Trainer subclasses this plugin provides."""


@hookspec
def register_board_views() -> list[type]:
    """Return BoardView subclasses, one per game (its ``game_name``), for every front end that draws games."""


@hookspec
def register_commands(cli) -> None:
    """Add click subcommands to the ``plyground`` command group ``cli``."""


@hookspec
def register_kinds() -> list[Kind]:
    """Return the kinds of classes this plugin consumes, each with its own hookspec, for others to register into."""
