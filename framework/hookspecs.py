"""The hooks a plyground plugin may implement.  Each returns classes; the host names them."""
from __future__ import annotations

import pluggy

hookspec = pluggy.HookspecMarker("plyground")
hookimpl = pluggy.HookimplMarker("plyground")


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
def register_networks() -> list[type]:
    """Return Network subclasses this plugin provides."""


@hookspec
def register_commands(cli) -> None:
    """Add click subcommands to the ``plyground`` command group ``cli``."""
