"""The game screen's model: one game on the board, and everything the window and the web page do with it.

The person's moves entered on the game's own :class:`~plyground.boardview.base.MoveInput`, take back, hints,
analysis and live analysis, draws, resigning, saving and the clocks are here; the game's messages from its
thread (:mod:`.link`) are applied by :mod:`.messages`, what the side panel holds is :mod:`.panel`'s, looking
back through the moves and Play from here :mod:`.looking_back`'s, the game report :mod:`.report`'s.  It imports
no GUI library: each front end (``plugins/pygame_gui``, ``plugins/web``) draws it -- the board through
:meth:`GameScreenModel.draw_board` on its canvas -- and turns its own input into the model's actions:
:meth:`~GameScreenModel.press_key`, the buttons' ``on_click``, :meth:`~GameScreenModel.press`,
:meth:`~GameScreenModel.drag` and :meth:`~GameScreenModel.release` on the board,
:meth:`~.looking_back.LookingBack.show_ply`.

The same screen looks back through a game: a recorded one (``plyground play --review FILE``: a
:class:`~plyground.play.review.GameReview` behind it and no game thread) or the live one, whose moves so far become a
GameReview when the person steps back (Left, Home or a click on a move of the move list) and stop being one at the
last move (End, or Right at the last move), where moves are made.
"""
from __future__ import annotations

import math
import threading
import time
from pathlib import Path
from typing import Callable

from plyground.analysis import expected_score
from plyground.boardview.base import BoardView, Marks, merge_marks
from plyground.boardview import theme
from plyground.boardview.canvas import Canvas
from plyground.boardview.geometry import Rect
from plyground.play.clock import note_time_left
from plyground.errors import PlygroundError
from plyground.protocols import Command, Game, GameRecord, State
from plyground.files.recordio import write_records
from plyground.play.resume import game_so_far, kept_words, resume_argument, save_beside
from plyground.play.review import GameReview

from .controls import Action, Field
from .link import GameLink
from .looking_back import LookingBack
from .messages import GameMessages
from .panel import PanelContents
from .report import GameReporting

#: Pixels kept free at the board's left for the evaluation bar, and the bar's width.
EVAL_BAR_ROOM = 22
EVAL_BAR_WIDTH = 14


def _home_relative(path: Path) -> str:
    """``path`` with the home folder written ``~`` (shorter, and how people name it)."""
    try:
        return str(Path("~") / path.resolve().relative_to(Path.home().resolve()))
    except ValueError:
        return str(path)


def key_help() -> str:
    """The keys of the game screen, one a line, for the help page (made from :attr:`GameScreenModel.KEYS`)."""
    names: dict[object, list[str]] = {}
    words: dict[object, str] = {}
    for name, text, action in GameScreenModel.KEYS:
        names.setdefault(action, []).append(name)
        words.setdefault(action, text)
    return "\n".join(f"  {' or '.join(names[action])}: {words[action]}" for action in names)


