"""One game played in a background thread, talking to its screen (the window's, the web page's) through queues.

A game session (``plyground.play.session``) plays in its own thread with a :class:`LinkRenderer`
as its renderer.  Every renderer call becomes a message in ``link.inbox``, which the
screen reads (the window once per frame, the page's server when the link wakes it); ``ask_move`` waits on
``link.replies`` for the move the person clicks.  The front end's thread never
waits for a bot, so it stays responsive while one thinks.

The same link also works without a thread (``pump`` given): then the caller's
thread is the window's, and every call runs frames of the window loop itself
(how ``plyground match --renderer pygame`` shows games).
"""
from __future__ import annotations

import queue
import threading
import time
import traceback
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from plyground.util import notices
from plyground.protocols import Command, Game, GameRecord, Renderer, State
from plyground.play.resume import game_so_far
from plyground.play.session import GameSession


class GameAbandoned(Exception):
    """The window has left this game; raised in the game thread at its next renderer call."""


class GameLink:
    """The two queues between a game (any thread) and the window loop."""

    def __init__(self, *, on_post: Callable[[], None] | None = None) -> None:
        self.inbox: "queue.Queue[tuple]" = queue.Queue()      # game -> window: (kind, *args)
        self.replies: "queue.Queue[Any]" = queue.Queue()      # window -> ask_move: a move or a Command
        self.interrupts: "queue.Queue[Command]" = queue.Queue()  # window -> a thinking bot: undo
        self.abandoned = threading.Event()
        self.compile_noted = False    # a "compiling" message was posted since the last move shown
        #: Called (from the posting thread) after each message: the web page's server sends it at once.
        self.on_post = on_post

    def post(self, *message: Any) -> None:
        self.inbox.put(message)
        if self.on_post is not None:
            self.on_post()

    def messages(self) -> list[tuple]:
        out = []
        while True:
            try:
                out.append(self.inbox.get_nowait())
            except queue.Empty:
                return out

    def answer(self, choice: Any) -> None:
        self.replies.put(choice)

    def interrupt(self, command: Command) -> None:
        """The person asks for ``command`` (undo) while a bot thinks: its search stops and the game obeys."""
        self.interrupts.put(command)

    def abandon(self) -> None:
        self.abandoned.set()
        self.replies.put(Command.QUIT)  # a human's ask_move that is waiting returns at once


# ------------------------------------------------------------ numba compiling, told to the window
@contextmanager
def compiling_told(link: GameLink) -> Iterator[None]:
    """While inside (a game or a hint going on), numba compiling kernels in this process posts ``("compiling",)``
    on ``link`` (once until the next move is shown), so the window can say why a first move is slow.  (A bot
    searches on a thread of its own that ``ask_for_move`` starts: any compilation while inside is the game's.)"""
    def told(_module: str) -> None:
        if not link.compile_noted:
            link.compile_noted = True
            link.post("compiling")

    with notices.compiling_watched(told):
        yield


