"""Looking back through a game in the game screen: stepping through the moves (a recorded game's, or the live
one's so far, read-only), Play from here, and hints and analysis of the position shown.

:class:`LookingBack` is a part of :class:`~.game.GameScreenModel` (its base class): it reads and sets the
screen's ``review``, ``reviewing``, ``moves``, ``start_text``, ``link``, ``message`` and the hint's state
(``hinting``, ``analysing``, ``_hint``, ``_hint_thread``, ``_hint_ply``, ``_hint_position``).
"""
from __future__ import annotations

import threading
from typing import Callable

from plyground.errors import PlygroundError
from plyground.play.match import Interrupted
from plyground.protocols import Command, GameRecord, State
from plyground.play.review import GameReview

from .link import GameAbandoned, compiling_told

#: Infinite analysis (I, reviewing a game) searches this long at most, unless stopped first (or its budget of
#: simulations, plyground.players.human.ANALYSIS_SIMULATIONS, is spent).
ANALYSE_SECONDS = 600.0


class LookingBack:
    """The game screen's review: the moves stepped through, Play from here, hints of the position shown."""

    def step_back(self) -> None:
        self._look(GameReview.back)

    def step_forward(self) -> None:
        self._look(GameReview.forward)

    def to_start(self) -> None:
        self._look(GameReview.to_start)

    def to_end(self) -> None:
        self._look(GameReview.to_end)

    def show_ply(self, ply: int) -> None:
        """The position after ``ply`` moves (a click on a move of the move list)."""
        self._look(lambda review: review.goto(ply))

    @property
    def shown_state(self) -> State | None:
        """The position on the board: the one looked back at, else the live one."""
        return self._shown if self.review is not None else self.state

    def _look(self, step: Callable[[GameReview], object]) -> None:
        if self.message_kind != "wait":     # a refused click's reason is about the position left
            self.set_message("", "info")
        if self.input is not None:
            self.input.cancel()             # a half-entered move is dropped, as by Escape
        self._navigate(step)

    def _navigate(self, step: Callable[[GameReview], object]) -> None:
        """Move the position shown with ``step(review)``.  A live game is made a review of its moves so far when
        the person first looks back, and is live again at its last move."""
        review = self.review if self.review is not None else self._live_review()
        if review is None:
            return
        step(review)
        if not self.reviewing and review.at_end:
            self.review, self._shown, self._review_marks = None, None, {}
        else:
            self.review = review
            self._show_review()

    def _live_review(self) -> GameReview | None:
        """The live game's moves so far, as a review standing at the last of them; None before the first."""
        if self.state is None or not self.moves:
            return None
        record = GameRecord(game=self.game.name, players=self.names, start=self.start_text, moves=list(self.moves),
                            finished=False)
        try:
            review = GameReview(self.game, record)
        except PlygroundError as exc:      # the game's own moves that do not replay: say so, keep playing
            self.set_message(f"Cannot look back: {exc}", "error")
            return None
        review.to_end()
        return review

    def _show_review(self) -> None:
        """Keep the reviewed ply's position and its move's marks (drawn every frame); an infinite analysis
        goes on with the new position."""
        review = self.review
        self._shown = review.state()
        before = review.position(review.ply - 1) if review.ply else None
        self._review_marks = self.view.last_move_marks(before, review.last_move)
        if self.analysing and self._hint_position != self._shown.to_text():
            self._stop_analysing()
            self.analysing = True
            self._hint_reviewed()
            if not self.hinting:
                self.analysing = False

    def _review_words(self) -> str:
        """Where the review stands, for the message box."""
        text = self.review.describe()
        return text if self.reviewing else f"Looking back: {text}. End (or \u2192) returns to the game."

    def play_from_here(self) -> None:
        """Leave the review with the position shown, for a new game (``plyground play`` starts it)."""
        state = self.shown_state
        if state.is_terminal():
            self.set_message(f"The game is over here ({state.outcome_reason()}): step back (\u2190) to play from "
                             f"an earlier position.", "error")
            return
        self.play_from = state.clone()
        self.app.game_left(self)

    def _hint_reviewed(self) -> None:
        """A hint for the reviewed position, searched off the front end's thread; it comes back through the link."""
        state = self.shown_state
        if self.hinting or self._hint is None:
            return
        if state.is_terminal():
            self.set_message(f"No hint: the game is over here ({state.outcome_reason()}).", "error")
            return
        self.hinting, self._hint_ply, self._hint_position = True, self.review.ply, state.to_text()
        self.set_message("Analysing the position shown (I stops)..." if self.analysing else "Looking for a hint...",
                         "wait")
        while not self.link.interrupts.empty():       # a stop meant for a search that has ended since
            self.link.interrupts.get_nowait()
        seconds = ANALYSE_SECONDS if self.analysing else None
        self._hint_thread = threading.Thread(target=self._search_hint, args=(state.clone(), seconds),
                                             name="plyground-hint", daemon=True)
        self._hint_thread.start()

    def toggle_analysing(self) -> None:
        """Infinite analysis of the position shown, on or off: a search that runs until stopped, its findings
        shown live.  Reviewing a game, stepping to another position analyses that one; in a live game it is the
        person's position (while they are to move), and stopping it asks for their move again."""
        if not self.reviewing:
            self._toggle_live_analysis()
            return
        if self._hint is None:
            return
        if self.analysing:
            self._stop_analysing()
            self.set_message("Analysis stopped.", "info")
            return
        if self.hinting:
            return
        self.analysing = True
        self._hint_reviewed()
        if not self.hinting:                      # the game is over in the position shown
            self.analysing = False

    def _toggle_live_analysis(self) -> None:
        if self.review is not None:          # looking back in a live game: analysis is of the live position
            return
        if self.analysing:
            self.link.interrupt(Command.ANALYSE)      # the human player stops the search and asks again
            self.set_message("Analysis stopped.", "info")
            return
        if self.input is None:
            return
        self.analysing = self.hinting = True
        self._answer(Command.ANALYSE)
        self.set_message("Analysing your position (I stops; then your move)...", "wait")

    def _stop_analysing(self, timeout: float = 5.0) -> None:
        """Stop the infinite analysis's search (an interruption its search polls) and wait for its thread."""
        self.link.interrupt(Command.UNDO)
        if self._hint_thread is not None:
            self._hint_thread.join(timeout)
        self.hinting = self.analysing = False

    def _search_hint(self, state: State, seconds: float | None = None) -> None:
        try:
            with compiling_told(self.link):
                if seconds is None:
                    self._hint(state)
                else:
                    self._hint(state, seconds)
        except (GameAbandoned, Interrupted):   # the screen was left meanwhile
            pass
        except KeyboardInterrupt:   # the front end closed meanwhile (the page's PageClosed): nothing to show it on
            pass
        except Exception as exc:  # noqa: BLE001 - shown on the screen rather than lost in a thread
            self.link.post("analysis", "hint", {"error": f"no hint: {exc}"}, None)

    def stop_hint(self, timeout: float = 5.0) -> None:
        """Stop a hint still searching (its search polls the link) and wait for its thread."""
        self.link.abandon()
        if self._hint_thread is not None:
            self._hint_thread.join(timeout)

