"""The game's messages to its screen: what the game's thread (:mod:`.link`) tells the screen -- the game started,
a position shown, a bot thinking or compiling kernels, a search's analysis, the person asked to move, a word from
the game, a draw offered, the game's end or its error -- applied to the screen's state.

:class:`GameMessages` is a part of :class:`~.game.GameScreenModel` (its base class): :meth:`GameMessages.poll`
applies every message the thread has sent since the last call (each front end calls it through ``update``).
"""
from __future__ import annotations

import time

from plyground.analysis import analysis_lines
from plyground.errors import PlygroundError
from plyground.protocols import GameRecord, State
from plyground.play.resume import replay

from .panel import result_words


class GameMessages:
    """The screen's handler of each message of its game's thread, ``_on_<kind>``."""

    def poll(self) -> None:
        """Apply what the game thread has sent since the last frame."""
        for message in self.link.messages():
            kind, args = message[0], message[1:]
            getattr(self, f"_on_{kind}")(*args)

    def _on_start(self, game, state, names, record: GameRecord | None = None, clock=None) -> None:
        self.state, self.names, self.start_text = state, tuple(names), state.to_text()
        self.live_record = record
        self.game_clock = clock              # both sides' clocks (a time control), drawn live; None without
        if record is not None and record.moves:       # a resumed game: its moves so far
            self.start_text, self.moves = record.start, list(record.moves)
            try:
                self.movers = replay(game, record)[1]
            except PlygroundError:     # the game thread replayed them; if they do not replay here, no take back
                self.movers = []

    def _on_show(self, state: State, last_move: str | None) -> None:
        before = self.state if self.state is not None and state.ply == self.state.ply + 1 else None
        taken_back = self.state is not None and state.ply < self.state.ply
        if last_move and before is not None:
            self._marks_by_ply[state.ply] = self.view.last_move_marks(before, last_move)
        for ply in [p for p in self._marks_by_ply if p > state.ply]:
            del self._marks_by_ply[ply]  # taken back
        self.last_marks = self._marks_by_ply.get(state.ply, {}) if last_move else {}
        self.moves = self.moves[:max(0, state.ply - 1)] + [last_move] if last_move else self.moves[:state.ply]
        if last_move and before is not None:
            self.movers = self.movers[:len(self.moves) - 1] + [before.current_player()]
        del self.movers[len(self.moves):]   # taken back
        self.state, self.input, self.thinking = state, None, None
        if self.analysis is not None and (self.analysis[0].startswith("hint") or self.analysis_live or taken_back):
            # a hint is of the position it was asked in; a search shown live ended without a move (taken back);
            # a finished search whose move was taken back is of a position no longer in the game
            self.analysis = self.analysis_of = None
            self.analysis_live = False
        if self.message_kind == "wait":   # "Please wait: ... is thinking" is answered by the move
            self.set_message("", "info")
        if self.review is not None:       # looking back while the game goes on: the same ply of the game as it is
            ply = min(self.review.ply, len(self.moves))
            self.review = None
            self._navigate(lambda review: review.goto(ply))

    def _on_thinking(self, player: str) -> None:
        self.thinking = (player, time.monotonic())

    def _on_compiling(self) -> None:
        """The game's thread started compiling kernels (numba, a cache miss): why this search is slow."""
        self.set_message(self.COMPILING, "wait")

    #: The message while the game's thread compiles kernels (short: the message box shows two lines at 800x600).
    COMPILING = "Compiling kernels for this machine (first run only, then cached)\u2026"

    #: The analysis shown is a bot's search still running ("best so far"), not a finished one.
    analysis_live = False

    def _on_analysis(self, title: str, analysis: dict | None, mover: str | None) -> None:
        live = bool(analysis and analysis.get("live"))
        self.analysis_live = live and not title.startswith("hint")
        hint = title.startswith("hint")
        if self.reviewing and hint and self._hint_ply is not None:
            title += f" at ply {self._hint_ply}"      # the person may have stepped on while it searched
        if hint and self.analysing:
            title = title.replace("hint", "analysis", 1)
        self.analysis = (title, analysis_lines(analysis, mover, self.game.side_names[self.game.evaluation_side]))
        position = self._hint_position if self.reviewing and hint else \
            (self.state.to_text() if self.state is not None else None)
        side = self.game.side_names.index(mover) if mover in self.game.side_names else None
        self.analysis_of = None
        if analysis and "error" not in analysis and position:
            self.analysis_of = (analysis, side, position, self._after_best(analysis, position))
        if hint:
            self.show_analysis = True          # a hint asked for is a hint shown
            if not live:
                self.hinting = self.analysing = False
                if self.message_kind == "wait":    # "Looking for a hint..." is answered
                    self.set_message("", "info")

    def _on_ask(self, state: State) -> None:
        self.state, self.thinking, self.hinting = state, None, False
        if self.analysing and not self.reviewing:     # a live game's analysis has ended: the person is asked
            self.analysing = False
            while not self.link.interrupts.empty():    # a stop that came after the search ended is moot
                self.link.interrupts.get_nowait()
        self.input = self.view.new_input(state)
        if self._undo_from_ply is not None:
            if state.ply == self._undo_from_ply:
                self.set_message("Nothing of yours to take back yet.", "info")
            self._undo_from_ply = None

    def _on_end(self, state: State, record: GameRecord) -> None:
        self.state, self.record, self.input, self.thinking = state, record, None, None
        headline, reason = result_words(self.game, record)
        self.set_message(f"{headline}: {reason}" if reason else headline, "good")
        if not self.save_field.text:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            path = self.app.save_folder() / f"{self.game.name}-{stamp}{self.game.record_suffix}"
            self.save_field.set_text(str(path))

    def _on_tell(self, text: str) -> None:
        """A word from the game: a draw declined (and why), a draw offered by the other person."""
        self.set_message(text, "info")

    def _on_draw_offer(self, side: int | None) -> None:
        self.draw_offer_from = side

    def _on_error(self, text: str, details: str) -> None:
        self.set_message(f"The game stopped with an error: {text}", "error")

    def _on_done(self) -> None:
        self.done = True