class LinkRenderer(Renderer):
    """The renderer ``play_game`` sees: forwards everything to the window through a :class:`GameLink`."""

    name = "pygame-link"
    description = "Forwards renderer calls from a game thread to the pygame window."
    interactive = True
    shows_progress = True

    def __init__(self, link: GameLink, *, bot_delay: float = 0.0,
                 pump: Callable[[], None] | None = None) -> None:
        super().__init__()
        self.link, self.bot_delay, self.pump = link, bot_delay, pump
        self._last_shown = 0.0

    def _post(self, *message: Any) -> None:
        if self.link.abandoned.is_set():
            raise GameAbandoned()
        self.link.post(*message)
        if self.pump is not None:
            self.pump()

    def start(self, game: Game, state: State, players) -> None:
        self._post("start", game, state, tuple(players), self.record, self.game_clock)

    def show_analysis(self, title: str, analysis: dict | None, mover: str | None = None) -> None:
        if analysis and analysis.get("live"):
            # from the searching thread: posted only (pygame is the window thread's), and never raising
            if not self.link.abandoned.is_set():
                self.link.post("analysis", title, analysis, mover)
            return
        self._post("analysis", title, analysis, mover)

    def show(self, state: State, last_move: str | None) -> None:
        self.link.compile_noted = False   # a later compilation (a new kernel) is told again
        self._post("show", state, last_move)
        self._last_shown = time.monotonic()

    def tell(self, text: str) -> None:
        self._post("tell", text)

    def draw_offered(self, side: int | None) -> None:
        self._post("draw_offer", side)

    def thinking(self, player: str) -> None:
        # Let a person follow bot moves: wait a little after the previous move was shown.
        until = self._last_shown + self.bot_delay
        while time.monotonic() < until and not self.link.abandoned.is_set():
            if self.pump is not None:
                self.pump()
            time.sleep(min(0.02, max(0.0, until - time.monotonic())))
        self._post("thinking", player)

    def interruption(self):
        if self.pump is not None:
            self.pump()              # the window's own thread waits for the bot: keep the window alive
        if self.link.abandoned.is_set():
            return Command.QUIT
        try:
            return self.link.interrupts.get_nowait()
        except queue.Empty:
            return None

    def ask_move(self, state: State):
        if self.link.abandoned.is_set():
            return Command.QUIT
        self._post("ask", state)
        side = state.current_player()
        while True:
            if self.game_clock is not None and self.game_clock.remaining(side) <= 0:
                return Command.TIME_UP          # the person's flag fell while the window waited
            if self.pump is None:
                try:
                    return self.link.replies.get(timeout=0.05 if self.game_clock is not None else None)
                except queue.Empty:
                    continue
            try:
                return self.link.replies.get_nowait()
            except queue.Empty:
                self.pump()

    def end(self, state: State, record: GameRecord) -> None:
        self.link.post("end", state, record)  # also when abandoned: the record is still wanted
        if self.pump is not None:
            self.pump()


class GameThread:
    """A :class:`plyground.play.session.GameSession` played in a daemon thread; the window reads ``link`` and
    finally the session's ``record``."""

    def __init__(self, session: GameSession, *, bot_delay: float = 0.0, close_players: bool = False,
                 link: GameLink | None = None) -> None:
        self.session = session
        self.close_players = close_players
        self.link = link if link is not None else GameLink()
        self.renderer = LinkRenderer(self.link, bot_delay=bot_delay)
        self.error: str | None = None
        self.thread = threading.Thread(target=self._run, name="plyground-game", daemon=True)

    @property
    def record(self) -> GameRecord | None:
        return self.session.record

    def start(self) -> "GameThread":
        self.thread.start()
        return self

    def _run(self) -> None:
        try:
            with compiling_told(self.link):
                self.session.play(self.renderer)
        except GameAbandoned:
            pass
        except BaseException as exc:  # shown in the window rather than lost in a thread
            self.error = f"{type(exc).__name__}: {exc}"
            self.link.post("error", self.error, traceback.format_exc())
        finally:
            if self.close_players:
                self.session.close_players()
            self.link.post("done")

    @property
    def running(self) -> bool:
        return self.thread.is_alive()

    def abandon(self) -> None:
        self.link.abandon()

    def wait(self, timeout: float) -> bool:
        self.thread.join(timeout)
        return not self.thread.is_alive()

    def next_session(self, screen, wait: float = 10.0) -> GameSession | None:
        """New game: the game ``screen`` shows stopped and kept (as leaving keeps it), and a session of a new game
        with the same players (the very player objects: this thread leaves them open), names and settings, from
        the same start position (a resumed game's own start); None if the game's thread did not stop within
        ``wait`` seconds (its players are still busy)."""
        closes, self.close_players = self.close_players, False   # read by the thread as it ends: the players
        screen.stop_and_keep()                                    # go on to the new game
        self.abandon()
        if not self.wait(wait):
            self.close_players = closes
            return None
        old = self.session
        start = old.start
        if old.resume is not None:
            start = old.game.new_state(old.resume.start) if old.resume.start else None
        return GameSession(old.game, old.players, old.names, old.settings, start=start,
                           adjudicator=old.adjudicator)

    def record_when_left(self, screen, reason: str, wait: float) -> GameRecord:
        """The game's record once ``screen``, which showed it, was left (the window closed, the page's Close): the
        session's own when the game ended, else the game so far (unfinished, ``reason`` saying why), the game's
        thread abandoned and given ``wait`` seconds to stop."""
        if self.running:
            self.abandon()
            self.wait(wait)
        session = self.session
        if session.record is not None:
            return session.record
        if screen.live_record is not None:
            record = game_so_far(screen.live_record)
        else:
            record = GameRecord(game=session.game.name, players=session.names, start=screen.start_text,
                                moves=list(screen.moves), finished=False)
        record.reason = reason
        return session.finish(record)
