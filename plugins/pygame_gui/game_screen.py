"""The game screen: the board, and a side panel with players, messages, moves and buttons.

The same screen looks back through a game: a recorded one (``plyground play
--review FILE``: a :class:`~plyground.review.GameReview` behind it and no game
thread) or the live one, whose moves so far become a GameReview when the person
steps back (Left, Home or a click on a move of the move list) and stop being
one at the last move (End, or Right at the last move), where moves are made.
"""
from __future__ import annotations

import math
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import pygame

from plyground.analysis import analysis_lines, expected_score
from plyground.clock import format_clock
from plyground.errors import PlygroundError
from plyground.match import Interrupted
from plyground.protocols import Command, Game, GameRecord, State
from plyground.recordio import numbered, write_records
from plyground.resume import replay, resume_argument, save_beside
from plyground.review import GameReview

from plyground.boardview import theme
from .session import GameAbandoned, GameLink, compiling_told
from plyground.boardview.base import BoardView, Marks, merge_marks
from .widgets import Button, TextField, draw_text, draw_wrapped, fit_text, is_click

if TYPE_CHECKING:
    from .renderer import PygameRenderer


def _home_relative(path: Path) -> str:
    """``path`` with the home folder written ``~`` (shorter, and how people name it)."""
    try:
        return str(Path("~") / path.resolve().relative_to(Path.home().resolve()))
    except ValueError:
        return str(path)


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


def key_help() -> str:
    """The keys of the game screen, one a line, for the help page (made from :attr:`GameScreen.KEYS`)."""
    names: dict[object, list[str]] = {}
    words: dict[object, str] = {}
    for _, name, text, action in GameScreen.KEYS:
        names.setdefault(action, []).append(name)
        words.setdefault(action, text)
    return "\n".join(f"  {' or '.join(names[action])}: {words[action]}" for action in names)


#: Pixels kept free at the board's left for the evaluation bar, and the bar's width.
EVAL_BAR_ROOM = 22
EVAL_BAR_WIDTH = 14
#: Infinite analysis (I, reviewing a game) searches this long at most, unless stopped first (or its budget of
#: simulations, plyground.players.human.ANALYSIS_SIMULATIONS, is spent).
ANALYSE_SECONDS = 600.0


