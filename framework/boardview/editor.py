"""The position editor: pieces set up by clicking, the side to move chosen, then Play or Analyse.

One model for every front end (the window's editor screen and the page's draw it and send it the person's
clicks); it imports no GUI library.  What the pieces are, where they may stand and how a setup is written as a
position belong to the game's board view (:class:`plyground.boardview.base.BoardView`'s ``setup_*`` methods);
whether the position may be played is the game's own rule, asked as ``--fen`` asks it: ``game.new_state(text)``.

A click on a square puts the chosen piece there (the same piece again empties the square); a right click, or
the eraser chosen, empties it.  :meth:`PositionEditor.problem` says why the setup cannot be played yet (no
king, a man on its crowning row, too many pieces), in the game's own words.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Hashable

from plyground.errors import PlygroundError

if TYPE_CHECKING:
    from plyground.protocols import Game, State

    from .base import BoardView

#: The palette's eraser: the chosen "piece" that empties the squares clicked.
ERASER = ""


class PositionEditor:
    """A position being set up on ``view``'s board: the pieces on it (cell -> the view's piece symbol), the side
    to move, and the piece the next click puts down."""

    def __init__(self, game: "Game", view: "BoardView", start: "State | str | None" = None) -> None:
        if not view.setup_pieces:
            raise PlygroundError(f"{game.name} has no position editor (its board view names no pieces to set up)")
        self.game, self.view = game, view
        self.pieces: tuple[str, ...] = tuple(view.setup_pieces)
        self.chosen = self.pieces[0]
        self.message = ""          # what the last click did not do, and why ("" when it did)
        self.placement: dict[Hashable, str] = {}
        self.side = 0
        self.load(start)

    # ------------------------------------------------------------ the setup
    def load(self, start: "State | str | None" = None) -> None:
        """Set the board to ``start`` (a position, its text as ``--fen`` takes it, or None: the usual start);
        a text the game cannot read raises its PlygroundError."""
        if start is None or (isinstance(start, str) and not start.strip()):
            state = self.game.new_initial_state()
        elif isinstance(start, str):
            state = self.game.new_state(start.strip())
        else:
            state = start
        self.placement = dict(self.view.setup_placement(state))
        self.side = state.current_player()
        self.message = ""

    def clear(self) -> None:
        """An empty board (the side to move stays)."""
        self.placement = {}
        self.message = ""

    def choose(self, symbol: str) -> None:
        """The piece the next clicks put down (:data:`ERASER`: they empty squares)."""
        if symbol != ERASER and symbol not in self.pieces:
            raise PlygroundError(f"no piece {symbol!r} to set up in {self.game.name}; the pieces are "
                                 f"{', '.join(self.pieces)} (or the eraser)")
        self.chosen = symbol

    def set_side(self, side: int) -> None:
        """The side to move in the position set up (0 or 1)."""
        if side not in (0, 1):
            raise PlygroundError(f"the side to move is 0 ({self.game.side_names[0]}) or 1 "
                                 f"({self.game.side_names[1]}), not {side!r}")
        self.side = side
        self.message = ""

    def click(self, cell: Hashable | None, *, erase: bool = False) -> None:
        """A click on ``cell`` (None: off the board): the chosen piece put there, or taken away when the same
        piece stands there; ``erase`` (a right click) or the eraser empties the square.  A square no piece may
        stand on leaves the board as it was, :attr:`message` saying why."""
        self.message = ""
        if cell is None:
            return
        if erase or self.chosen == ERASER or self.placement.get(cell) == self.chosen:
            self.placement.pop(cell, None)
            return
        refusal = self.view.setup_refusal(cell, self.chosen, self.placement)
        if refusal:
            self.message = refusal
            return
        self.placement[cell] = self.chosen

    # ------------------------------------------------------------ what it makes
    def text(self) -> str:
        """The position set up, as the game's ``new_state`` (and ``--fen``) reads it."""
        return self.view.setup_text(self.placement, self.side)

    def problem(self) -> str | None:
        """Why the position set up cannot be played (the game's own words), or None when it can."""
        try:
            self.game.new_state(self.text())
        except PlygroundError as exc:
            return str(exc)
        return None

    def position(self) -> "State":
        """The position set up, to play or analyse; the game's PlygroundError when it cannot be played."""
        return self.game.new_state(self.text())

    def hint(self) -> str:
        """What a click does now, for the person."""
        if self.chosen == ERASER:
            return "Click a square to empty it."
        return (f"Click a square to put a {self.view.setup_piece_name(self.chosen)} there (click it again to "
                f"take it away; a right click empties a square).")

    def status(self) -> str:
        """One line: the message of the last click, else why the position cannot be played, else what to do."""
        return self.message or self.problem() or self.hint()


__all__ = ["ERASER", "PositionEditor"]
