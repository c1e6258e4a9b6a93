"""What the game screen's side panel shows, as data every front end lays out its own way: each side's row
(whose move, its clock, the pieces it has taken), the status line, the message box, the analysis view's search and
what the evaluation bar and the best-move arrow show, the move list's lines.

:class:`PanelContents` is a part of :class:`~.game.GameScreenModel` (its base class): it reads what the screen
holds and decides nothing the game needs.
"""
from __future__ import annotations

import time

from plyground.play.clock import format_clock
from plyground.errors import PlygroundError
from plyground.protocols import Game, GameRecord, State
from plyground.files.recordio import numbered


def result_words(game: Game, record: GameRecord) -> tuple[str, str]:
    """("Black wins", "no legal moves") and the like."""
    if not record.finished:
        return "Game stopped", record.reason
    a, b = record.returns
    if a == b:
        return "Draw", record.reason
    winner = 0 if a > b else 1
    player = record.players[winner].partition(":")[0]   # the plugin's name; its options are shown above
    return f"{game.side_names[winner]} ({player}) wins", record.reason


class PanelContents:
    """Everything the game screen shows beside the board, as text and data."""

    def _shown_analysis(self) -> tuple[dict, int | None, bool] | None:
        """The analysis view's search, the side that searched, and whether the position shown is the one it
        searched (else the one its best move leads to), when it is either (and the view is on): what the
        evaluation bar shows, and (the position searched) the arrow."""
        if not self.show_analysis or self.analysis_of is None or self.shown_state is None:
            return None
        analysis, side, position, after = self.analysis_of
        shown = self.shown_state.to_text()
        if shown not in (position, after):
            return None
        return analysis, side, shown == position

    def _after_best(self, analysis: dict, position: str) -> str | None:
        """The text of the position after the analysis's move is played in ``position`` (None: not legal there)."""
        text = analysis.get("move")
        if not text:
            return None
        try:
            state = self.game.new_state(position)
            state.apply(state.parse_move(str(text)))
        except (PlygroundError, ValueError):
            return None
        return state.to_text()

    def _dragged(self):
        """The cell of the piece being dragged (drawn at the pointer, not on its square), else None."""
        if self.drag_pos is None or self.input is None or self.review is not None:
            return None
        return self.input.dragged_cell()

    def _side_to_move(self) -> int | None:
        """The side framed as to move: in the position shown when reviewing, else in the live game (None when the
        game is over there)."""
        position = self.shown_state if self.reviewing else self.state    # a live game frames the side to move now
        if position is not None and (self.reviewing or not self.over) and not position.is_terminal():
            return position.current_player()
        return None

    def _clock_words(self, side: int, to_move: int | None) -> tuple[str, bool]:
        """``side``'s clock as shown, and whether it is running low (under 10 s, that side to move)."""
        left = self.game_clock.remaining(side)
        return format_clock(left), left < 10 and side == to_move

    def _message_shown(self) -> tuple[str, str] | None:
        """The message box's text and kind: the message (``info``, ``wait``, ``error``, ``good``), else where a
        review stands or what to click next (``dim``); None when there is nothing to say."""
        if self.message:
            return self.message, self.message_kind
        if self.review is not None:
            return self._review_words(), "dim"
        if self.input is not None and self.input.hint():
            return self.input.hint(), "dim"
        return None

    #: The analysis view before any search: (title, lines).
    NO_ANALYSIS = ("Analysis", ["no search yet: it appears while a bot thinks, and for a hint"])

    def _captured(self):
        """The view's pieces taken by each side since the game's start, in the position shown (None: not shown)."""
        position, start = self.shown_state, self._start_state()
        if position is None:
            return None
        return self.view.captured(start, position) if start is not None else None

    def _start_state(self) -> State | None:
        """The game's start position (from ``start_text``, read once; None if it cannot be read)."""
        if self._start is None or self._start[0] != self.start_text:
            try:
                start = self.game.new_state(self.start_text) if self.start_text else self.game.new_initial_state()
            except (PlygroundError, ValueError):     # not expected: the start is the game's own text
                start = None
            self._start = (self.start_text, start)
        return self._start[1]

    def _status_text(self) -> str:
        if self.reviewing:
            review = self.review
            if self.hinting:
                return "Looking for a hint..."
            return f"Game {review.number} of {review.count}: {review.result_words()}"
        if self.record is not None:
            return result_words(self.game, self.record)[0]
        if self.done:
            return "Game stopped"
        if self.state is None:
            return "Starting..."
        side = self.state.current_player()
        name = self.game.side_names[side]
        if self.thinking:
            return f"{name} is thinking... {time.monotonic() - self.thinking[1]:.1f} s"
        if self.hinting:
            return "Looking for a hint..."
        if self.input is not None:
            return f"Your move ({name})" if len(self.human_sides) == 1 else f"{name} to move"
        return f"{name} to move"

    def move_lines(self) -> list[tuple[int, list[tuple[int, str] | None]]]:
        """The move list's lines, numbered as the game's record numbers them (a game begun mid-way, by Play from
        here, goes on with its numbers): (move number, [(ply, move) of the first side or None, the second's]).
        A recorded game's moves carry the marks its annotations give them (``20-16??``), or once a game report is
        made (:mod:`.report`) its marks and best moves (``20-16?? 22-17``)."""
        start = self._start_state()
        number, mover = (start.move_number, start.current_player()) if start is not None else (1, 0)
        notes = self.review.record.notes if self.reviewing else []
        lines: list[tuple[int, list]] = []
        for i, text in enumerate(self.moves):
            at, first_side = numbered(number, mover, i)
            if first_side or not lines:
                lines.append((at, [None, None]))
            note = notes[i] if i < len(notes) else None
            text = text + (note.marks if note is not None and self.report is None else "")
            lines[-1][1][0 if first_side else 1] = (i + 1, self.report_move_text(i, text))
        return lines