class GameScreen:
    def __init__(self, app: "PygameRenderer", link: GameLink, game: Game, view: BoardView,
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
        self._press_pos: tuple[int, int] | None = None
        self.drag_pos: tuple[int, int] | None = None   # the pointer, while a picked-up piece is dragged
        self.size = (0, 0)
        view.flipped = view.can_flip and view.default_flipped(self.human_sides)
        view.show_numbers = app.square_numbers.get(game.name, view.numbers_by_default)
        # Looking back: the game reviewed (a live game's only while an earlier position is shown).
        self.review = review
        self.reviewing = review is not None      # a recorded game (--review), no live game behind it
        self.play_from: State | None = None      # the position Play from here chose
        self.move_rects: dict[int, pygame.Rect] = {}   # ply -> its move in the move list, as last drawn
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
            "flip": Button("Flip board (F)", self.flip),
            "numbers": Button("Numbers (N)", self.toggle_numbers),
            "undo": Button("Take back (U)", self.take_back),
            "hint": Button("Hint (H)", self.hint),
            "analysis": Button("Analysis (A)", self.toggle_analysis),
            "analyse": Button("Analyse (I)", self.toggle_analysing),
            "resign": Button("Resign", self.resign),
            "leave": Button("Menu" if from_menu else "Close", self.leave),
            "save": Button("Save game", self.save, primary=True),
            "save_now": Button("Save (S)", self.save),
            "again": Button("Play again", self.play_again, primary=True),
            "play": Button("Play from here (P)", self.play_from_here, primary=True),
            "live": Button("Back to the game (End)", self.to_end),
            "back": Button("< Back (Left)", self.step_back),
            "forward": Button("Forward (Right) >", self.step_forward),
        }
        self.save_field = TextField("save to", "", help="file to append the game record to")
        self.message_rect = pygame.Rect(0, 0, 0, 0)
        self.panel_rect = pygame.Rect(0, 0, 0, 0)
        self.analysis_rect = pygame.Rect(0, 0, 0, 0)   # the analysis view's box, as last drawn (none: empty)
        self.moves_rect = pygame.Rect(0, 0, 0, 0)      # the move list's box, as last drawn
        self.captured_rects = [pygame.Rect(0, 0, 0, 0), pygame.Rect(0, 0, 0, 0)]   # each side's pieces taken
        self._start: tuple[str, State | None] | None = None   # (start_text, its position), for captured pieces

    # ------------------------------------------------------------ game messages
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
        if self.analysis is not None and (self.analysis[0].startswith("hint") or self.analysis_live):
            # a hint is of the position it was asked in; a search shown live ended without a move (taken back)
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

    def _on_error(self, text: str, details: str) -> None:
        self.set_message(f"The game stopped with an error: {text}", "error")

    def _on_done(self) -> None:
        self.done = True

    # ------------------------------------------------------------ actions
    def set_message(self, text: str, kind: str = "info") -> None:
        self.message, self.message_kind = text, kind

    @property
    def over(self) -> bool:
        return self.record is not None or self.done

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

    def leave(self) -> None:
        """Menu / Close: a game going on stops, and its moves are kept as Ctrl-C keeps them (one file a game in
        the saved-games folder; ``kept`` says where, for the menu to show), so leaving loses nothing."""
        if not self.over:
            self.link.abandon()
            self.kept = self._keep_on_leaving()
        self.app.game_left(self)

    #: Where leaving kept the game going on ("" when nothing was kept).
    kept = ""

    def _keep_on_leaving(self) -> str:
        record = self.live_record
        if record is None or not record.moves or self.reviewing:
            return ""
        path, failure = self._save_so_far()
        if failure:
            return f"The game left could not be saved to {path}: {failure}"
        return (f"The game you left is saved in {path.name} ({_home_relative(path.parent)}): Resume plays it on "
                f"(or plyground play --resume {resume_argument(path)}).")

    def play_again(self) -> None:
        self.app.play_again()

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

    # ------------------------------------------------------------ looking back through the moves
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
        """A hint for the reviewed position, searched off the window's thread; it comes back through the link."""
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
        except (GameAbandoned, Interrupted):   # the window was closed meanwhile
            pass
        except Exception as exc:  # noqa: BLE001 - shown in the window rather than lost in a thread
            self.link.post("analysis", "hint", {"error": f"no hint: {exc}"}, None)

    def stop_hint(self, timeout: float = 5.0) -> None:
        """Stop a hint still searching (its search polls the link) and wait for its thread."""
        self.link.abandon()
        if self._hint_thread is not None:
            self._hint_thread.join(timeout)

    def cancel_input(self) -> None:
        """Drop a half-entered move (Escape, or a right click on the board)."""
        if self.input is not None:
            self.input.cancel()
            self.set_message("", "info")

    #: Every key the game screen handles, in the order the help page lists them: (pygame key, its name, what it
    #: does, and the button it presses -- only while that button is shown and enabled -- or the method it calls).
    #: The key handling and the help page (:func:`key_help`) are both made from this table.
    KEYS = (
        (pygame.K_u, "U", "take back your last move and the reply to it", "undo"),
        (pygame.K_BACKSPACE, "Backspace", "take back, as U", "undo"),
        (pygame.K_h, "H", "a hint: a search of your position, shown in the analysis view", "hint"),
        (pygame.K_a, "A", "show or hide the analysis view (the search going on or the last one: a bot's, a hint), "
         "with the evaluation bar and the best move's arrow", "analysis"),
        (pygame.K_i, "I", "analyse the position shown until stopped (I again): your position in a game, any "
         "position of a recorded game (--review)", "analyse"),
        (pygame.K_s, "S", "save the game so far, to play on later (plyground play --resume NAME)", "save_now"),
        (pygame.K_f, "F", "flip the board", "flip"),
        (pygame.K_n, "N", "square names on or off (the names the move list uses)", "numbers"),
        (pygame.K_ESCAPE, "Escape", "drop a half-entered move (a right click does too)", cancel_input),
        (pygame.K_LEFT, "Left", "look back: the position one move earlier (read-only)", step_back),
        (pygame.K_RIGHT, "Right", "one move later", step_forward),
        (pygame.K_HOME, "Home", "the start position", to_start),
        (pygame.K_END, "End", "back to the last position, where moves are made", to_end),
        (pygame.K_p, "P", "a recorded game (--review): play a new game from the position shown", "play"),
    )
    KEY_ACTIONS = {key: action for key, _, _, action in KEYS}

    # ------------------------------------------------------------ events
    def handle_event(self, event: pygame.event.Event) -> None:
        if self.over and self.save_field.handle_event(event):
            return
        if event.type == pygame.KEYDOWN and event.key in self.KEY_ACTIONS:
            action = self.KEY_ACTIONS[event.key]
            if callable(action):
                action(self)
            elif self.buttons[action].enabled and self.buttons[action] in self._visible_buttons():
                self.buttons[action].on_click()
            return
        for button in self._visible_buttons():
            if button.handle_event(event):
                return
        if is_click(event):
            ply = next((ply for ply, rect in self.move_rects.items() if rect.collidepoint(event.pos)), None)
            if ply is not None:
                self.show_ply(ply)
                return
        if event.type == pygame.MOUSEMOTION and self._press_pos is not None and self.input is not None:
            if getattr(event, "buttons", (0,))[0] and self.input.dragged_cell() is not None and \
                    math.dist(event.pos, self._press_pos) > 3:
                self.drag_pos = event.pos      # the picked-up piece follows the pointer
            return
        if event.type == pygame.MOUSEBUTTONUP and getattr(event, "button", 1) == 1:
            self._press_pos = self.drag_pos = None
        if is_click(event) and self.view.board_rect.collidepoint(event.pos):
            self.click_cell(self.view.cell_at(event.pos))
            self._press_pos = event.pos
        elif event.type == pygame.MOUSEBUTTONDOWN and getattr(event, "button", 0) == 3 and self.input is not None:
            self.cancel_input()
        elif event.type == pygame.MOUSEBUTTONUP and getattr(event, "button", 1) == 1 and self.input is not None:
            if self.view.board_rect.collidepoint(event.pos):  # a dragged piece dropped on a square
                move = self.input.release(self.view.cell_at(event.pos))
                if move is not None or self.input.message:
                    self._after_input(move)

    def _visible_buttons(self) -> list[Button]:
        names = ["flip", "numbers"] if self.view.can_flip else ["numbers"]
        if self.reviewing:
            names = ["back", "forward"] + names + ["hint", "analyse", "analysis", "play", "leave"]
        elif self.over:
            names += ["save"] + (["again"] if self.from_menu else []) + ["leave"]
        else:
            names += ["undo", "hint", "analyse", "analysis", "save_now", "resign", "leave"]
        if self.review is not None and not self.reviewing:
            names[:0] = ["back", "forward", "live"]
        return [self.buttons[n] for n in names]

    # ------------------------------------------------------------ layout and drawing
    def layout(self, size: tuple[int, int]) -> None:
        self.size = size
        w, h = size
        panel_w = max(300, min(420, int(w * 0.34)))
        self.panel_rect = pygame.Rect(w - panel_w, 0, panel_w, h)
        # the evaluation bar's strip at the board's left (kept when hidden, so the board does not move)
        self.view.layout(pygame.Rect(12 + EVAL_BAR_ROOM, 12, w - panel_w - 24 - EVAL_BAR_ROOM, h - 24))

    def update(self) -> None:
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
        self.buttons["flip"].enabled = self.view.can_flip
        self.buttons["save"].enabled = self.record is not None
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

    def draw(self, surface: pygame.Surface) -> None:
        if surface.get_size() != self.size:
            self.layout(surface.get_size())
        surface.fill(theme.BACKGROUND)
        self.eval_bar_rect = pygame.Rect(0, 0, 0, 0)
        self.arrow_cells: list = []
        if self.shown_state is not None:
            self.view.draw(surface, self.shown_state, self.board_marks())
            shown = self._shown_analysis()
            if shown is not None:
                if shown[2]:
                    self._draw_best_move(surface, shown)
                self._draw_eval_bar(surface, shown)
            if self._dragged() is not None:
                self.view.draw_dragged(surface, self.state, self._dragged(), self.drag_pos)
        self._draw_panel(surface)

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

    def _draw_best_move(self, surface: pygame.Surface, shown: tuple[dict, int | None, bool]) -> None:
        """The best move (so far) as an arrow over the board: the move the line starts with."""
        analysis = shown[0]
        text = analysis.get("best") or analysis.get("move")
        if not text or analysis.get("forced"):
            return
        self.arrow_cells = self.view.move_cells(self.shown_state, str(text))
        self.view.draw_arrow(surface, self.arrow_cells)

    def _draw_eval_bar(self, surface: pygame.Surface, shown: tuple[dict, int | None, bool]) -> None:
        """A bar at the board's left: the first side's expected score (its colour from the bottom when the board
        shows that side at the bottom), the evaluation's number beside it."""
        analysis, side, _ = shown
        share = expected_score(analysis)
        if share is None or side is None:
            return
        first = share if side == 0 else 1.0 - share        # the first side's (Black in checkers, White in chess)
        board = self.view.board_rect
        bar = pygame.Rect(board.left - getattr(self.view, 'margin', 0) - EVAL_BAR_WIDTH - 4, board.top,
                          EVAL_BAR_WIDTH, board.height)
        bar.left = max(2, bar.left)
        self.eval_bar_rect = bar
        bottom_side = self.view.bottom_side      # the bar fills from the bottom in the colour of the side there
        own = first if bottom_side == 0 else 1.0 - first
        colours = self.view.side_colours
        pygame.draw.rect(surface, colours[1 - bottom_side], bar)
        filled = int(round(bar.height * own))
        pygame.draw.rect(surface, colours[bottom_side], pygame.Rect(bar.left, bar.bottom - filled, bar.width, filled))
        pygame.draw.rect(surface, theme.PANEL_EDGE, bar, 1)
        pygame.draw.line(surface, theme.ACCENT, (bar.left, bar.centery), (bar.right - 1, bar.centery), 1)

    def _dragged(self):
        """The cell of the piece being dragged (drawn at the pointer, not on its square), else None."""
        if self.drag_pos is None or self.input is None or self.review is not None:
            return None
        return self.input.dragged_cell()

    def _draw_panel(self, surface: pygame.Surface) -> None:
        p = self.panel_rect
        surface.fill(theme.PANEL, p)
        pygame.draw.line(surface, theme.PANEL_EDGE, p.topleft, p.bottomleft, 2)
        x, y, width = p.left + 16, p.top + 14, p.width - 32
        draw_text(surface, self.game.name.capitalize(), (x, y), 36, theme.TITLE)
        y += 38
        to_move = None
        position = self.shown_state if self.reviewing else self.state    # a live game frames the side to move now
        if position is not None and (self.reviewing or not self.over) and not position.is_terminal():
            to_move = position.current_player()
        captured = self._captured()
        for side in (0, 1):
            row = pygame.Rect(x - 6, y, width + 12, 32)
            if side == to_move:
                pygame.draw.rect(surface, theme.FIELD_FOCUS, row, border_radius=6)
                pygame.draw.rect(surface, theme.ACCENT, row, 2, border_radius=6)
            self.view.draw_side_icon(surface, (x + 12, row.centery), 11, side)
            who = self.names[side] + (" (you)" if side in self.human_sides and len(self.human_sides) == 1 else "")
            room = width - 32 - (24 if side == to_move and self.thinking else 0)
            self.captured_rects[side] = pygame.Rect(0, 0, 0, 0)
            if captured is not None:           # the pieces this side has taken, at the row's right
                right = row.right - 8 - (24 if side == to_move and self.thinking else 0) - \
                    (64 if self.game_clock is not None else 0)
                used = self.view.draw_captured(surface, *captured[side], (right, row.centery), room // 2)
                if used:
                    self.captured_rects[side] = pygame.Rect(right - used, row.top + 4, used, row.height - 8)
                    room -= used + 8
            if self.game_clock is not None:
                left = self.game_clock.remaining(side)
                colour = theme.ERROR if left < 10 and side == to_move else theme.TEXT
                draw_text(surface, format_clock(left), (row.right - (32 if side == to_move and self.thinking else 8),
                                                        row.centery), 22, colour, anchor="midright")
                room -= 64
            draw_text(surface, fit_text(f"{self.game.side_names[side]}: {who}", 22, room), (x + 32, row.centery), 22,
                      anchor="midleft")
            if side == to_move and self.thinking:
                self._draw_spinner(surface, (row.right - 18, row.centery), 9)
            y += 36
        y += 4
        draw_text(surface, fit_text(self._status_text(), 22, width), (x, y), 22,
                  theme.TEXT if not self.over else theme.TITLE)
        y += 26
        # The message box: reasons for illegal clicks, results, confirmations.
        self.message_rect = pygame.Rect(x - 6, y, width + 12, 62)
        if self.message:
            box = {"error": theme.ERROR_BOX, "good": theme.GOOD_BOX}.get(self.message_kind, theme.INFO_BOX)
            pygame.draw.rect(surface, box, self.message_rect, border_radius=6)
            draw_wrapped(surface, self.message, self.message_rect.inflate(-14, -10), 20)
        elif self.review is not None:
            draw_wrapped(surface, self._review_words(), self.message_rect.inflate(-14, -10), 20, theme.TEXT_DIM)
        elif self.input is not None and self.input.hint():
            draw_wrapped(surface, self.input.hint(), self.message_rect.inflate(-14, -10), 20, theme.TEXT_DIM)
        y = self.message_rect.bottom + 10

        buttons = self._visible_buttons()
        rows = self._button_rows(buttons, width)
        gap = 8
        button_h = 36 if p.height >= 700 else 32      # a small window: lower buttons, so the moves keep rows
        save_h = 40 if self.over else 0
        bottom = p.bottom - 14
        top_of_buttons = bottom - len(rows) * (button_h + gap) + gap
        for b in self.buttons.values():
            b.rect = pygame.Rect(0, 0, 0, 0)
        for r, row in enumerate(rows):
            bw = (width - gap) // 2 if len(row) == 2 else width   # a lone button spans its row
            for col, button in enumerate(row):
                button.rect = pygame.Rect(x + col * (bw + gap), top_of_buttons + r * (button_h + gap), bw, button_h)
                button.draw(surface)
        if self.over:
            self.save_field.rect = pygame.Rect(x, top_of_buttons - save_h, width, 32)
            self.save_field.draw(surface, 18)
            draw_text(surface, "Save the game to:", (x, self.save_field.rect.top - 20), 18, theme.TEXT_DIM)
            save_h += 22
        else:
            self.save_field.rect = pygame.Rect(0, 0, 0, 0)
        area = pygame.Rect(x, y, width, top_of_buttons - save_h - y - 10)
        self.analysis_rect = pygame.Rect(0, 0, 0, 0)
        if self.show_analysis:
            used = self._draw_analysis(surface, area)
            area = pygame.Rect(x, area.top + used, width, area.height - used)
        self._draw_moves(surface, area)

    @staticmethod
    def _button_rows(buttons: list[Button], width: int, gap: int = 8) -> list[list[Button]]:
        """The buttons two to a row, in order; one whose label does not fit half the row gets a row of its own."""
        rows: list[list[Button]] = []
        half = (width - gap) // 2
        for button in buttons:
            if not button.fits(half):
                rows.append([button])
            elif rows and len(rows[-1]) == 1 and rows[-1][0].fits(half):
                rows[-1].append(button)
            else:
                rows.append([button])
        return rows

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

    def _draw_spinner(self, surface: pygame.Surface, center: tuple[int, int], radius: int) -> None:
        angle = (pygame.time.get_ticks() / 1000.0) * 2 * math.pi
        rect = pygame.Rect(0, 0, radius * 2, radius * 2)
        rect.center = center
        pygame.draw.arc(surface, theme.ACCENT, rect, angle, angle + 4.2, 3)

    def _draw_analysis(self, surface: pygame.Surface, rect: pygame.Rect) -> int:
        """The analysis view: the search going on or the last one (a bot's, a hint); returns the height used."""
        title, lines = self.analysis or ("Analysis", ["no search yet: it appears while a bot thinks, and for a hint"])
        # What the moves keep below it: their title and MOVE_ROWS lines; the analysis gets the rest, up to 200.
        height = min(200, rect.height - self._moves_height(self.MOVE_ROWS))
        if height < 64:         # not even two lines: the moves keep the room (the analysis waits for a taller window)
            return 0
        draw_text(surface, fit_text(f"Analysis: {title}", 20, rect.width), (rect.left, rect.top), 20, theme.TEXT_DIM)
        box = pygame.Rect(rect.left - 6, rect.top + 22, rect.width + 12, height - 30)
        self.analysis_rect = box
        pygame.draw.rect(surface, theme.INFO_BOX, box, border_radius=6)
        draw_wrapped(surface, "\n".join(lines), box.inflate(-12, -8), 18)
        return height

    #: The lines of moves the move list keeps when the analysis view is shown beside it.
    MOVE_ROWS = 3

    @staticmethod
    def _moves_height(rows: int) -> int:
        """The height the move list needs for ``rows`` lines of moves (its title and frame included)."""
        return 30 + rows * (theme.font(20).get_linesize() + 2) + 4

    def move_lines(self) -> list[tuple[int, list[tuple[int, str] | None]]]:
        """The move list's lines, numbered as the game's record numbers them (a game begun mid-way, by Play from
        here, goes on with its numbers): (move number, [(ply, move) of the first side or None, the second's])."""
        start = self._start_state()
        number, mover = (start.move_number, start.current_player()) if start is not None else (1, 0)
        lines: list[tuple[int, list]] = []
        for i, text in enumerate(self.moves):
            at, first_side = numbered(number, mover, i)
            if first_side or not lines:
                lines.append((at, [None, None]))
            lines[-1][1][0 if first_side else 1] = (i + 1, text)
        return lines

    def _draw_moves(self, surface: pygame.Surface, rect: pygame.Rect) -> None:
        """The moves, two to a line; the one whose position is shown (looking back) is framed, and each is
        remembered in ``move_rects`` for clicks."""
        self.move_rects = {}
        self.moves_rect = pygame.Rect(0, 0, 0, 0)
        if rect.height < 40:
            return
        draw_text(surface, "Moves", (rect.left, rect.top), 22, theme.TEXT_DIM)
        self.moves_rect = pygame.Rect(rect.left - 6, rect.top + 22, rect.width + 12, rect.height - 22)
        pygame.draw.rect(surface, theme.FIELD, self.moves_rect, border_radius=6)
        line_h = theme.font(20).get_linesize() + 2
        lines = self.move_lines()
        start = self._start_state()
        mover = start.current_player() if start is not None else 0
        room = max(1, (rect.height - 30) // line_h)
        first = max(0, len(lines) - room)              # the latest moves stay in view ...
        shown = self.review.ply if self.review is not None else None
        if shown is not None:                          # ... or, looking back, the move shown, mid-view
            first = min(first, max(0, (shown - 1 + mover) // 2 - room // 2))
        y = rect.top + 28
        col_w = (rect.width - 40) // 2
        for at, cells in lines[first:first + room]:
            draw_text(surface, f"{at}.", (rect.left, y), 20, theme.TEXT_DIM)
            for j, entry in enumerate(cells):
                cell = pygame.Rect(rect.left + 36 + j * col_w, y - 2, col_w - 8, line_h)
                if entry is None:                      # "...": the game began with the second side's move
                    if j == 0:
                        draw_text(surface, "...", (cell.left + 4, y), 20, theme.TEXT_DIM)
                    continue
                ply, text = entry
                if ply == shown:
                    pygame.draw.rect(surface, theme.SHOWN_MOVE, cell, border_radius=4)
                draw_text(surface, fit_text(text, 20, cell.width - 8), (cell.left + 4, y), 20)
                self.move_rects[ply] = cell
            y += line_h
