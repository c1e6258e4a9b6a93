"""Text renderer: the board after every move, and a move prompt with commands."""
from __future__ import annotations

import os
import sys
import textwrap
from typing import TextIO

from pathlib import Path

from plyground.analysis import analysis_lines
from plyground.capabilities import legal_moves_text, pictures_name_players
from plyground.play.clock import clock_line, note_time_left
from plyground.errors import MoveError, PlygroundError, RecordError
from plyground.options import Option
from plyground.protocols import Command, Game, GameRecord, Renderer, State
from plyground.util.wording import counted
from plyground.play.resume import (WouldReplace, default_save_path, game_so_far, numbered_path, resume_argument,
                              save_unfinished, saves_folder_words)

REVIEW_HELP = """Commands while reviewing a game:
  back [N]     step N plies back (default 1; also: b)
  forward [N]  step N plies forward (default 1; also: f, next, or a bare Enter)
  goto N       show the position after N plies (0: the start)
  start, end   the start position, the final one
  play         play a new game from the position shown (the players of --black/--white, else you against
               the strongest bot)
  moves        the legal moves here (also: ?)
  board        show the board again
  fen          the position as text, as --fen takes it (also: position)
  {record:<12} the whole game under review in the game's record format (also: {aliases})
  hint         what a bot would play here, and why (the human player's hint= option chooses the bot)
  analysis     the last hint's search, when it was of this position (also: a); 'analysis on' gives a hint
               at every position shown, 'analysis off' stops that
  quit         stop reviewing (also: q, exit)"""

REVIEW_HINT = "Type back, forward (or just Enter), goto N, start, end, play, hint, analysis, moves, fen, {record}, help or quit."

RECORD_WORDS = ("pgn", "pdn", "record")

#: Every command of the move prompt, in the order help and the prompt's hint list them: its name, the other
#: words that mean it, and what it does ({save}: where save writes).  "record" is named after the game's
#: record format (pgn for chess, pdn for checkers); the other record words are its other names.
COMMANDS = (
    ("moves", ("?", "legal"), "list the legal moves"),
    ("board", (), "show the board again"),
    ("fen", ("position",), "the position as text, as --fen takes it"),
    ("record", (), "the game so far in the game's record format"),
    ("save", (), "save the game so far to file F (default {save}; a file of other games is replaced only if you "
                 "say yes); plyground play --resume F plays it on"),
    ("hint", (), "what a bot would play here, and why (the human player's hint= option chooses the bot)"),
    ("analysis", ("a",), "the last bot move's search: evaluation, depth or simulations, line or top moves; "
                         "'analysis on' shows it after every bot move, 'analysis off' stops that"),
    ("help", ("h",), "this list, then the game's rules"),
    ("undo", ("takeback", "take back"), "take back your last move (and the reply to it)"),
    ("resign", (), "give up this game"),
    ("quit", ("q", "exit"), "stop playing: the game so far is kept in the saved-games folder (--resume plays it on)"),
)
#: How a command is shown in help when it takes an argument.
_USAGE = {"save": "save [F]"}
_HELP_WIDTH = 100
#: Every word the move prompt takes as a command, to the name of the command in COMMANDS.
COMMAND_WORDS = {word: name for name, others, _ in COMMANDS for word in (name, *others)} | dict.fromkeys(
    RECORD_WORDS, "record")


def record_word(game: Game) -> str:
    """What a player of ``game`` calls its record: pgn (chess), pdn (checkers), else record."""
    word = game.record_suffix.lstrip(".").lower()
    return word if word in RECORD_WORDS else "record"


