"""The web page's game screen: the game screen's model (:class:`plyground.screen.game.GameScreenModel`) drawn for a
browser page.

Everything a game screen does -- the game's messages from its thread, clicks becoming moves through the game's
own :class:`~plyground.boardview.base.MoveInput`, take back, hints, live analysis, looking back, Play from here,
saving -- is the model's, run here on the server, as the window runs it.  The board is drawn on an
:class:`~plyground.boardview.canvas.SvgCanvas` (the game's own view code, as in the window), and what the window
draws in its side panel is handed to the page as data (:meth:`WebScreen.snapshot`), which the page's script lays
out as HTML.  The page's messages are the model's actions (:meth:`WebScreen.act`): a button's name, a key's name,
a ply of the move list, the pointer pressed, dragged and released on the board.
"""
from __future__ import annotations

import time
from typing import Any

from plyground.boardview import theme
from plyground.boardview.canvas import SvgCanvas
from plyground.boardview.geometry import Rect
from plyground.errors import RecordError
from plyground.protocols import GameRecord
from plyground.play.resume import game_so_far
from plyground.screen.game import EVAL_BAR_ROOM, GameScreenModel, key_help

from .messages import Refused

#: The board's picture: its size in SVG units (the page scales it to fit), around the board and its coordinates.
BOARD = 640
MARGIN = 12
PICTURE = (BOARD + 2 * MARGIN + EVAL_BAR_ROOM, BOARD + 2 * MARGIN)
#: The game report's evaluation graph: its size in SVG units (the page scales it to the panel's width).
GRAPH = (400, 100)

#: The keys the page passes on, by their names as the help page writes them (in lower case, as the page sends them).
KEY_NAMES = {name.lower(): name for name, _, _ in GameScreenModel.KEYS}


def lay_out_board(view) -> None:
    """Lay ``view`` out in the page's picture of the board (:data:`PICTURE`), the evaluation bar's strip at its
    left: the game screen's and the position editor's board alike, so the page's clicks read the same."""
    view.layout(Rect(MARGIN + EVAL_BAR_ROOM, MARGIN, BOARD, BOARD))


