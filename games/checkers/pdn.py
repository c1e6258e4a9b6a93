"""Reading and writing PDN, the checkers game-record format.

A PDN file is a sequence of games; each has tag pairs (``[Event "..."]``)
and movetext: move numbers (``12.`` / ``12...``), moves (``11-15``, ``15x22``,
``22x15x8`` or the short ``22x8``), comments ``{...}`` and ``; ...``,
variations ``( ... )`` (skipped, they may nest), NAGs ``$3``, annotation marks
(``11-15!``) and a result (``1-0``, ``0-1``, ``1/2-1/2``, ``*``; the draughts
forms ``2-0``, ``0-2``, ``1-1`` are read too).

What cannot be read raises :class:`PdnError` (a RecordError) naming the
game's number in the file and the line.  With ``strict=False`` the reader
yields every good game and collects the errors of the bad ones in
``reader.errors``, resuming at the next game's tags.  A file holding binary
data (control bytes no text has) is refused as a whole, strict or not.

With ``validate=True`` (the default) each game is also replayed, so a game
with an illegal move is an error pointing at that move.  Replaying follows
the records: the automatic draws (repetition, 40-move rule) are not applied,
because in play a draw must be claimed and recorded games go on past them.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Iterator, Sequence

from plyground.errors import MoveError, PositionError, RecordError
from plyground.protocols import GameRecord
from plyground.files.recordio import (MARK_NAGS, MoveNote, RecordGameError, RecordTextReader, format_tagged_game,
                                numbered)

from . import notation
from .kernels import SIDE

RESULTS = {"1-0": (1.0, -1.0), "0-1": (-1.0, 1.0), "1/2-1/2": (0.0, 0.0), "*": None,
           # draughts-style scores (2 points a win) found in some PDN files
           "2-0": (1.0, -1.0), "0-2": (-1.0, 1.0), "1-1": (0.0, 0.0), "0-0": None}

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<tag>\[)
  | (?P<comment>\{)
  | (?P<line_comment>;[^\n]*)
  | (?P<open>\()
  | (?P<close>\))
  | (?P<stray>[\]}])
  | (?P<result>(?:1-0|0-1|1/2-1/2|2-0|0-2|1-1|0-0|\*)(?![^\s\[\]{}();]))
  | (?P<number>[0-9]+\.(?:\.\.)?|\.\.\.)
  | (?P<nag>\$[0-9]+)
  | (?P<move>[0-9]+(?:[-xX][0-9]+){1,24})[!?]*(?![^\s\[\]{}();])
  | (?P<mark>[!?]+(?![^\s\[\]{}();]))
  | (?P<other>[^\s\[\]{}();]+)
""", re.VERBOSE)
#: (A move has at most 24 landings, so a 9 MB "move" is 'other' text, matched without a backtracking point for
#: each of its parts: it took 1.5 GB, issue #57.)
#: A tag pair; its value as runs of plain characters between escapes, which the regex engine matches without
#: keeping a backtracking point for every character (``(?:[^"\\]|\\.)*`` took 175 bytes a character: a 10 MB
#: tag 1.7 GB, issue #57).
_TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"([^"\\\n]*(?:\\.[^"\\\n]*)*)"\s*\]')
_UNESCAPE = re.compile(r"\\(.)")


class PdnError(RecordGameError):
    """A PDN game that cannot be read or replayed; knows its game number and line."""


@dataclass
class PdnGame:
    """One game as read from PDN: tags, the moves as written, and the result."""

    number: int                     # 1-based position in the file
    line: int                       # line where the game starts
    tags: dict[str, str] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)
    move_lines: list[int] = field(default_factory=list)
    result: str = "*"
    source: str = ""
    codes: list[int] | None = None  # the moves as engine codes, once replayed
    first_number: int | None = None  # the number written before the first move (``16.``), if any
    notes: list[tuple[list[int], list[str]]] = field(default_factory=list)   # each move's NAGs and comments

    @property
    def fen(self) -> str:
        """The start position: the FEN tag, or the initial position."""
        return self.tags.get("FEN", notation.INITIAL_FEN)

    def start_text(self) -> str:
        """The start position as a state's text: the FEN tag with the number of the first move as the movetext
        writes it (``[FEN "W:..."] 16... 22-18``: move 16), so a game begun mid-way keeps its numbers."""
        try:
            pos, number = notation.read_fen(self.fen)
        except PositionError as exc:
            raise self._error(f"bad FEN tag: {exc}") from None
        return notation.format_fen(pos, self.first_number or number)

    def _error(self, message: str, line: int | None = None) -> PdnError:
        return PdnError(message, self.number, self.line if line is None else line, self.source)

    def start_state(self, game=None):
        game = game or _replay_game()
        try:
            return game.new_state(self.start_text())
        except PositionError as exc:
            raise self._error(f"bad FEN tag: {exc}") from None

    def replay(self, game=None):
        """The final State after every move; PdnError at the first move that is not legal.

        ``game`` defaults to checkers with the automatic draws off (see the module docstring).
        """
        state = self.start_state(game)
        codes = []
        for text, line in zip(self.moves, self.move_lines):
            try:
                code = _find_move(state, text)
            except MoveError as exc:
                side = state.current_player()
                raise self._error(f"move {state.move_number}{'.' if side == 0 else '...'} {text} "
                                  f"({notation.SIDE_NAMES[side]}): {exc}", line) from None
            state.apply(code)
            codes.append(code)
        self.codes = codes
        return state

    def to_record(self) -> GameRecord:
        """As a plyground GameRecord (players from the Black/White tags)."""
        result = self.result if self.result in RESULTS else "*"
        returns = RESULTS[result]
        start = self.start_text()
        skip = {"Black", "White", "Result", "FEN", "GameType", "SetUp"}
        return GameRecord(
            game="checkers", players=(self.tags.get("Black", "?"), self.tags.get("White", "?")),
            start=start, moves=list(self.moves), returns=returns or (0.0, 0.0),
            finished=returns is not None, tags={k: v for k, v in self.tags.items() if k not in skip},
            notes=[MoveNote.read(nags, comments) for nags, comments in self.notes]
            if any(nags or comments for nags, comments in self.notes) else [])


