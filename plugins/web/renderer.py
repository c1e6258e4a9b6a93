"""The ``web`` renderer: the game in a browser page, served by :mod:`.server`, played by the game screen's model.

As in the window, a game plays in a thread of its own (:class:`~plyground.screen.link.GameThread`)
and talks to its screen through a :class:`~plyground.screen.link.GameLink`; here the screen is a
:class:`~.screen.WebScreen` and the link wakes the server, which sends the page what changed at once.  The
server's thread acts on the page's messages; the caller's thread (``plyground play``) waits until the person is
done: Close on the page, Ctrl-C, or the page closed for ``leave_after`` seconds (the bot's search stops, and a
game going on is kept in the saved-games folder as leaving the window keeps it).

Called directly instead (``plyground match --renderer web`` calls ``start/show/ask_move/end``), the renderer
forwards each call through a link to a screen as the window does.
"""
from __future__ import annotations

import importlib.util
import os
import sys
import threading
import time
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import click

from plyground.boardview.views import no_view_reason, view_for
from plyground.errors import UsageError
from plyground.options import Option, Spec
from plyground.protocols import Game, GameRecord, Renderer, State
from plyground.screen.frontend import ScreenFrontEnd
from plyground.screen.link import GameAbandoned, GameLink, GameThread, LinkRenderer
from plyground.play.session import GameSession, PlaySettings
from plyground.util.stopping import is_interrupt

from .messages import Refused
from .server import WebServer

if TYPE_CHECKING:
    from .editor import WebEditor
    from .screen import WebScreen

#: Message types the start page sends; the rest are the game screen's and the position editor's.
MENU_MESSAGES = ("start", "resume", "open", "setup")
#: Message types only the position editor takes.
EDITOR_MESSAGES = ("piece", "side")


def _loopback(host: str) -> bool:
    return host in ("127.0.0.1", "localhost", "::1") or host.startswith("127.")


class PageClosed(KeyboardInterrupt):
    """The page was closed (and not opened again within ``leave_after`` seconds): the game it showed stops, as
    closing the window stops one."""