class WebScreen(GameScreenModel):
    """A game screen whose picture goes to a web page: :meth:`snapshot` out, :meth:`act` in."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        lay_out_board(self.view)
        self._names = {id(button): name for name, button in self.buttons.items()}
        self._record_text: tuple[tuple, str | None] = ((), None)   # (what it was written from, the text)
        self._graph: tuple[tuple, str | None] = ((), None)         # (what the report's graph shows, its SVG)
        self._started = time.strftime("%Y%m%d-%H%M%S")

    # ------------------------------------------------------------ the page's actions
    def act(self, message: dict) -> None:
        """Do what the page asked (a message already checked by :func:`plyground.plugins.web.messages.check`);
        :class:`Refused` says why it cannot be done now."""
        kind = message["type"]
        if kind == "button":
            name = message["name"]
            button = self.buttons.get(name)
            if button is None or button not in self._visible_buttons():
                raise Refused(f"there is no {name!r} button now; the buttons shown are "
                              f"{', '.join(self._names[id(b)] for b in self._visible_buttons())}")
            if not button.enabled:
                raise Refused(f"{button.label} cannot be used now")
            button.on_click()
        elif kind == "key":
            name = KEY_NAMES.get(message["key"].lower())
            if name is None:
                raise Refused(f"no key {message['key']!r}; the keys are {', '.join(sorted(KEY_NAMES))}")
            self.press_key(name)
        elif kind == "ply":
            ply = message["ply"]
            if not 0 <= ply <= len(self.moves):
                raise Refused(f"no move {ply}: the game has {len(self.moves)} moves")
            self.show_ply(ply)
        elif kind == "press":           # a pointer pressed on the board (button 0: left, 2: right)
            self.press(self._point(message), right=message.get("button") == 2)
        elif kind == "drag":            # the pointer moved with the button held, away from where it was pressed
            self.drag(self._point(message))
        elif kind == "release":
            self.release(self._point(message))
        else:                           # the message checks let through only the kinds above
            raise Refused(f"the game screen does not take {kind!r} messages")

    def _report_snapshot(self) -> dict | None:
        """The game report (``plyground.screen.report``, computed once by the model) as the page shows it: its title
        and lines, and the evaluation graph drawn by the model as SVG, with the plies it spans (a click at x of its
        width goes to ply ``round(x / width * plies)``, sent as a ``ply`` message)."""
        view = self.report_view()
        if view is None:
            return None
        graph = None
        if view["curve"]:
            key = (id(self.report), self.review.ply if self.review is not None else None)
            if self._graph[0] != key:          # drawn again only when the report or the ply shown changed
                canvas = SvgCanvas(*GRAPH)
                self.draw_graph(canvas, Rect(0, 0, *GRAPH))
                self._graph = (key, canvas.svg())
            graph = self._graph[1]
        return {"title": view["title"], "lines": view["lines"], "graph": graph,
                "plies": max(0, len(view["curve"]) - 1)}

    @staticmethod
    def _point(message: dict) -> tuple[int, int]:
        return int(message["x"]), int(message["y"])

    # ------------------------------------------------------------ the page's own controls
    def _game_record(self) -> tuple[GameRecord | None, bool]:
        """The game on the board as its record, and whether it goes on: the finished game, the recorded game
        reviewed, or the game so far (to be written unfinished, result ``*``)."""
        if self.record is not None:
            return self.record, False
        if self.reviewing and self.review is not None:
            return self.review.record, False
        return self.live_record, True

    def download(self) -> dict | None:
        """Download the game: the game's record as its own format writes it (PDN for checkers, PGN for chess; what
        ``save`` and the console's ``pdn``/``pgn`` write) and a file name for the browser to save it under; None
        while there is no record, or where the game's writer refuses it.  Written again only when the game
        changed (snapshots go out four times a second while a clock ticks)."""
        record, going_on = self._game_record()
        if record is None:
            return None
        key = (id(record), len(record.moves), record.finished, record.reason, going_on)
        if self._record_text[0] != key:
            try:
                text = self.game.format_records([game_so_far(record, saved=False) if going_on else record])
            except RecordError:
                text = None
            self._record_text = (key, text)
        text = self._record_text[1]
        if text is None:
            return None
        kind = self.game.record_suffix.lstrip(".").upper()
        return {"text": text, "name": f"{self.game.name}-{self._started}{self.game.record_suffix}",
                "label": f"Download game ({kind})" if kind in ("PDN", "PGN") else "Download game"}

    def position(self) -> dict | None:
        """Copy the position: the position shown as text, as ``--fen`` takes it; None where the game has no
        position notation."""
        state = self.shown_state
        if state is None:
            return None
        try:
            text = state.to_text()
        except NotImplementedError:
            return None
        fen = self.game.record_suffix in (".pdn", ".pgn")      # both write positions as FEN
        return {"text": text, "label": "Copy position (FEN)" if fen else "Copy position"}

    # ------------------------------------------------------------ the page's picture
    def snapshot(self) -> dict:
        """What the page shows now: the board as SVG, and the panel's contents as data."""
        self.update()
        canvas = SvgCanvas(*PICTURE)
        self.draw_board(canvas)
        to_move = self._side_to_move()
        captured = self._captured()
        players = []
        for side in (0, 1):
            icon = SvgCanvas(24, 24)
            self.view.draw_side_icon(icon, (12, 12), 11, side)
            taken = ""
            if captured is not None:
                pieces = SvgCanvas(120, 24)
                if self.view.draw_captured(pieces, *captured[side], (120, 12), 120):
                    taken = pieces.svg()
            clock = None
            if self.game_clock is not None:
                text, low = self._clock_words(side, to_move)
                clock = {"text": text, "low": low}
            players.append({"side": self.game.side_names[side], "name": self.names[side],
                            "you": side in self.human_sides and len(self.human_sides) == 1,
                            "to_move": side == to_move, "thinking": bool(side == to_move and self.thinking),
                            "icon": icon.svg(), "captured": taken, "clock": clock})
        shown = self._message_shown()
        message = {"text": shown[0], "kind": shown[1]} if shown is not None else None
        dragged = None
        if self._dragged() is not None:
            piece = SvgCanvas(*PICTURE)
            self.view.draw_dragged(piece, self.state, self._dragged(), (0, 0))
            dragged = "".join(piece.elements)
        analysis = None
        if self.show_analysis:
            title, lines = self.analysis or self.NO_ANALYSIS
            analysis = {"title": title, "lines": lines}
        return {
            "type": "game",
            "game": self.game.name.capitalize(),
            "board": canvas.svg(),
            "dragged": dragged,
            "players": players,
            "status": self._status_text(),
            "over": self.over,
            "message": message,
            "buttons": [{"name": self._names[id(b)], "label": b.label, "enabled": b.enabled, "primary": b.primary}
                        for b in self._visible_buttons()],
            "moves": [[number, [list(entry) if entry else None for entry in pair]]
                      for number, pair in self.move_lines()],
            "shown_ply": self.review.ply if self.review is not None else None,
            "analysis": analysis,
            "report": self._report_snapshot(),
            "save_to": self.save_field.text if self.over else None,
            "record": self.download(),
            "position": self.position(),
            "keys": key_help(),
            "background": "#%02x%02x%02x" % tuple(theme.BACKGROUND[:3]),
        }