def _find_move(state, text: str) -> int:
    """The legal move ``text`` names; a fast path for the plain ``a-b`` / ``axb`` forms."""
    moves = state.legal_moves()
    parts = re.split(r"[-xX]", text)
    if len(parts) == 2 and len(parts[0]) <= 2 and len(parts[1]) <= 2:
        frm, to = int(parts[0]) - 1, int(parts[1]) - 1
        found = [m for m in moves if m & 1023 == frm | (to << 5)] if 0 <= frm < 32 and 0 <= to < 32 else []
        if len(found) == 1:
            return found[0]
    return state.parse_move(text)


_REPLAY_GAME = None


def _replay_game():
    global _REPLAY_GAME
    if _REPLAY_GAME is None:
        from .game import CheckersGame
        _REPLAY_GAME = CheckersGame(repetitions=0, no_progress_plies=0)
    return _REPLAY_GAME


# ------------------------------------------------------------------ reading

class PdnReader(RecordTextReader):
    """Iterates over the games of PDN text.

    ``strict=True``: the first bad game raises PdnError.  ``strict=False``:
    bad games are skipped and their errors collected in ``errors``.
    ``validate``: replay each game (``game.codes`` is then filled in).
    """

    format_name = "PDN"
    looks_like = 'tag pairs such as [Black "..."] and moves such as 1. 11-15 23-19'

    def __init__(self, text: str, *, strict: bool = True, validate: bool = True, game=None,
                 source: str = "") -> None:
        super().__init__(text, strict=strict, source=source)
        self.validate = validate
        self.game = game
        self._newlines = [m.start() for m in re.finditer("\n", self.text)]


    def _line(self, offset: int) -> int:
        return bisect.bisect_left(self._newlines, offset) + 1

    def _line_start(self, line: int) -> int:
        return 0 if line <= 1 else self._newlines[line - 2] + 1

    def __iter__(self) -> Iterator[PdnGame]:
        pos, number = 0, 0
        while True:
            number += 1
            try:
                game, pos = self._parse_game(pos, number)
            except _ParseFailure as failure:
                error = PdnError(failure.message, number, self._line(failure.offset), self.source)
                if self.strict:
                    raise error from None
                self.errors.append(error)
                pos = self._next_game_start(failure.offset)
                continue
            if game is None:
                return
            if self.validate:
                try:
                    game.replay(self.game)
                except PdnError as error:
                    if self.strict:
                        raise
                    self.errors.append(error)
                    continue
            yield game

    def _parse_game(self, pos: int, number: int) -> tuple[PdnGame | None, int]:
        text = self.text
        game = PdnGame(number=number, line=0, source=self.source)
        started = in_moves = False
        result = None
        variations: list[int] = []          # offsets of the open '('
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            kind, start = m.lastgroup, m.start()
            if kind == "space":
                pos = m.end()
                continue
            if kind in ("comment", "line_comment"):
                if kind == "comment":
                    end = text.find("}", start + 1)
                    if end < 0:
                        raise _ParseFailure("a comment '{' is never closed", start)
                    words, pos = text[start + 1:end], end + 1
                else:
                    words, pos = m.group()[1:], m.end()
                if game.notes and not variations:          # said of the move before it
                    game.notes[-1][1].append(words)
                continue
            if not started:
                started, game.line = True, self._line(start)
            if kind == "tag":
                if variations:
                    raise _ParseFailure("a variation '(' is never closed", variations[0])
                if in_moves:
                    break                    # the next game's tags: a game without a result
                tag = _TAG.match(text, start)
                if not tag:
                    snippet = text[start:text.find("\n", start) if "\n" in text[start:] else len(text)]
                    raise _ParseFailure(f"cannot read the tag {snippet[:60]!r}: expected [Name \"value\"]", start)
                game.tags[tag.group(1)] = _UNESCAPE.sub(r"\1", tag.group(2))
                pos = tag.end()
                continue
            in_moves = True
            pos = m.end()
            if kind == "open":
                variations.append(start)
            elif kind == "close":
                if not variations:
                    raise _ParseFailure("')' closes no variation", start)
                variations.pop()
            elif kind == "stray":
                raise _ParseFailure(f"unexpected {m.group()!r}", start)
            elif variations:
                continue                     # inside a variation: skipped
            elif kind == "result":
                result = m.group()
                break
            elif kind == "number" and not game.moves and m.group()[0].isdigit():
                game.first_number = max(1, notation.digits_value(m.group().rstrip(".")))
            elif kind == "move":
                game.moves.append(m.group("move"))
                game.move_lines.append(self._line(start))
                game.notes.append(([], []))
                self._mark(game, m.group()[m.end("move") - start:])
            elif kind == "mark":
                self._mark(game, m.group())
            elif kind == "nag" and game.notes:
                game.notes[-1][0].append(notation.digits_value(m.group()[1:]))
            elif kind == "other":
                raise _ParseFailure(f"cannot read {m.group()[:40]!r}: expected a move such as 11-15 or "
                                    f"15x22, a move number, a comment or a result", start)
        if variations:
            raise _ParseFailure("a variation '(' is never closed", variations[0])
        if not started:
            return None, pos
        tag_result = game.tags.get("Result", "*").strip()
        game.result = result if result is not None else (tag_result if tag_result in RESULTS else "*")
        game_type = game.tags.get("GameType", "21").strip()
        if game_type.split(",")[0].strip() != "21":
            raise _ParseFailure(f"GameType {game_type!r} is not English checkers (21)",
                                self._line_start(game.line))
        return game, pos

    @staticmethod
    def _mark(game: PdnGame, mark: str) -> None:
        """A mark written after the last move (``11-15?``, ``?!``), as its NAG."""
        if mark in MARK_NAGS and game.notes:
            game.notes[-1][0].append(MARK_NAGS[mark])

    def _next_game_start(self, offset: int) -> int:
        """Offset of the next tag block after the line holding ``offset`` (or the end)."""
        text = self.text
        line_start = text.rfind("\n", 0, offset) + 1
        line_end = text.find("\n", offset)
        previous_was_tag = text[line_start:line_end if line_end >= 0 else len(text)].lstrip().startswith("[")
        p = line_end + 1 if line_end >= 0 else len(text)
        while p < len(text):
            end = text.find("\n", p)
            end = len(text) if end < 0 else end
            stripped = text[p:end].strip()
            if stripped:
                is_tag = stripped.startswith("[")
                if is_tag and not previous_was_tag:
                    return p
                previous_was_tag = is_tag
            p = end + 1
        return len(text)


