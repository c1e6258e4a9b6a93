"""Registers the ``pygame`` renderer, its board views and the ``screenshots`` command.

The renderer is what consumes board views, so it owns their hook:
``register_board_views`` is declared here (:class:`BoardViewHooks`) and added to
the host with ``register_kinds``.  Every game's plugin registers its own view
through it (``games/<game>/view.py``), a third-party game's the same way.
"""
from __future__ import annotations

from pathlib import Path

import click

from plyground.hookspecs import Kind, hookimpl, hookspec

from .renderer import PygameRenderer
from .views import KIND


class BoardViewHooks:
    """The hook the pygame renderer adds for the board views it shows."""

    @hookspec
    def register_board_views(self) -> list[type]:
        """Return BoardView subclasses, one per game (its ``game_name``), for the pygame renderer."""


BOARD_VIEWS = Kind(KIND, "board view", "register_board_views", "plyground.boardview.base:BoardView",
                   key="game_name", hookspecs=BoardViewHooks)


@hookimpl
def register_kinds():
    return [BOARD_VIEWS]


@hookimpl
def register_renderers():
    return [PygameRenderer]


@hookimpl
def register_commands(cli):
    @cli.command("screenshots")
    @click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("docs/screens"),
                  show_default=True, help="Folder for the PNG files.")
    @click.option("--width", type=click.IntRange(min=480), default=1100, show_default=True)
    @click.option("--height", type=click.IntRange(min=360), default=760, show_default=True)
    def screenshots_command(out, width, height):
        """Write PNG screenshots of the pygame GUI (menu, rules, games in progress); needs no display."""
        from plyground.recordio import check_output_dir

        from .screenshots import is_screenshot_dir, write_screenshots
        check_output_dir(out, "--out", is_screenshot_dir)   # never overwrite pictures it did not take
        for path in write_screenshots(out, (width, height)):
            click.echo(str(path))