class ConsoleRenderer(Renderer):
    name = "console"
    description = "Text board in the terminal; moves typed at a prompt (scriptable through stdin)."
    options = (
        Option("color", str, "auto", "colour output", choices=("auto", "always", "never")),
        Option("quiet", bool, False, "print only the result (useful when bots play)"),
    )
    reviews_games = True          # review(): plyground play --review FILE

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None, **options):
        super().__init__(**options)
        self.stdin = stdin or sys.stdin
        self.out = stdout or sys.stdout
        self.color_mode = options.get("color", "auto")
        self.quiet = options.get("quiet", False)
        self.game = None
        self.names: tuple[str, str] = ("", "")
        self.last_move: str | None = None
        self.analysis: tuple[str, dict | None, str | None] | None = None   # the last search shown
        self.analysis_on = False            # print every bot move's analysis after its board
        self._names_in_picture = False     # the game's status line names the player to move
        self._hinted = False
        self._undo_at: int | None = None   # ply at which the human last asked to take back

    @property
    def color(self) -> bool:
        """Colour on request, or automatically when writing to a terminal (and NO_COLOR is unset)."""
        if self.color_mode == "always":
            return True
        if self.color_mode == "never" or os.environ.get("NO_COLOR"):
            return False
        isatty = getattr(self.out, "isatty", None)
        return bool(isatty and isatty())

    def _print(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def start(self, game, state, players):
        self.game, self.names, self.last_move = game, tuple(players), None
        self.analysis = None
        self._names_in_picture = pictures_name_players(game)
        self._hinted, self._undo_at = False, None
        if not self.quiet:
            sides = ", ".join(f"{side}: {name}" for side, name in zip(game.side_names, players))
            played = self.record.moves if self.record is not None else []   # a resumed game's moves so far
            if played:
                self._print(f"Resumed game of {game.name} after {counted(len(played), 'ply', 'plies')} "
                            f"(last move {played[-1]}) — {sides}")
            else:
                self._print(f"New game of {game.name} — {sides}")

    def show(self, state: State, last_move: str | None) -> None:
        self.last_move = last_move
        if self.quiet:
            return
        self._print()
        self._print(self._picture(state))
        if not state.is_terminal() and not self._names_in_picture:
            # The game's picture does not say whose turn it is: one line of our own does.
            side = state.current_player()
            after = f"after {last_move}, " if last_move else ""
            self._print(f"{after}{self.game.side_names[side]} ({self.names[side]}) to move")
        if self.game_clock is not None:
            self._print(clock_line(self.game.side_names, self.game_clock))

    def _picture(self, state: State) -> str:
        if self._names_in_picture:
            return self.game.render_text(state, self.last_move, color=self.color, players=self.names)
        return self.game.render_text(state, self.last_move, color=self.color)

    def thinking(self, player: str) -> None:
        if not self.quiet:
            self._print(f"{player} is thinking... (Ctrl-C stops)")

    def show_analysis(self, title: str, analysis: dict | None, mover: str | None = None) -> None:
        self.analysis = (title, analysis, mover)
        if title.startswith("hint") or (self.analysis_on and not self.quiet):
            self._print_analysis()

    def _print_analysis(self) -> None:
        if self.analysis is None:
            self._print("no analysis yet: it comes with a bot's move or a hint")
            return
        title, analysis, mover = self.analysis
        self._print(f"{title}:")
        for line in analysis_lines(analysis, mover, self.game.side_names[self.game.evaluation_side]):
            self._print(f"  {line}")

    def ask_move(self, state: State):
        side = self.game.side_names[state.current_player()]
        if not self._hinted:
            self._print("Type a move, or: " + ", ".join(self._command_name(name) for name, _, _ in COMMANDS) + ".")
            self._hinted = True
        if self._undo_at is not None and state.ply == self._undo_at:
            self._print("nothing to take back yet: you have not moved")
        self._undo_at = None
        while True:
            self.out.write(f"{side} move (or 'help'): ")
            self.out.flush()
            line = self.stdin.readline()
            if not line:  # end of input: nobody is there to answer
                self._print()
                return Command.QUIT
            text = line.strip()
            word = text.lower()
            if not text:
                continue
            first, _, rest = word.partition(" ")        # save and analysis take a word after them
            command = COMMAND_WORDS.get(word) or (first if first in ("save", "analysis") else None)
            if command == "quit":
                return Command.QUIT
            if command == "resign":
                return Command.RESIGN
            if command == "undo":
                if state.ply == 0:
                    self._print("nothing to take back yet: no move has been played")
                    continue
                self._undo_at = state.ply
                return Command.UNDO
            if command == "moves":
                self._print(legal_moves_text(self.game, state))   # as the game's own error messages list them
                continue
            if command == "board":
                self._print(self._picture(state))
                continue
            if command == "fen":
                self._print(self._position_text(state))
                continue
            if command == "record":
                self._print(self._record_text())
                continue
            if command == "hint":
                return Command.HINT
            if command == "analysis" and rest in ("", "on", "off"):
                if rest:
                    self.analysis_on = rest == "on"
                    self._print(f"analysis after every bot move: {'on' if self.analysis_on else 'off'}")
                else:
                    self._print_analysis()
                continue
            if command == "save":
                self._save(text[4:].strip())
                continue
            if command == "help":
                self._print(self._help_text())
                if self.game.rules_text:
                    self._print("\nRules:\n" + self.game.rules_text)
                continue
            try:
                return state.parse_move(text)
            except MoveError as exc:
                self._print(str(exc))         # the message names the move and why (no "not a legal move: X is not a legal move")

    # ------------------------------------------------------------------ reviewing a recorded game

    def review(self, review, hint):
        """Step through ``review`` (a :class:`plyground.play.review.GameReview`) at the prompt; returns the position
        to play from ('play') or None ('quit', end of input)."""
        game, record = review.game, review.record
        self.game, self.names = game, tuple(record.players)
        self.analysis, self._names_in_picture = None, pictures_name_players(game)
        sides = ", ".join(f"{side}: {name}" for side, name in zip(game.side_names, record.players))
        self._print(f"Reviewing game {review.number} of {review.count} in {review.path}: "
                    f"{game.name} — {sides}; {review.plies} plies, result {review.result_words()}")
        self._print(REVIEW_HINT.format(record=record_word(game)))
        analysed_at = None                         # the ply the last hint searched
        shown = None
        while True:
            if shown != review.ply:
                shown = review.ply
                self._show_reviewed(review)
                if self.analysis_on and not review.state().is_terminal():
                    hint(review.state())
                    analysed_at = review.ply
            self.out.write(f"review, ply {review.ply}/{review.plies} (or 'help'): ")
            self.out.flush()
            line = self.stdin.readline()
            if not line:                         # end of input: nobody is there to answer
                self._print()
                return None
            text = line.strip()
            command = text.lower()
            word, _, argument = command.partition(" ")
            argument = argument.strip()
            if not text:                         # a bare Enter steps forward, as in a pager
                if not review.forward(1):
                    self._print("already at the end of the game")
                continue
            if command in ("quit", "exit", "q"):
                return None
            state = review.state()
            if command == "play":
                if not state.is_terminal():
                    return state
                self._print(f"the game is over here ({state.outcome_reason()}); step back (back, goto N) "
                            f"to play from an earlier position")
            elif word in ("back", "b", "forward", "f", "next"):
                count = self._count(argument, word)
                forward = word in ("forward", "f", "next")
                if count is not None and not (review.forward(count) if forward else review.back(count)):
                    self._print("already at the end of the game" if forward else "already at the start")
            elif word == "goto":
                ply = self._count(argument, word, least=0)
                try:
                    if ply is not None:
                        review.goto(ply)
                except PlygroundError as exc:
                    self._print(str(exc))
            elif command == "start":
                review.to_start()
            elif command == "end":
                review.to_end()
            elif command in ("moves", "legal", "?"):
                self._print(legal_moves_text(game, state) if not state.is_terminal()
                            else "no legal moves: the game is over here")
            elif command == "board":
                self._show_reviewed(review)
            elif command in ("fen", "position"):
                self._print(self._position_text(state))
            elif command in RECORD_WORDS:
                self._print(self._format_record(record))
            elif command == "hint":
                if state.is_terminal():
                    self._print(f"no hint: the game is over here ({state.outcome_reason()})")
                else:
                    hint(state)
                    analysed_at = review.ply
            elif word in ("analysis", "a") and argument in ("", "on", "off"):
                if argument:
                    self.analysis_on = argument == "on"
                    self._print(f"a hint at every position shown: {'on' if self.analysis_on else 'off'}")
                elif analysed_at != review.ply or self.analysis is None:
                    self._print("no analysis of this position yet: type hint (or 'analysis on')")
                else:
                    self._print_analysis()
            elif command in ("help", "h"):
                self._print(self._review_help_text())
            else:
                self._print(self._not_a_review_command(text, state))

    def _show_reviewed(self, review) -> None:
        """The board at the ply on show, its move marked, and where the review stands."""
        self.last_move = review.last_move
        self._print()
        self._print(self._picture(review.state()))
        self._print(review.describe())

    def _count(self, argument: str, word: str, least: int = 1) -> int | None:
        """The number after ``word`` (default 1 for the steps); prints what is valid and gives None if it is none."""
        if not argument and word != "goto":
            return 1
        if argument.isdigit() and int(argument) >= least:
            return int(argument)
        example = "goto 12 (0: the start position)" if word == "goto" else f"{word} 5"
        self._print(f"{word} takes a number of plies, e.g. {example}" + (f"; not {argument!r}" if argument else ""))
        return None

    def _not_a_review_command(self, text: str, state: State) -> str:
        try:
            state.parse_move(text)
        except (MoveError, PlygroundError):
            return f"not a review command: {text!r}. " + REVIEW_HINT.format(record=record_word(self.game))
        return f"{text} is a move here: type 'play' to start a new game from this position, then play it"

    def _review_help_text(self) -> str:
        record = record_word(self.game)
        return REVIEW_HELP.format(record=record, aliases=", ".join(w for w in RECORD_WORDS if w != record))

    def _command_name(self, name: str) -> str:
        return record_word(self.game) if name == "record" else name

    def _help_text(self) -> str:
        """Every command of :data:`COMMANDS`, with all the words that mean it."""
        save = f"{default_save_path(self.game).name} in {saves_folder_words()}"
        lines = ["Commands at the move prompt:", "  <move>   a move in the game's notation (see the rules below)"]
        for name, others, what in COMMANDS:
            shown = self._command_name(name)
            if name == "record":
                others = tuple(w for w in RECORD_WORDS if w != shown)
            also = f" (also: {', '.join(others)})" if others else ""
            lines.extend(textwrap.wrap(f"{_USAGE.get(name, shown):<8} {what.format(save=save)}{also}", _HELP_WIDTH,
                                       initial_indent="  ", subsequent_indent=" " * 11))
        return "\n".join(lines)

    def _position_text(self, state: State) -> str:
        try:
            return state.to_text()
        except NotImplementedError:
            return f"{self.game.name} has no position notation: its positions cannot be written as text"

    def _record_text(self) -> str:
        if self.record is None:
            return "no record: this game is not played by plyground's match runner"
        return self._format_record(game_so_far(self.record, saved=False), "the game so far")

    def _format_record(self, record: GameRecord, what: str = "the game") -> str:
        try:
            return self.game.format_records([record]).rstrip("\n")
        except RecordError as exc:   # a game whose writer refuses its own moves: say so, keep playing
            return f"cannot write {what} as a {self.game.name} record: {exc}"

    def _save(self, name: str) -> None:
        """Write the game so far (result ``*``) to ``name`` (default: ``<game>-saved<suffix>`` in the
        saved-games folder); a file holding anything but an earlier state of this game is replaced only
        when the person says yes."""
        if self.record is None:
            self._print("cannot save: this game is not played by plyground's match runner")
            return
        path = Path(name).expanduser() if name else default_save_path(self.game)
        if self.game_clock is not None:
            note_time_left(self.record.tags, self.game_clock)     # this turn's time so far counts
        try:
            try:
                path = save_unfinished(self.game, self.record, path)
            except WouldReplace as exc:
                if not self._confirm(f"{exc.path} already {exc.holds}; replace it with this game? [y/N] "):
                    self._print(f"not saved; keep {exc.path} and give another name, e.g. save "
                                f"{numbered_path(exc.path)}")
                    return
                path = save_unfinished(self.game, self.record, path, replace=True)
        except OSError as exc:
            self._print(f"cannot save to {path}: {exc.strerror or exc}")
        except PlygroundError as exc:
            message = str(exc)             # the reasons from plyground.play.resume name the file already
            self._print(message if message.startswith("cannot save") else f"cannot save: {message}")
        else:
            self._print(f"saved the game so far ({len(self.record.moves)} plies) to {path}; "
                        f"play it on later with: plyground play --resume {resume_argument(path)}")

    def _confirm(self, question: str) -> bool:
        """Ask a yes/no question at the prompt; only yes (y) is yes, end of input is no."""
        self.out.write(question)
        self.out.flush()
        return self.stdin.readline().strip().lower() in ("y", "yes")

    def end(self, state: State, record: GameRecord) -> None:
        if record.finished:
            a, b = record.returns
            if a == b:
                verdict = "Draw"
            else:
                winner = 0 if a > b else 1
                verdict = f"{self.game.side_names[winner]} ({record.players[winner]}) wins"
            self._print(f"Game over: {verdict} — {record.reason} ({record.result_text}, {len(record.moves)} plies)")
        else:
            self._print(f"Game not finished: {record.reason}")
