"""Registers the ``web`` renderer (``plyground play --renderer web``) and the ``web-screenshots`` command."""
from pathlib import Path

from plyground.hookspecs import hookimpl
from plyground.screen.shots import out_option, write_pictures

from .renderer import WebRenderer


@hookimpl
def register_renderers():
    return [WebRenderer]


@hookimpl
def register_commands(cli):
    @cli.command("web-screenshots")
    @out_option(Path("docs/screens/web"))
    def web_screenshots_command(out):
        """Write PNG screenshots of the web renderer's page in headless Chromium, at a desktop's size (1280x800)
        and a phone's (390x844); needs chromium and chromium-driver (apt-get) and Selenium."""
        import tempfile

        from .browser import start_browser
        from .screenshots import is_web_screenshot_dir, write_web_screenshots

        def write():
            start_browser().quit()       # Chromium and Selenium there, or one line saying what to install
            with tempfile.TemporaryDirectory(prefix="plyground-web-shots-") as games:
                yield from write_web_screenshots(out, Path(games))
        write_pictures(out, is_web_screenshot_dir, write)
