"""Text renderer: the board after every move, and a move prompt with commands."""
from __future__ import annotations

import os
import sys
from typing import TextIO

from plyground.errors import MoveError
from plyground.options import Option
from plyground.protocols import Command, GameRecord, Renderer, State

HELP = """Commands at the move prompt:
  <move>   a move in the game's notation (see the rules below)
  moves    list the legal moves (also: ?)
  board    show the board again
  help     this text and the rules (also: h)
  undo     take back your last move (and the reply to it)
  resign   give up this game
  quit     stop playing (the game is recorded as unfinished; also: q, exit)"""

HINT = "Type a move, or: moves, board, help, undo, resign, quit."


class ConsoleRenderer(Renderer):
    name = "console"
    description = "Text board in the terminal; moves typed at a prompt (scriptable through stdin)."
    options = (
        Option("color", str, "auto", "colour output", choices=("auto", "always", "never")),
        Option("quiet", bool, False, "print only the result (useful when bots play)"),
    )

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None, **options):
        super().__init__(**options)
        self.stdin = stdin or sys.stdin
        self.out = stdout or sys.stdout
        self.color_mode = options.get("color", "auto")
        self.quiet = options.get("quiet", False)
        self.game = None
        self.names: tuple[str, str] = ("", "")
        self.last_move: str | None = None
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
        self._hinted, self._undo_at = False, None
        if not self.quiet:
            sides = ", ".join(f"{side}: {name}" for side, name in zip(game.side_names, players))
            self._print(f"New game of {game.name} — {sides}")

    def show(self, state: State, last_move: str | None) -> None:
        self.last_move = last_move
        if self.quiet:
            return
        self._print()
        self._print(self.game.render_text(state, last_move, color=self.color))
        if not state.is_terminal():
            side = state.current_player()
            after = f"after {last_move}, " if last_move else ""
            self._print(f"{after}{self.game.side_names[side]} ({self.names[side]}) to move")

    def thinking(self, player: str) -> None:
        if not self.quiet:
            self._print(f"{player} is thinking...")

    def ask_move(self, state: State):
        side = self.game.side_names[state.current_player()]
        if not self._hinted:
            self._print(HINT)
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
            if word in ("quit", "exit", "q"):
                return Command.QUIT
            if word == "resign":
                return Command.RESIGN
            if word in ("undo", "takeback", "take back"):
                if state.ply == 0:
                    self._print("nothing to take back yet: no move has been played")
                    continue
                self._undo_at = state.ply
                return Command.UNDO
            if word in ("moves", "legal", "?"):
                self._print("legal moves: " + " ".join(state.move_to_text(m) for m in state.legal_moves()))
                continue
            if word == "board":
                self._print(self.game.render_text(state, self.last_move, color=self.color))
                continue
            if word in ("help", "h"):
                self._print(HELP)
                if self.game.rules_text:
                    self._print("\nRules:\n" + self.game.rules_text)
                continue
            try:
                return state.parse_move(text)
            except MoveError as exc:
                self._print(str(exc))         # the message names the move and why (no "not a legal move: X is not a legal move")

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