class GameScreenModel(GameMessages, LookingBack, GameReporting, PanelContents):
    """A game screen for any front end: ``app`` is the renderer showing it (what it asks of it: ``save_folder``,
    ``saved_game_path``, ``square_numbers``, ``game_left``, ``play_again``, ``new_game``, ``game_thread``)."""

    #: The classes the screen makes its buttons and its save field of: a front end's own widgets extend them.
    BUTTON: type = Action
    FIELD: type = Field

    def __init__(self, app, link: GameLink, game: Game, view: BoardView,
                 names: tuple[str, str], human_sides: set[int], *, from_menu: bool,
                 review: GameReview | None = None, hint: Callable[[State], None] | None = None) -> None:
        """A live game's screen, fed by ``link``; given ``review`` (and ``hint``, which searches a position and
        reports through the renderer's show_analysis), the screen of that recorded game instead."""
        self.app, self.link, self.game, self.view = app, link, game, view
        self.names, self.human_sides, self.from_menu = tuple(names), set(human_sides), from_menu
        self.state: State | None = None
        self.start_text = ""
        self.moves: list[str] = []
        self.movers: list[int] = []    # the side that made each move (a side may move twice in a row)
        self.last_marks: Marks = {}
        self._marks_by_ply: dict[int, Marks] = {}
        self.input = None              # the human's MoveInput while a human is to move
        self.thinking: tuple[str, float] | None = None
        self.record: GameRecord | None = None
        self.live_record: GameRecord | None = None   # the game so far, kept by the game thread
        self.game_clock = None                          # both sides' clocks in a game with a time control
        self.analysis: tuple[str, list[str]] | None = None   # (title, lines) of the last search shown
        # That search's analysis, the side that searched, and the position it searched (its text): the evaluation
        # bar and the best-move arrow, drawn while that position is the one shown.
        # The position after the search's move (its text) too: a bot's finished search still values the position
        # its move made, so the bar stays (the arrow does not).
        self.analysis_of: tuple[dict, int | None, str, str | None] | None = None
        self.analysing = False         # infinite analysis (I) of the reviewed position shown
        self.show_analysis = False     # the analysis view (A) in place of part of the move list
        self.hinting = False           # a hint is being searched for the person
        self.done = False              # the game thread has finished
        self.message, self.message_kind = "", "info"
        self._undo_from_ply: int | None = None
        self._resign_armed_until = 0.0
        self.draw_offer_from: int | None = None   # the side whose draw offer stands (people at one board)
        self._claimable: tuple[State | None, str | None] = (None, None)   # (position, the draw it may claim)
        self._press_pos: tuple[int, int] | None = None
        self.drag_pos: tuple[int, int] | None = None   # the pointer, while a picked-up piece is dragged
        view.flipped = view.can_flip and view.default_flipped(self.human_sides)
        view.show_numbers = app.square_numbers.get(game.name, view.numbers_by_default)
        # Looking back: the game reviewed (a live game's only while an earlier position is shown).
        self.review = review
        self.reviewing = review is not None      # a recorded game (--review), no live game behind it
        self.play_from: State | None = None      # the position Play from here chose
        self._shown: State | None = None         # review.state(), kept while that ply is shown
        self._review_marks: Marks = {}
        self._hint = hint
        self._hint_thread: threading.Thread | None = None
        self._hint_ply: int | None = None
        self._hint_position: str | None = None   # the text of the reviewed position a hint searches
        if review is not None:
            self.start_text, self.moves = review.record.start, list(review.record.moves)
            self._show_review()

        self.buttons = {
            "flip": self.BUTTON("Flip board (F)", self.flip),
            "numbers": self.BUTTON("Numbers (N)", self.toggle_numbers),
            "undo": self.BUTTON("Take back (U)", self.take_back),
            "hint": self.BUTTON("Hint (H)", self.hint),
            "analysis": self.BUTTON("Analysis (A)", self.toggle_analysis),
            "analyse": self.BUTTON("Analyse (I)", self.toggle_analysing),
            "resign": self.BUTTON("Resign", self.resign),
            "offer_draw": self.BUTTON("Offer draw", self.offer_draw),
            "claim_draw": self.BUTTON("Claim draw", self.claim_draw),
            "accept_draw": self.BUTTON("Accept draw", self.accept_draw, primary=True),
            "new": self.BUTTON("New game", self.new_game),
            "leave": self.BUTTON("Menu" if from_menu else "Close", self.leave),
            "save": self.BUTTON("Save game", self.save, primary=True),
            "save_now": self.BUTTON("Save (S)", self.save),
            "again": self.BUTTON("Play again", self.play_again, primary=True),
            "play": self.BUTTON("Play from here (P)", self.play_from_here, primary=True),
            "live": self.BUTTON("Back to the game (End)", self.to_end),
            "back": self.BUTTON("< Back (Left)", self.step_back),
            "forward": self.BUTTON("Forward (Right) >", self.step_forward),
            "report": self.BUTTON("Report (R)", self.start_report),
        }
        self.save_field = self.FIELD("save to", "", help="file to append the game record to")
        self._start: tuple[str, State | None] | None = None   # (start_text, its position), for captured pieces
        self.eval_bar_rect = Rect(0, 0, 0, 0)   # the evaluation bar, as last drawn
        self.arrow_cells: list = []              # the best move's arrow, as last drawn

    # ------------------------------------------------------------ actions
    def set_message(self, text: str, kind: str = "info") -> None:
        self.message, self.message_kind = text, kind

    @property
    def over(self) -> bool:
        return self.record is not None or self.done

    def unfinished_record(self) -> GameRecord | None:
        """The game so far while it goes on (unfinished: what Ctrl-C keeps), else None."""
        if self.over or self.live_record is None:
            return None
        return game_so_far(self.live_record)

    def flip(self) -> None:
        if self.view.can_flip:
            self.view.flipped = not self.view.flipped

    def toggle_numbers(self) -> None:
        self.view.show_numbers = not self.view.show_numbers
        self.app.square_numbers[self.game.name] = self.view.show_numbers   # so the next game shows the same

    def _side_to_take_back(self) -> int | None:
        """Whose move Take back would take back now: the person to move, or while a bot thinks the person
        (the game's runner picks the same side); None when nobody can take back."""
        if self.state is None or self.reviewing:
            return None
        if self.input is not None:
            return self.state.current_player()
        if self.thinking and self.human_sides:
            thinking = self.state.current_player()
            return next(side for side in (1 - thinking, thinking) if side in self.human_sides)
        return None

    def can_take_back(self) -> bool:
        """Whether there is a move a person can take back: one made by the side that would take it back."""
        return self._side_to_take_back() in self.movers

    def take_back(self) -> None:
        if not self.can_take_back():
            return
        if self.input is not None:
            self._undo_from_ply = self.state.ply
            self._answer(Command.UNDO)
            self.set_message("Move taken back.", "info")
        elif self.thinking and self.human_sides:     # stop the bot's search and take back the person's move
            self.link.interrupt(Command.UNDO)
            self.set_message(f"Stopping {self.thinking[0]} and taking back your move.", "info")

    def hint(self) -> None:
        if self.reviewing:
            self._hint_reviewed()
            return
        if self.input is None or self.review is not None:   # a live game's hint is of its live position
            return
        self.hinting = True
        self._answer(Command.HINT)
        self.set_message("Looking for a hint...", "wait")

    def toggle_analysis(self) -> None:
        self.show_analysis = not self.show_analysis

    def resign(self) -> None:
        if self.input is None:
            return
        if time.monotonic() < self._resign_armed_until:
            self._answer(Command.RESIGN)
        else:
            self._resign_armed_until = time.monotonic() + 4.0
            self.set_message("Click Resign again to confirm.", "info")

    def claimable_draw(self) -> str | None:
        """The draw the person to move may claim by the rules here ("threefold repetition"), else None."""
        if self.input is None or self.review is not None or self.state is None:
            return None
        if self._claimable[0] is not self.state:      # asked once a position: the panel is drawn every frame
            self._claimable = (self.state, self.state.claimable_draw())
        return self._claimable[1]

    def _draw_button(self) -> str:
        """Which draw button the panel shows: Accept draw while the other person's offer stands, Claim draw where
        the rules allow one, else Offer draw."""
        to_move = self.state.current_player() if self.state is not None else None
        if self.draw_offer_from is not None and self.draw_offer_from != to_move and to_move in self.human_sides:
            return "accept_draw"
        return "claim_draw" if self.claimable_draw() else "offer_draw"

    def offer_draw(self) -> None:
        """Offer a draw: a bot answers at once by its evaluation, the other person on their turn."""
        if self.input is None or self.review is not None:
            return
        self._answer(Command.OFFER_DRAW)
        self.set_message("Draw offered.", "info")

    def claim_draw(self) -> None:
        if self.claimable_draw():
            self._answer(Command.CLAIM_DRAW)

    def accept_draw(self) -> None:
        if self.input is not None and self.review is None and self.draw_offer_from is not None:
            self._answer(Command.ACCEPT_DRAW)

    def leave(self) -> None:
        """Menu / Close: a game going on stops, and its moves are kept (:meth:`stop_and_keep`), so leaving loses
        nothing."""
        self.stop_and_keep()
        self.app.game_left(self)

    #: Where leaving kept the game going on, for the menu to show ("" when nothing was kept).
    kept = ""

    def stop_and_keep(self) -> str:
        """A game going on stops, and its moves are kept as Ctrl-C keeps them (one file a game in the saved-games
        folder; ``kept`` says where, for the menu to show): leaving it, or closing the window or page showing it.
        Returns what the terminal is told (the file, or why it could not be written); "" when nothing was kept."""
        self.link.abandon()        # also a finished game's: its report, if one is being made, stops
        if self.over:
            return ""
        record = self.live_record
        if record is None or not record.moves or self.reviewing:
            return ""
        path, failure = self._save_so_far()
        if failure:
            self.kept = f"The game left could not be saved to {path}: {failure}"
            return f"the game so far could not be saved to {path}: {failure}"
        self.kept = (f"The game you left is saved in {path.name} ({_home_relative(path.parent)}): Resume plays it "
                     f"on (or plyground play --resume {resume_argument(path)}).")
        return kept_words(path)

    def play_again(self) -> None:
        self.app.play_again()

    def new_game(self) -> None:
        """New game: the game going on is kept first (:meth:`stop_and_keep`, as leaving keeps it), then a new
        one begins with the same players and settings, from the same start position (the renderer's
        ``new_game``)."""
        self.app.new_game(self)

    def save(self) -> None:
        if self.record is None:
            self._save_unfinished()
            return
        path = Path(self.save_field.text.strip() or "game" + self.game.record_suffix).expanduser()
        try:
            write_records(self.game, [self.record], path, append=True)
        except OSError as exc:
            self.set_message(f"Could not save to {path}: {exc.strerror or exc}", "error")
        else:
            # The file's name first: a long folder is what gets cut if the box is too small.
            self.set_message(f"Saved to {path.name} in {_home_relative(path.parent)}", "good")

    def _save_unfinished(self) -> None:
        """Save the game so far (result ``*``); ``plyground play --resume NAME`` plays it on.  A file there
        that holds another game is kept: this one goes to a new numbered name, and the message says which."""
        if self.live_record is None:
            return
        path, failure = self._save_so_far()
        if failure:
            self.set_message(f"Could not save to {path}: {failure}", "error")
        else:
            self.set_message(f"Saved the game so far to {path.name} in {_home_relative(path.parent)}; "
                             f"play on later with --resume {resume_argument(path)}", "good")

    def _save_so_far(self) -> tuple[Path, str]:
        """The live game so far saved in the saved-games folder, one file a game (``save_beside``): the path,
        and "" -- or the path tried and why it could not be written."""
        path = self.app.saved_game_path(self.game)
        if self.game_clock is not None:
            note_time_left(self.live_record.tags, self.game_clock)     # this turn's time so far counts
        try:
            return save_beside(self.game, self.live_record, path), ""
        except (OSError, PlygroundError) as exc:
            return path, str(getattr(exc, "strerror", None) or exc)

    def _answer(self, choice) -> None:
        self.input = None
        self.link.answer(choice)

    def click_cell(self, cell) -> None:
        """A left click on the board (``cell`` None: outside the squares)."""
        if self.reviewing:
            self.set_message("This is a recorded game: Play from here (P) starts a new game from the position "
                             "shown.", "info")
            return
        if self.over:
            return
        if self.review is not None:
            self.set_message(f"You are looking back at ply {self.review.ply} of {self.review.plies}: End (or "
                             f"\u2192) returns to the game, where moves are made.", "info")
            return
        if self.input is None:
            if self.thinking:
                self.set_message(f"Please wait: {self.thinking[0]} is thinking.", "wait")
            return
        move = self.input.click(cell)
        self._after_input(move)

    def _after_input(self, move) -> None:
        if move is not None:
            self.set_message("", "info")
            self._answer(move)
        elif self.input.message:
            self.set_message(self.input.message, "error")
        elif self.message_kind == "error":
            self.set_message("", "info")

    def cancel_input(self) -> None:
        """Drop a half-entered move (Escape, or a right click on the board)."""
        if self.input is not None:
            self.input.cancel()
            self.set_message("", "info")

    #: Every key the game screen handles, in the order the help page lists them: (its name, what it does, and the
    #: button it presses -- only while that button is shown and enabled -- or the method it calls).  Each front end
    #: turns its own keys into these names (:meth:`press_key`); the help page (:func:`key_help`) is made from it.
    KEYS = (
        ("U", "take back your last move and the reply to it", "undo"),
        ("Backspace", "take back, as U", "undo"),
        ("H", "a hint: a search of your position, shown in the analysis view", "hint"),
        ("A", "show or hide the analysis view (the search going on or the last one: a bot's, a hint), "
         "with the evaluation bar and the best move's arrow", "analysis"),
        ("I", "analyse the position shown until stopped (I again): your position in a game, any "
         "position of a recorded game (--review)", "analyse"),
        ("S", "save the game so far, to play on later (plyground play --resume NAME)", "save_now"),
        ("F", "flip the board", "flip"),
        ("N", "square names on or off (the names the move list uses)", "numbers"),
        ("Escape", "drop a half-entered move (a right click does too)", cancel_input),
        ("Left", "look back: the position one move earlier (read-only)", LookingBack.step_back),
        ("Right", "one move later", LookingBack.step_forward),
        ("Home", "the start position", LookingBack.to_start),
        ("End", "back to the last position, where moves are made", LookingBack.to_end),
        ("P", "a recorded game (--review): play a new game from the position shown", "play"),
        ("R", "the game report of a recorded or finished game: every move judged (?!, ?, ??, the "
         "best move), each side's accuracy, the evaluation graph (click it to go to a ply)", "report"),
    )
    KEY_ACTIONS = {name: action for name, _, action in KEYS}

    def press_key(self, name: str) -> None:
        """The key ``name`` (as :attr:`KEYS` names it) pressed: its method, or its button while that is shown and
        enabled; a key not in the table does nothing."""
        action = self.KEY_ACTIONS.get(name)
        if callable(action):
            action(self)
        elif action is not None and self.buttons[action].enabled and self.buttons[action] in self._visible_buttons():
            self.buttons[action].on_click()

    # ------------------------------------------------------------ the pointer on the board
    # Points are in the view's own layout (each front end lays the view out in its pixels: view.layout).
    def press(self, point: tuple[int, int], *, right: bool = False) -> None:
        """The pointer pressed at ``point``: a left press on the board clicks its cell (and may pick a piece up, to
        drag); a right press anywhere drops a half-entered move."""
        if not right and self.view.board_rect.collidepoint(point):
            self.click_cell(self.view.cell_at(point))
            self._press_pos = point
        elif right and self.input is not None:
            self.cancel_input()

    def drag(self, point: tuple[int, int]) -> None:
        """The pointer moved to ``point`` with the left button held: a picked-up piece follows it once it has left
        the square it was pressed on by more than a few pixels."""
        if self._press_pos is not None and self.input is not None and self.input.dragged_cell() is not None \
                and math.dist(point, self._press_pos) > 3:
            self.drag_pos = point

    def release(self, point: tuple[int, int]) -> None:
        """The left button let go at ``point``: a dragged piece is dropped on the square there."""
        self._press_pos = self.drag_pos = None
        if self.input is not None and self.view.board_rect.collidepoint(point):
            move = self.input.release(self.view.cell_at(point))
            if move is not None or self.input.message:
                self._after_input(move)

    def _runs_games(self) -> bool:
        """Whether the front end runs this game itself (``plyground play``), so that New game can start the next
        and a draw offer is answered on the screen; a game it is only shown (``plyground match --renderer ...``)
        belongs to the match, and neither is offered."""
        return getattr(self.app, "game_thread", None) is not None

    def _visible_buttons(self) -> list[Action]:
        names = ["flip", "numbers"] if self.view.can_flip else ["numbers"]
        if self.reviewing:
            names = ["back", "forward"] + names + ["hint", "analyse", "analysis", "report", "play", "leave"]
        elif self.over:
            names += ["save", "report"] + (["again"] if self.from_menu else ["new"] if self._runs_games() else [])
            names += ["leave"]
        else:
            names += ["undo", "hint", "analyse", "analysis", "save_now", "resign"]
            names += ([self._draw_button(), "new"] if self._runs_games() else []) + ["leave"]
        if self.review is not None and not self.reviewing:
            names[:0] = ["back", "forward", "live"]
        return [self.buttons[n] for n in names]

    def update(self) -> None:
        """Apply the game's messages and bring the buttons up to date (each front end calls it before it draws:
        the window every frame, the page before each picture it sends)."""
        self.poll()
        can_act = self.input is not None
        self.buttons["undo"].enabled = self.can_take_back()
        self.buttons["hint"].enabled = (can_act and self.review is None) or \
            (self.reviewing and self._hint is not None and not self.hinting and not self.analysing)
        self.buttons["save_now"].enabled = self.live_record is not None
        self.buttons["analysis"].label = "Hide analysis (A)" if self.show_analysis else "Analysis (A)"
        self.buttons["analyse"].label = "Stop analysis (I)" if self.analysing else "Analyse (I)"
        self.buttons["analyse"].enabled = self.analysing or (
            (self.reviewing and self._hint is not None and not self.hinting) or
            (not self.reviewing and self.review is None and self.input is not None))
        self.buttons["resign"].enabled = can_act and self.review is None
        for name in ("offer_draw", "claim_draw", "accept_draw"):
            self.buttons[name].enabled = can_act and self.review is None
        self.buttons["flip"].enabled = self.view.can_flip
        self.buttons["save"].enabled = self.record is not None
        self.buttons["report"].enabled = self.can_report()
        self.buttons["report"].label = "Judging moves..." if self.report_progress is not None else "Report (R)"
        self.buttons["back"].enabled = self.review is not None and self.review.ply > 0
        self.buttons["forward"].enabled = self.review is not None and self.review.ply < self.review.plies
        if time.monotonic() >= self._resign_armed_until:
            self.buttons["resign"].label = "Resign"
        else:
            self.buttons["resign"].label = "Resign?"

    def board_marks(self) -> Marks:
        if self.review is not None:        # looking back: the move that led here, the result at a game's end
            shown = self._shown
            return merge_marks(self._review_marks, self.view.result_marks(shown) if shown.is_terminal() else {})
        marks = [self.last_marks]
        if self.input is not None:
            marks.append(self.input.marks())
            if self._dragged() is not None:
                marks.append({self._dragged(): ["lifted"]})
        if self.record is not None and self.state is not None:
            marks.append(self.view.result_marks(self.state))
        return merge_marks(*marks)

    # ------------------------------------------------------------ the board's picture
    def draw_board(self, canvas: Canvas) -> None:
        """The position shown with its marks, and the analysis view's best-move arrow and evaluation bar, on
        ``canvas`` (the window's, or the web page's SVG), the view laid out by the front end."""
        self.eval_bar_rect = Rect(0, 0, 0, 0)
        self.arrow_cells = []
        if self.shown_state is not None:
            self.view.draw(canvas, self.shown_state, self.board_marks())
            shown = self._shown_analysis()
            if shown is not None:
                if shown[2]:
                    self._draw_best_move(canvas, shown)
                self._draw_eval_bar(canvas, shown)

    def _draw_best_move(self, canvas: Canvas, shown: tuple[dict, int | None, bool]) -> None:
        """The best move (so far) as an arrow over the board: the move the line starts with."""
        analysis = shown[0]
        text = analysis.get("best") or analysis.get("move")
        if not text or analysis.get("forced"):
            return
        self.arrow_cells = self.view.move_cells(self.shown_state, str(text))
        self.view.draw_arrow(canvas, self.arrow_cells)

    def _draw_eval_bar(self, canvas: Canvas, shown: tuple[dict, int | None, bool]) -> None:
        """A bar at the board's left: the first side's expected score (its colour from the bottom when the board
        shows that side at the bottom), the evaluation's number beside it."""
        analysis, side, _ = shown
        share = expected_score(analysis)
        if share is None or side is None:
            return
        first = share if side == 0 else 1.0 - share        # the first side's (Black in checkers, White in chess)
        board = self.view.board_rect
        bar = Rect(board.left - getattr(self.view, 'margin', 0) - EVAL_BAR_WIDTH - 4, board.top,
                   EVAL_BAR_WIDTH, board.height)
        bar.left = max(2, bar.left)
        self.eval_bar_rect = bar
        bottom_side = self.view.bottom_side      # the bar fills from the bottom in the colour of the side there
        own = first if bottom_side == 0 else 1.0 - first
        colours = self.view.side_colours
        canvas.rect(colours[1 - bottom_side], bar)
        filled = int(round(bar.height * own))
        canvas.rect(colours[bottom_side], Rect(bar.left, bar.bottom - filled, bar.width, filled))
        canvas.rect(theme.PANEL_EDGE, bar, 1)
        canvas.line(theme.ACCENT, (bar.left, bar.centery), (bar.right - 1, bar.centery), 1)