class WebRenderer(ScreenFrontEnd, Renderer):
    name = "web"
    description = ("A browser page served on this computer (127.0.0.1 unless host= is given): start page, "
                   "clickable SVG board, hints, live analysis, take back, review; bots think on the server.")
    options = (
        Option("host", str, "127.0.0.1", "address to listen on: 127.0.0.1 (this computer only), or 0.0.0.0 to "
               "play from a phone or tablet on your network (the page's address carries a random token)"),
        Option("port", int, 0, "port to listen on (0: any free port; the address is printed)", min=0, max=65535),
        Option("open_browser", bool, True, "open the page in the default browser (where there is a display)"),
        Option("leave_after", float, 10.0, "seconds a game waits for its page to come back after the last page "
               "was closed, before it stops (kept in the saved-games folder)", min=0.0, max=86400.0),
        Option("bot_delay", float, 0.4, "least seconds between a shown move and the next bot move "
               "(so a person can follow bots)", min=0.0, max=60.0),
        Option("end_pause", float, 2.0, "seconds each finished game stays up during a match", min=0.0, max=600.0),
        Option("save_dir", Path, None, "folder for saved games (default: the saved-games folder, $PLYGROUND_GAMES "
               "or ~/plyground-games, where plyground play --resume NAME looks)", optional=True),
    )
    has_menu = True
    runs_games = True
    shows_progress = True
    reviews_games = True

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if importlib.util.find_spec("aiohttp") is None:     # the server's library, an extra
            raise UsageError("the web renderer needs aiohttp: pip install 'plyground[web]'")
        self.settings = {opt.name: options.get(opt.name, opt.default) for opt in self.options}
        self.config = dict(self.settings)
        self.lock = threading.RLock()      # the screen and the menu: the server's thread and the caller's
        self.server: WebServer | None = None
        self.screen: WebScreen | None = None
        self.menu = None
        self.editor: WebEditor | None = None    # the start page's Set up position, while it is shown
        self.game_thread: GameThread | None = None
        self.menu_settings = PlaySettings()
        self.square_numbers: dict[str, bool] = {}
        self.done = threading.Event()      # what the caller waits for (a game, a review, the menu) is over
        self.page_closed = False           # the pages went away and did not come back
        self.pages = 0
        self._page_timer: threading.Timer | None = None
        self._direct: LinkRenderer | None = None
        self._hinter = None

    @classmethod
    def unsupported_reason(cls, game: Game) -> str | None:
        return no_view_reason(game)

    # ------------------------------------------------------------ the server
    @property
    def url(self) -> str:
        return self.serve().url

    def serve(self) -> WebServer:
        """Start the server (once) and tell where the page is."""
        if self.server is None:
            self.server = WebServer(self, self.settings["host"], self.settings["port"]).start()
            url = self.server.url
            click.echo(f"plyground: the game is at {url}  (Ctrl-C stops)", err=True)
            if not _loopback(self.settings["host"]):
                click.echo(f"plyground: listening on {self.settings['host']}:{self.server.port}: anyone on your "
                           f"network who has this address (its token) can do on the page what a player at the "
                           f"board can: start, play, take back, save and leave games, and open the saved ones "
                           f"listed; the page runs no program and opens no file it names (docs/web.md, "
                           f"\"Safe by default\")", err=True)
            if self.settings["open_browser"] and _has_display():
                threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
        return self.server

    def wake(self) -> None:
        """Send the pages what changed, if the server still runs (another thread may have closed it)."""
        server = self.server
        if server is not None:
            server.wake()

    def _link(self) -> GameLink:
        server = self.serve()
        return GameLink(on_post=server.wake)

    def snapshot(self) -> dict:
        with self.lock:
            if self.screen is not None:
                return self.screen.snapshot()
            if self.editor is not None:
                return self.editor.snapshot()
            if self.menu is not None:
                return self.menu.snapshot()
            return {"type": "wait", "text": "Starting\u2026"}

    def act(self, message: dict) -> None:
        with self.lock:
            kind = message["type"]
            if self.editor is not None:         # (only ever set while no game screen is)
                self.editor.act(message)
            elif kind in MENU_MESSAGES:
                if self.menu is None or self.screen is not None:
                    raise Refused("the start page is not shown: this message is for the start page")
                self.menu.act(message)
            elif kind in EDITOR_MESSAGES:
                raise Refused(f"the position editor is not shown: a {kind} message is for the position editor "
                              f"(Set up position on the start page)")
            elif self.screen is None:
                raise Refused("no game is shown: choose one on the start page first")
            else:
                self.screen.act(message)

    def page_count_changed(self, pages: int) -> None:
        """The server's count of open pages; none for ``leave_after`` seconds stops what they showed."""
        self.pages = pages
        if self._page_timer is not None:
            self._page_timer.cancel()
            self._page_timer = None
        if pages == 0:
            self._page_timer = threading.Timer(self.settings["leave_after"], self._pages_gone)
            self._page_timer.daemon = True
            self._page_timer.start()

    def _pages_gone(self) -> None:
        with self.lock:
            if self.pages:
                return
            self.page_closed = True
            screen = self.screen
            if screen is not None and not screen.reviewing:
                said = screen.stop_and_keep()      # a game going on stops (its search too) and is kept, as leaving
                if said and screen.from_menu:      # keeps it; plyground play names the file of a game it started
                    click.echo(said, err=True)
                self.game_left(screen)
            self.menu = self.editor = None
            self.done.set()

    def _wait(self) -> None:
        """Wait (the caller's thread) until what is shown is done; Ctrl-C comes through."""
        while not self.done.wait(0.2):
            pass

    def close(self) -> None:
        if self._page_timer is not None:
            self._page_timer.cancel()
        self.done.set()                    # a game or review still waited on ends (its page is going)
        if self.game_thread is not None and self.game_thread.running:
            self.game_thread.abandon()
        server, self.server = self.server, None        # (the caller's thread and the menu's may both close)
        if server is not None:
            server.stop()
            click.echo("plyground: the game's page is closed (the server has stopped)", err=True)

    # ------------------------------------------------------------ what the game screen asks of its app
    def game_left(self, screen) -> None:
        """Close / Menu / Play from here on a game screen."""
        with self.lock:
            if screen.reviewing and screen.from_menu:
                screen.stop_hint()
                self.close_hinter()
                if screen.play_from is not None and self.menu is not None:
                    self.screen = None
                    self.menu.start_from(screen.play_from)
                    return
            if screen.from_menu and self.menu is not None:
                self.screen = None
                self.menu.notice = screen.kept
                self.menu.refresh()           # a game kept on leaving is one to resume
            else:
                self.done.set()
        self.wake()

    def play_again(self) -> None:
        with self.lock:
            if self.menu is not None:
                self.screen = None
                self.menu.start_again()

    def new_game(self, screen) -> None:
        """A game screen's New game: the game going on kept, a new one with the same players and settings."""
        with self.lock:
            session = self.game_thread.next_session(screen)
            if session is None:
                raise Refused("the game could not be stopped in time: try New game again")
            self.start_game(session, from_menu=screen.from_menu)
            if screen.kept:
                self.screen.set_message(screen.kept, "good")

    def _show(self, link: GameLink, game: Game, names, humans: set[int], **screen_options: Any) -> None:
        """Show a game screen of ``game`` fed by ``link`` (the screen's module imported here, when a page shows a
        game -- not when the renderer is registered)."""
        from .screen import WebScreen
        self.screen = WebScreen(self, link, game, view_for(game), tuple(names), humans, **screen_options)

    def start_game(self, session: GameSession, *, from_menu: bool) -> None:
        """Begin ``session`` in a background thread and show it."""
        with self.lock:
            game = session.game
            humans = {i for i, p in enumerate(session.players) if p.needs_renderer}
            self.game_thread = GameThread(session, bot_delay=self.settings["bot_delay"], close_players=from_menu,
                                          link=self._link())
            self._show(self.game_thread.link, game, session.names, humans, from_menu=from_menu)
            self.game_thread.start()
        self.wake()

    # ------------------------------------------------------------ entry points used by the CLI
    def run_menu(self, registry=None) -> None:
        """The start page: games from it until the page is closed (or Ctrl-C)."""
        from plyground.registry import get_registry

        from .menu import WebMenu
        with self.lock:
            self.menu = WebMenu(self, registry or get_registry())
        self.done.clear()
        self.serve().wake()
        try:
            self._wait()
        except BaseException as exc:
            if is_interrupt(exc) and self.screen is not None:
                self.record = self.screen.unfinished_record() or self.record
            raise
        finally:
            self.close()

    def play(self, session: GameSession) -> GameRecord:
        """Play ``session`` on the page and return its record (the game so far if the page was closed, or Close
        pressed, while it went on)."""
        self.done.clear()
        self.serve()
        self.start_game(session, from_menu=False)
        try:
            self._wait()
        except BaseException as exc:
            if is_interrupt(exc):
                self.record = self.screen.unfinished_record() or self.record
            raise
        screen, thread = self.screen, self.game_thread     # New game may have started another since
        return thread.record_when_left(screen, "the page was closed while the game went on" if self.page_closed
                                       else "the game was left", 5.0)

    def open_review(self, review, hint: Callable[[State], None], *, from_menu: bool = False) -> None:
        """Show ``review`` (a :class:`plyground.play.review.GameReview`); ``hint(state)`` searches a position and
        reports through :meth:`show_analysis`."""
        with self.lock:
            link = self._link()
            self._direct = LinkRenderer(link)
            self._show(link, review.game, tuple(review.record.players), set(), from_menu=from_menu, review=review,
                       hint=hint)
        self.wake()

    def review(self, review, hint: Callable[[State], None]) -> State | None:
        """Step through ``review`` on the page (:meth:`ScreenFrontEnd.review`)."""
        self.done.clear()
        return super().review(review, hint)

    @property
    def game_screen(self):
        """The game screen shown (the page shows one at a time: :attr:`screen`)."""
        return self.screen

    def wait_until_left(self) -> None:
        self._wait()

    # ------------------------------------------------------------ direct calls (plyground match --renderer web)
    def _forward(self, call: Callable[[], Any]) -> Any:
        if self.page_closed:
            raise PageClosed("the game's page was closed")
        try:
            return call()
        except GameAbandoned:
            raise PageClosed("the game's page was closed") from None

    def start(self, game: Game, state: State, players) -> None:
        self.serve()
        with self.lock:
            link = self._link()
            humans = {i for i, name in enumerate(players) if Spec.parse(name).name == "human"}
            self._show(link, game, tuple(players), humans, from_menu=False)
            self._direct = LinkRenderer(link, bot_delay=self.settings["bot_delay"])
            self._direct.record = self.record
            self._direct.game_clock = self.game_clock
        self._forward(lambda: self._direct.start(game, state, players))

    def end(self, state: State, record: GameRecord) -> None:
        self._direct.end(state, record)
        until = time.monotonic() + self.settings["end_pause"]
        while time.monotonic() < until and not self.page_closed:
            time.sleep(0.05)


def _has_display() -> bool:
    """Whether a browser can be opened here: a desktop (macOS, Windows) or an X or Wayland display; a console
    browser taking over the terminal is not what anyone wants."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


__all__ = ["WebRenderer", "PageClosed"]
