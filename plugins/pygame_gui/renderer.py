"""The ``pygame`` renderer: owns the window and its loop; games run in a background thread.

The window loop is :meth:`PygameRenderer.step` (one frame: events, game
messages, drawing), so tests and the screenshot command can run it frame by
frame.  :meth:`run_menu` is the whole application; :meth:`play` plays one
game given on the command line; :meth:`review` steps through a recorded one
(``plyground play --review FILE``).  ``play_game`` always runs in another
thread with a :class:`~.link.LinkRenderer`, so a thinking bot never
freezes the window.  Called directly instead (``plyground match --renderer
pygame`` calls ``start/show/ask_move/end`` on this object from the main
thread), the renderer runs window frames inside each call.
"""
from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, Callable

import click

from plyground.boardview.views import no_view_reason, view_for
from plyground.options import Option, Spec
from plyground.protocols import Game, GameRecord, Renderer, State
from plyground.screen.frontend import ScreenFrontEnd
from plyground.play.session import GameSession, PlaySettings
from plyground.util.stopping import is_interrupt


#: The smallest window (width, height): the game screen's panel holds its buttons, messages and moves without
#: overlaps from here up; a smaller window asked for (or resized to) gets this.
MIN_SIZE = (800, 600)


class PygameRenderer(ScreenFrontEnd, Renderer):
    name = "pygame"
    description = ("A window: main menu with every player and its options, rules page, clickable board "
                   "with highlights; bots think in the background.")
    options = (
        Option("width", int, 1100, "window width in pixels", min=MIN_SIZE[0], max=10000),
        Option("height", int, 760, "window height in pixels", min=MIN_SIZE[1], max=10000),
        Option("fps", int, 30, "frames per second of the window loop", min=5, max=240),
        Option("bot_delay", float, 0.4, "least seconds between a shown move and the next bot move "
               "(so a person can follow bots)", min=0.0, max=60.0),
        Option("end_pause", float, 2.0, "seconds each finished game stays up during a match", min=0.0, max=600.0),
        Option("save_dir", Path, None, "folder for saved games (default: the saved-games folder, $PLYGROUND_GAMES "
               "or ~/plyground-games, where plyground play --resume NAME looks)", optional=True),
    )
    has_menu = True      # run_menu: the whole application
    runs_games = True    # play: the window's loop runs the game, bots think in a background thread
    shows_progress = True    # live analysis: a bot's search while it thinks
    reviews_games = True  # review: plyground play --review FILE

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.settings = {opt.name: options.get(opt.name, opt.default) for opt in self.options}
        self.config = dict(self.settings)
        self.surface = None
        self.clock = None
        self.screen = None           # what the window shows: menu, rules or a game
        self.menu = None
        self.game_screen = None
        self.game_thread = None      # the game being played, in its own thread
        self.menu_settings = PlaySettings()   # the command line's, for the menu's games (the host sets them)
        self.running = False
        self.frames = 0
        #: Square numbers on or off, by game, as the person last left them (for the window's next games).
        self.square_numbers: dict[str, bool] = {}
        self._direct = None          # LinkRenderer for calls made on the window's own thread (ScreenFrontEnd)
        self._window_thread: threading.Thread | None = None

    @classmethod
    def unsupported_reason(cls, game: Game) -> str | None:
        return no_view_reason(game, "pygame view")

    # ------------------------------------------------------------ the window and its loop
    def open_window(self) -> None:
        if self.surface is not None:
            return
        import pygame
        pygame.display.init()
        pygame.font.init()
        size = (max(MIN_SIZE[0], self.settings["width"]), max(MIN_SIZE[1], self.settings["height"]))
        self.surface = pygame.display.set_mode(size, pygame.RESIZABLE)
        pygame.display.set_caption("plyground")
        self.clock = pygame.time.Clock()
        self._window_thread = threading.current_thread()

    def step(self) -> None:
        """One frame: handle pending events, apply the game thread's messages, draw."""
        import pygame
        self.open_window()
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                self.request_quit()
            elif event.type == pygame.VIDEORESIZE:
                self._resize(event.w, event.h)
            elif self.screen is not None:
                self.screen.handle_event(event)
        surface = pygame.display.get_surface()
        if surface is None:  # closed while handling the events
            return
        self.surface = surface
        if self.screen is not None:
            self.screen.update()
            self.screen.draw(surface)
        pygame.display.flip()
        self.frames += 1

    def run(self) -> None:
        """Frames until the window is closed (or the game shown by :meth:`play` is left).

        Ctrl-C leaves ``record`` holding the game being played, unfinished, for the caller to keep
        (``plyground play`` saves it as it does a console game's)."""
        self.running = True
        try:
            while self.running:
                self.step()
                self.clock.tick(self.settings["fps"])
        except BaseException as exc:
            if is_interrupt(exc) and self.game_screen is not None:
                self.record = self.game_screen.unfinished_record() or self.record
            raise

    def _resize(self, width: int, height: int) -> None:
        import pygame
        size = (max(MIN_SIZE[0], width), max(MIN_SIZE[1], height))
        if pygame.display.get_surface().get_size() != size:
            self.surface = pygame.display.set_mode(size, pygame.RESIZABLE)

    def request_quit(self) -> None:
        """The window's close button: leave whatever is shown.  A game going on that the menu started is kept as
        its Menu button keeps it, and the terminal names the file (one the command line started is the record
        :meth:`play` returns, which ``plyground play`` keeps and names)."""
        screen = self.game_screen
        if screen is not None and not screen.over:
            if screen.from_menu and self.screen is screen:
                said = screen.stop_and_keep()
                if said:
                    click.echo(said, err=True)
            else:
                screen.link.abandon()
        self.running = False

    def close(self) -> None:
        if self.game_thread is not None and self.game_thread.running:
            self.game_thread.abandon()
        if self.surface is not None:
            import pygame
            pygame.display.quit()
            self.surface = None

    # ------------------------------------------------------------ screens
    def open_menu(self, registry=None) -> None:
        """Show the main menu (without running the loop: :meth:`run` or :meth:`step` do that)."""
        from plyground.registry import get_registry

        from .menu import MenuScreen
        self.open_window()
        self.menu = MenuScreen(self, registry or get_registry())
        self.screen = self.menu
        self.running = True

    def show_menu(self) -> None:
        if self.menu is None:
            self.running = False
        else:
            self.screen = self.menu

    def show_rules(self) -> None:
        from .pages import RulesScreen
        game = self.menu.default_game() if self.menu else None
        view = view_for(game) if game is not None else None
        self.screen = RulesScreen(self, game, getattr(view, "help_text", ""))

    def start_game(self, session: GameSession, *, from_menu: bool) -> None:
        """Begin ``session`` in a background thread and show it (a game the menu started: its players are
        closed when it ends)."""
        from .game_screen import GameScreen
        from plyground.screen.link import GameThread
        self.open_window()
        game = session.game
        human_sides = {i for i, p in enumerate(session.players) if p.needs_renderer}
        self.game_thread = GameThread(session, bot_delay=self.settings["bot_delay"], close_players=from_menu)
        self.game_screen = GameScreen(self, self.game_thread.link, game, view_for(game), session.names, human_sides,
                                      from_menu=from_menu)
        self.screen = self.game_screen
        self.game_thread.start()

    def game_left(self, screen) -> None:
        """The Menu / Close button of a game screen (a review opened from the menu: its hint search stopped and
        its Play from here started as a new game with the menu's players)."""
        if screen.reviewing and screen.from_menu:
            screen.stop_hint()
            self.close_hinter()
            self._direct = None
            if screen.play_from is not None and self.menu is not None:
                self.menu.position.set_text(screen.play_from.to_text())
                self.show_menu()
                self.menu.start()
                return
        if screen.from_menu:
            self.show_menu()
            if self.menu is not None:
                self.menu.notice = screen.kept
        else:
            self.running = False

    def play_again(self) -> None:
        if self.menu is not None:
            self.menu.start()

    def new_game(self, screen) -> None:
        """A game screen's New game: the game going on kept, a new one with the same players and settings."""
        session = self.game_thread.next_session(screen)
        if session is None:
            screen.set_message("The game could not be stopped in time: try New game again.", "error")
            return
        self.start_game(session, from_menu=screen.from_menu)
        if screen.kept:
            self.game_screen.set_message(screen.kept, "good")

    # ------------------------------------------------------------ entry points used by the CLI
    def run_menu(self, registry=None) -> None:
        """The whole application: menu, games, back to the menu, until the window is closed."""
        self.open_menu(registry)
        try:
            self.run()
        finally:
            self.close()

    def play(self, session: GameSession) -> GameRecord:
        """Play ``session`` in the window and return its record (the game so far if the window was closed
        while a bot was thinking)."""
        self.start_game(session, from_menu=False)
        self.run()
        return self.game_thread.record_when_left(self.game_screen, "the window was closed while a bot was thinking",
                                                 2.0)

    def open_review(self, review, hint: Callable[[State], None], *, from_menu: bool = False) -> None:
        """Show ``review`` (a :class:`plyground.play.review.GameReview`) without running the loop; ``hint(state)``
        searches a position and reports through :meth:`show_analysis`, from the hint's own thread (a review the
        menu opened: Menu comes back to it)."""
        from .game_screen import GameScreen
        from plyground.screen.link import GameLink, LinkRenderer
        self.open_window()
        link = GameLink()
        self._direct = LinkRenderer(link)    # the hint's show_analysis and interruption go through the link
        self.game_screen = GameScreen(self, link, review.game, view_for(review.game), tuple(review.record.players),
                                      set(), from_menu=from_menu, review=review, hint=hint)
        self.screen = self.game_screen
        self.running = True

    def wait_until_left(self) -> None:
        """The window's loop while a review is shown (:meth:`ScreenFrontEnd.review`; Play from here leaves the
        window open for its game)."""
        self.run()

    # ------------------------------------------------------------ direct calls (e.g. from run_match)
    def _pump(self) -> None:
        self.step()
        self.clock.tick(self.settings["fps"])
        if not self.running:
            raise KeyboardInterrupt("the pygame window was closed")

    def start(self, game: Game, state: State, players) -> None:
        from .game_screen import GameScreen
        from plyground.screen.link import GameLink, LinkRenderer
        self.open_window()
        link = GameLink()
        humans = {i for i, name in enumerate(players) if Spec.parse(name).name == "human"}
        self.game_screen = GameScreen(self, link, game, view_for(game), tuple(players), humans, from_menu=False)
        self.screen = self.game_screen
        self.running = True
        self._direct = LinkRenderer(link, pump=self._pump)
        self._direct.record = self.record
        self._direct.game_clock = self.game_clock
        self._direct.start(game, state, players)

    def end(self, state: State, record: GameRecord) -> None:
        self._direct.end(state, record)
        until = time.monotonic() + self.settings["end_pause"]
        while time.monotonic() < until and self.running:
            self._pump()
