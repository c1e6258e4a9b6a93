"""Helpers for the web renderer's tests: a game served in this process, and headless Chromium driving its page.

The browser is Debian's ``chromium`` with its ``chromedriver`` (``.ci/run`` installs both), driven by Selenium;
where they are not installed the browser tests skip with one line.  Clicks on the board are real pointer events
at the screen point of a cell's centre (the view's own geometry, mapped through the page's SVG)."""
from __future__ import annotations

import threading
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from plyground.plugins.web.browser import PageDriver, chromium, until
from plyground.registry import get_registry
from plyground.play.session import GameSession, PlaySettings

_FOUND = chromium()
CHROMIUM, CHROMEDRIVER = _FOUND if _FOUND else (None, None)
NO_BROWSER = ("no headless Chromium here (apt-get install chromium chromium-driver; .ci/run does): "
              "browser tests skipped")


def make_web_renderer(save_dir: Path, game: str = "checkers", **options: Any):
    """The web renderer as ``--renderer web:...`` makes it for ``game``: no browser opened, no bot delay, games
    saved in ``save_dir``."""
    spec = {"open_browser": "false", "bot_delay": "0", "save_dir": str(save_dir), **options}
    registry = get_registry()
    return registry.make_renderer("web:" + ",".join(f"{k}={v}" for k, v in spec.items()), registry.make_game(game))


class ServedGame:
    """A game played by the web renderer in a thread, as ``plyground play --renderer web`` plays it."""

    def __init__(self, renderer, game_spec: str, players: tuple[str, str], *, start=None,
                 settings: PlaySettings = PlaySettings()) -> None:
        registry = get_registry()
        self.renderer = renderer
        self.game = registry.make_game(game_spec)
        if isinstance(start, str):
            start = self.game.new_state(start)
        self.session = GameSession(self.game, [registry.make_player(p, self.game) for p in players], players,
                                   settings, start=start)
        self.record = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._play, daemon=True)

    def _play(self) -> None:
        try:
            self.record = self.renderer.play(self.session)
        except BaseException as exc:  # noqa: BLE001 - the test reports it
            self.error = exc

    def start(self) -> "ServedGame":
        self.thread.start()
        until(lambda: self.renderer.screen is not None, "the game's screen")
        return self

    def finish(self, timeout: float = 30.0) -> None:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the game did not end"
        if self.error is not None:
            raise self.error
        self.session.close_players()


@contextmanager
def game_page(browser, save_dir: Path, game_spec: str, players: tuple[str, str], *, start=None):
    """``game_spec`` played by ``players`` as ``plyground play --renderer web`` plays it, its page open in
    ``browser``: (renderer, :class:`ServedGame`, page); the renderer closed at the end, whatever happened."""
    renderer = make_web_renderer(save_dir, game_spec.partition(":")[0])
    try:
        served = ServedGame(renderer, game_spec, players, start=start).start()
        yield renderer, served, PageDriver(browser, renderer).open()
    finally:
        renderer.close()


def page_address(url: str) -> tuple[str, str]:
    """The printed address split into the server's base (``http://host:port``) and the token."""
    base, token = url.split("/?token=")
    return base, token


def http_session(aiohttp):
    """An aiohttp client session that keeps cookies from an IP address, as a browser does (aiohttp's default jar
    drops them)."""
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def open_page(http, url: str):
    """Load the printed address as a browser does (the token becomes the page's cookie); the page's HTML."""
    async with http.get(url) as response:
        assert response.status == 200, (response.status, await response.text())
        return await response.text()


def websocket(http, base: str, **options):
    """Connect to the page's WebSocket as the page does: from its own origin, with the cookie."""
    host = base.split("://", 1)[1]
    return http.ws_connect(f"{base}/ws", headers={"Origin": f"http://{host}"}, **options)


@asynccontextmanager
async def page_socket(aiohttp, url: str):
    """The page of the printed address as a browser opens it: loaded (the token becomes its cookie), then its
    WebSocket connected; the socket, closed at the end as a closed page closes it."""
    base, _ = page_address(url)
    async with http_session(aiohttp) as http:
        await open_page(http, url)
        async with websocket(http, base) as ws:
            yield ws
