"""The web page's position editor: pieces set up by clicking, the side to move chosen, then Play or Analyse.

The setup is the GUI-free :class:`~plyground.boardview.editor.PositionEditor` (the window's editor uses it too);
this module only draws it for the page and acts on the page's messages, as :class:`~.screen.WebScreen` does for
a game.  The board is the game's own view drawn on an :class:`~plyground.boardview.canvas.SvgCanvas`, laid out
exactly as the game screen lays out its board (:data:`.screen.PICTURE`), so the page sends a click on it the same
``press`` message, in the same coordinates, and :meth:`BoardView.cell_at` reads it the same way.

Opened by the start page's Set up position (:meth:`.menu.WebMenu.set_up`) with the start page's choices: Play
starts them from the position set up, as Start starts them from a Start position; Analyse opens the position as a
review of a game of no moves, its infinite analysis running; Menu goes back to the start page.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from plyground.boardview import theme
from plyground.boardview.canvas import SvgCanvas
from plyground.boardview.editor import ERASER, PositionEditor
from plyground.boardview.geometry import Rect
from plyground.boardview.views import view_for
from plyground.errors import PlygroundError
from plyground.protocols import Game, GameRecord
from plyground.play.review import GameReview

from .messages import Refused
from .screen import PICTURE, lay_out_board

if TYPE_CHECKING:
    from .menu import WebMenu

#: A palette button's picture: its size in SVG units.
PIECE = 48
#: The editor's buttons (their names as the page sends them, and labels), in the order shown.
BUTTONS = (("clear", "Clear board"), ("initial", "Initial position"), ("flip", "Flip board"), ("play", "Play"),
           ("analyse", "Analyse"), ("menu", "Menu"))


class WebEditor:
    """The position editor of ``game`` on the page: :meth:`snapshot` out, :meth:`act` in.  ``choices`` are the
    start page's (the game, the players, the clock; its Start position is the setup's start where it can be
    read)."""

    def __init__(self, menu: "WebMenu", game: Game, choices: dict) -> None:
        self.menu, self.app, self.game, self.choices = menu, menu.app, game, choices
        self.view = view_for(game)
        self.view.show_numbers = self.app.square_numbers.get(game.name, self.view.numbers_by_default)
        lay_out_board(self.view)
        self.editor = PositionEditor(game, self.view)
        position = (choices.get("position") or "").strip()
        if position:
            try:
                self.editor.load(position)
            except PlygroundError as exc:
                self.editor.message = f"The Start position could not be read ({exc}): the usual start is set up."
        self._palette = [self._piece(symbol, self.view.setup_piece_name(symbol)) for symbol in self.editor.pieces]
        self._palette.append(self._piece(ERASER, "Eraser (empties the squares clicked)"))

    def _piece(self, symbol: str, name: str) -> dict:
        """A palette button: the piece's symbol, its name and its picture (the eraser's: an empty square
        crossed)."""
        canvas = SvgCanvas(PIECE, PIECE)
        rect = Rect(0, 0, PIECE, PIECE)
        if symbol == ERASER:
            canvas.rect(theme.LIGHT_SQUARE, rect.inflate(-8, -8), radius=4)
            inner = rect.inflate(-20, -20)
            canvas.line(theme.JUMPED_CROSS, inner.topleft, inner.bottomright, 4)
            canvas.line(theme.JUMPED_CROSS, inner.bottomleft, inner.topright, 4)
        else:
            self.view.draw_setup_piece(canvas, symbol, rect)
        return {"symbol": symbol, "name": name, "svg": canvas.svg()}

    # ------------------------------------------------------------ the page's actions
    def act(self, message: dict) -> None:
        """Do what the page asked (a message already checked by :func:`plyground.plugins.web.messages.check`);
        :class:`Refused` says why it cannot be done."""
        kind = message["type"]
        try:
            if kind == "press":         # a square clicked: button 0 puts the chosen piece, 2 (right) empties
                point = (int(message["x"]), int(message["y"]))
                self.editor.click(self.view.cell_at(point), erase=message.get("button") == 2)
            elif kind == "piece":
                self.editor.choose(message["symbol"])
            elif kind == "side":
                self.editor.set_side(message["side"])
            elif kind == "button":
                self._button(message["name"])
            else:
                raise Refused(f"the position editor is shown: it takes press, piece, side and button messages, not "
                              f"{kind!r} (Menu goes back to the start page)")
        except PlygroundError as exc:
            raise Refused(str(exc)) from None

    def _button(self, name: str) -> None:
        if name == "clear":
            self.editor.clear()
        elif name == "initial":
            self.editor.load(None)
        elif name == "flip" and self.view.can_flip:
            self.view.flipped = not self.view.flipped
        elif name == "play":
            self.menu.start({**self.choices, "position": self._playable()})
            self.app.editor = None          # the start page shows the players being built, then the game
        elif name == "analyse":
            review = GameReview(self.game, GameRecord(game=self.game.name, players=tuple(self.choices["players"]),
                                                      start=self._playable(), moves=[], finished=False))
            self.app.editor = None
            self.app.review_from_menu(review)       # its Menu goes back to the start page
            self.app.screen.toggle_analysing()
        elif name == "menu":
            self.app.editor = None
        else:
            raise Refused(f"there is no {name!r} button in the position editor; its buttons are "
                          f"{', '.join(shown for shown, _ in self._buttons())}")

    def _playable(self) -> str:
        """The position set up, as text; :class:`Refused` naming why when it cannot be played."""
        problem = self.editor.problem()
        if problem:
            raise Refused(f"this position cannot be played: {problem}")
        return self.editor.text()

    def _buttons(self) -> list[tuple[str, str]]:
        return [(name, label) for name, label in BUTTONS if name != "flip" or self.view.can_flip]

    # ------------------------------------------------------------ the page's picture
    def snapshot(self) -> dict:
        """What the page shows now: the board being set up as SVG, the palette, the side to move, the status."""
        canvas = SvgCanvas(*PICTURE)
        self.view.draw_setup(canvas, self.editor.placement, {})
        problem = self.editor.problem()
        return {
            "type": "editor",
            "game": self.game.name.capitalize(),
            "board": canvas.svg(),
            "pieces": [{**piece, "chosen": piece["symbol"] == self.editor.chosen} for piece in self._palette],
            "sides": list(self.game.side_names),
            "side": self.editor.side,
            "status": self.editor.status(),
            "problem": bool(self.editor.message) or problem is not None,
            "text": self.editor.text(),
            "can_play": problem is None,
            "buttons": [{"name": name, "label": label, "enabled": problem is None or name not in ("play", "analyse"),
                         "primary": name == "play"} for name, label in self._buttons()],
            "background": "#%02x%02x%02x" % tuple(theme.BACKGROUND[:3]),
        }


__all__ = ["WebEditor"]
