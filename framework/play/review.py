"""Looking back at a game (``plyground play --review FILE``): its moves, the ply shown, stepping through them.

A :class:`GameReview` is the one model of a game being reviewed, whatever
shows it: the record, its positions (replayed and checked once, when it is
opened; :data:`KEPT_POSITIONS` of them kept, the others played again from the
nearest when shown), the ply on show, and back / forward / goto / start / end.  A
renderer with the ``reviews_games`` ability (the console, the pygame window)
draws ``review.state()`` with ``review.last_move`` marked and asks what to do
next; ``play`` there starts a new game from ``review.state()``.  The window
also looks back through a live game's moves with one.

Games are read as ``--resume`` reads them (:mod:`plyground.play.resume`), so the
same file, folder and format errors come out the same way; finished games and
unfinished ones (result ``*``) are both shown.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import RecordError, UsageError
from ..protocols import Game, GameRecord, State
from ..files.recordio import MoveNote, saved_records_reader
from .resume import PastTheEnd, read_game_file, replayed

#: How messages name what a review does to a file ("cannot review FILE: ...").
REVIEWING = "review"
#: Positions a review keeps whole, evenly spread over the game (a State carries the game's history, so keeping
#: every one grew with the square of the plies: issue #57); any other is the nearest kept one before it with the
#: moves between played again.
KEPT_POSITIONS = 32


class GameReview:
    """A game being looked back at: its record, its positions and the ply on show (0: the start position).

    ``number`` and ``count`` say which game of its file ``path`` it is (game 3 of 10).  A move of the record that
    cannot be played raises a RecordError naming the file, the game and the move.
    """

    def __init__(self, game: Game, record: GameRecord, *, path: str = "", number: int = 1, count: int = 1) -> None:
        self.game, self.record, self.path = game, record, str(path)
        self.number, self.count = number, count
        source = f"{path}, game {number}" if path else f"game {number}"
        #: Plies between two positions kept whole (the start is kept, and every ``_every``-th ply after it).
        self._every = max(16, -(-len(record.moves) // KEPT_POSITIONS))
        self._kept: dict[int, State] = {}
        self.movers: list[int] = []          # the side that made each move (a side may move twice in a row)
        for ply, (state, mover) in enumerate(replayed(game, record, source)):   # every move checked, once
            if ply % self._every == 0:
                self._kept[ply] = state.clone()
            if mover is not None:
                self.movers.append(mover)
        self._last: tuple[int, State] | None = None   # the last position made: stepping on plays from it
        self.ply = 0                         # a review opens on the start position, as a board does

    # ------------------------------------------------------------------ what is shown

    @property
    def plies(self) -> int:
        """Moves in the game."""
        return len(self.record.moves)

    def state(self) -> State:
        """The position at the ply on show (a clone: the caller may play on from it)."""
        return self.position(self.ply)

    def position(self, ply: int) -> State:
        """The position after ``ply`` moves (a clone); ``position(ply - 1)`` is the one the move on show was
        played in, which a board needs to mark that move."""
        ply = self._checked(ply)
        last = self._last
        if last is not None and last[0] == ply:
            return last[1].clone()
        if last is not None and last[0] < ply <= last[0] + self._every:
            at, state = last                  # a step or a few forward: on from the last position made
        else:
            at = ply - ply % self._every
            state = self._kept[at]
        state = state.clone()
        for text in self.record.moves[at:ply]:       # checked when the review was opened
            state.apply(state.parse_move(text))
        self._last = (ply, state)
        return state.clone()

    @property
    def last_move(self) -> str | None:
        """The move that led to the position on show, as the record writes it; None at the start."""
        return self.record.moves[self.ply - 1] if self.ply else None

    @property
    def at_start(self) -> bool:
        return self.ply == 0

    @property
    def at_end(self) -> bool:
        return self.ply == self.plies

    def describe(self) -> str:
        """Where the review stands, in words: "ply 12 of 52: after 24-20 by White (alphabeta)"."""
        where = f"ply {self.ply} of {self.plies}"
        if self.at_start:
            return f"{where}: the start position"
        side = self.movers[self.ply - 1]
        player = self.record.player_at(side, self.ply, self.game.side_names)
        note = self.note
        marks = note.marks if note is not None else ""
        text = f"{where}: after {self.last_move}{marks} by {self.game.side_names[side]} ({player})"
        if self.at_end:
            text += f"; the game ended {self.result_words()}" if self.record.finished else \
                "; the record ends here, unfinished (*)"
        said = self.note_words()
        return f"{text} \u2014 {said}" if said else text

    @property
    def note(self) -> MoveNote | None:
        """What an annotated record says of the move on show (its NAGs, its comment); None when nothing."""
        notes = self.record.notes
        return notes[self.ply - 1] if 0 < self.ply <= len(notes) else None

    def note_words(self) -> str:
        """The comment on the move on show, in words: its evaluation (``[%eval -1.00]``, as ``plyground analyse``
        writes it: from the game's evaluation side) and its remark ("evaluation -1.00 for White; Blunder (-25%).
        Best: 22-17."); "" when there is none.  The record's reason, written after its last move, is not repeated."""
        note = self.note
        if note is None:
            return ""
        parts = []
        if note.evaluation:
            parts.append(f"evaluation {note.evaluation} for {self.game.side_names[self.game.evaluation_side]}")
        if note.remark and not (self.at_end and note.remark == self.record.reason):
            parts.append(note.remark)
        return "; ".join(parts)

    def result_words(self) -> str:
        """The game's result as the record gives it: "1-0 (Black won: no moves left)"."""
        record = self.record
        if not record.finished:
            return "* (unfinished)"
        a, b = record.returns
        verdict = "drawn" if a == b else f"{self.game.side_names[0 if a > b else 1]} won"
        return f"{record.result_text} ({verdict}{': ' + record.reason if record.reason else ''})"

    # ------------------------------------------------------------------ moving through it

    def goto(self, ply: int) -> None:
        """Show the position after ``ply`` moves (0: the start); a UsageError names the valid range."""
        self.ply = self._checked(ply)

    def _checked(self, ply: int) -> int:
        if not 0 <= ply <= self.plies:
            raise UsageError(f"no ply {ply} in this game: give 0 (the start) to {self.plies} (the end)")
        return ply

    def back(self, plies: int = 1) -> int:
        """Step ``plies`` back (stopping at the start); returns how many were stepped."""
        stepped = min(plies, self.ply)
        self.ply -= stepped
        return stepped

    def forward(self, plies: int = 1) -> int:
        """Step ``plies`` forward (stopping at the end); returns how many were stepped."""
        stepped = min(plies, self.plies - self.ply)
        self.ply += stepped
        return stepped

    def to_start(self) -> None:
        self.ply = 0

    def to_end(self) -> None:
        self.ply = self.plies


def open_review(game: Game, path: Path, number: int | None = None, *, doing: str = REVIEWING,
                first: bool = False) -> GameReview:
    """Game ``number`` (1-based; None: the last one, or with ``first`` the first) of the record file ``path`` --
    PDN, PGN or JSON lines as ``game`` writes them, looked for as ``--resume`` looks -- replayed and ready to
    show.  A missing or damaged file, a file of another game, or a number the file does not have is one
    RecordError or UsageError, saying what could not be done (``doing``: "review", "analyse")."""
    reader = saved_records_reader(game)
    if reader is None:
        raise UsageError(f"{game.name} cannot read its records back, so there is no game of it to {doing}")
    path, records = read_game_file(game, path, reader, doing)
    count = len(records)
    if number is None:
        number = 1 if first else count
    if not 1 <= number <= count:
        games = f"{count} game{'s' if count != 1 else ''}"
        raise UsageError(f"--game-number {number}: {path} holds {games}; give a number from 1 to {count}")
    try:
        return GameReview(game, records[number - 1], path=path, number=number, count=count)
    except PastTheEnd as exc:
        raise RecordError(f"cannot {doing} {exc}; {_rules_without_draws(game)}") from None
    except RecordError as exc:
        raise RecordError(f"cannot {doing} {exc}") from None


#: Game options that end a game in an automatic draw (checkers and chess: set to 0, they are off).
_AUTOMATIC_DRAWS = ("repetitions", "no_progress_plies")


def _rules_without_draws(game: Game) -> str:
    """Advice for a recorded game that plays on past an automatic draw: review it under rules without them."""
    names = [option.name for option in game.options if option.name in _AUTOMATIC_DRAWS]
    advice = "recorded players may play on past a draw nobody claimed"
    if not names:
        return advice
    return (f"{advice}: review it without automatic draws, --game {game.name}:"
            + ",".join(f"{name}=0" for name in names))
