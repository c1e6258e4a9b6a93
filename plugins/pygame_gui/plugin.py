"""Registers the ``pygame`` renderer and the ``screenshots`` command.

The window draws games through their board views, a host kind (``register_board_views``) that the web page uses
too; every game's plugin registers its own view (``games/<game>/view.py``), a third-party game's the same way.
"""
from __future__ import annotations

from pathlib import Path

import click

from plyground.hookspecs import hookimpl
from plyground.screen.shots import out_option, write_pictures

from .renderer import PygameRenderer


@hookimpl
def register_renderers():
    return [PygameRenderer]


@hookimpl
def register_commands(cli):
    @cli.command("screenshots")
    @out_option(Path("docs/screens"))
    @click.option("--width", type=click.IntRange(min=480), default=1100, show_default=True)
    @click.option("--height", type=click.IntRange(min=360), default=760, show_default=True)
    def screenshots_command(out, width, height):
        """Write PNG screenshots of the pygame GUI (menu, rules, games in progress); needs no display."""
        from .screenshots import is_screenshot_dir, write_screenshots
        write_pictures(out, is_screenshot_dir, lambda: write_screenshots(out, (width, height)))