class _ParseFailure(Exception):
    def __init__(self, message: str, offset: int) -> None:
        self.message, self.offset = message, offset


def recognizes(head: str) -> bool:
    """Whether ``head`` begins with a checkers PDN game: its GameType (if any) 21, its FEN (if any) a checkers
    position, moves such as 11-15 and tags as :class:`PdnReader` reads them (their legality is the reader's to
    judge: a checkers game with a bad move is still checkers), and it has tags or moves (the RecordRecognizer
    ability)."""
    try:
        first = next(iter(PdnReader(head, validate=False)), None)
        if first is not None and "FEN" in first.tags:
            first.start_state()
    except RecordError:
        return False
    return first is not None and bool(first.moves or first.tags)


#: A reader over PDN: a Path (read as a file) or the PDN text itself.
read_pdn = PdnReader.over
#: Every game of a PDN file or text as GameRecords (strict: the first error raises).
read_records = PdnReader.records


# ------------------------------------------------------------------ writing

_TAG_NAME = re.compile(r"[^A-Za-z0-9_]")


#: Tags of the record's own written where the standard roster puts them, after Event, when it has them.
_ROSTER_TAGS = ("Site", "Date", "Round")


def format_record(record: GameRecord, number: int = 1, notes: Sequence[MoveNote | None] | None = None) -> str:
    """One game as PDN: tags (Event, the record's Site, Date and Round, Black,
    White, Result, FEN when not the initial position, GameType "21", then the
    record's other tags), numbered moves, the reason as a comment, the result.
    ``notes`` (one per move, or None) adds each move's NAGs and comment."""
    try:
        start, first_number = notation.read_fen(record.start)
    except PositionError as exc:
        raise RecordError(f"record {number}: its start position is not checkers FEN: {exc}") from None
    tags = {"Event": str(record.tags.get("Event", "plyground game"))}
    tags.update({name: str(record.tags[name]) for name in _ROSTER_TAGS if name in record.tags})
    tags.update({"Black": record.players[0], "White": record.players[1], "Result": record.result_text})
    fen = notation.format_fen(start)
    if fen != notation.INITIAL_FEN:
        tags["FEN"] = fen
    tags["GameType"] = "21"
    moves = []
    for i, move in enumerate(record.moves):
        try:
            notation.parse_squares(move)
        except MoveError:
            raise RecordError(f"record {number}: move {i + 1} {move!r} is not checkers move text") from None
        moves.append((*numbered(first_number, start[SIDE], i), move.strip().replace(" ", "")))
    # A move number once a move, even after a comment: pydraughts' reader takes 12... for a new move.
    return format_tagged_game(tags, record, moves, _TAG_NAME, notes, number_after_comments=False)


def format_records(records: Sequence[GameRecord]) -> str:
    """Games as PDN text, separated by blank lines."""
    return "\n".join(format_record(r, i + 1) for i, r in enumerate(records))
