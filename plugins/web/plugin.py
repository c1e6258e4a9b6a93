"""Registers the ``web`` renderer (``plyground play --renderer web``) and the ``web-screenshots`` command."""
from pathlib import Path

import click

from plyground.hookspecs import hookimpl

from .renderer import WebRenderer


@hookimpl
def register_renderers():
    return [WebRenderer]


@hookimpl
def register_commands(cli):
    @cli.command("web-screenshots")
    @click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("docs/screens/web"),
                  show_default=True, help="Folder for the PNG files.")
    def web_screenshots_command(out):
        """Write PNG screenshots of the web renderer's page in headless Chromium, at a desktop's size (1280x800)
        and a phone's (390x844); needs chromium and chromium-driver (apt-get) and Selenium."""
        import tempfile

        from plyground.recordio import check_output_dir

        from .browser import start_browser
        from .screenshots import is_web_screenshot_dir, write_web_screenshots
        check_output_dir(out, "--out", is_web_screenshot_dir)   # never overwrite pictures it did not take
        start_browser().quit()       # Chromium and Selenium there, or one line saying what to install
        with tempfile.TemporaryDirectory(prefix="plyground-web-shots-") as games:
            for path in write_web_screenshots(out, Path(games)):
                click.echo(str(path))
