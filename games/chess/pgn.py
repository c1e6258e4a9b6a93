"""Reading and writing PGN, the chess game-record format.

Writing: :func:`format_records` turns GameRecords into PGN: the seven-tag
roster (Event, Site, Date, Round, White, Black, Result), ``SetUp``/``FEN``
when the game did not start from the initial position, then the record's
own tags; numbered SAN moves; the reason the game ended as a comment; the
result.  Every move is replayed, so a record that is not a legal chess game
raises :class:`RecordError` instead of writing a broken file.

Reading: :func:`read_pgn` parses with python-chess (comments, variations,
NAGs and the usual quirks are handled there) and reports each game that
cannot be read (bad FEN tag, a move that cannot be read or is not legal,
another variant) as a :class:`PgnError` naming the game's number in the
file and the line.  ``strict=True`` raises the first; ``strict=False``
collects them in ``reader.errors`` and keeps every good game.  Whatever
python-chess itself fails on (it has crashed on text as short as ``h6)!``)
is reported the same way, and a binary file is refused as a whole.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator, Sequence

import chess
import chess.pgn

from plyground.errors import PositionError, RecordError, clip
from plyground.protocols import GameRecord
from plyground.files.recordio import MoveNote, RecordGameError, RecordTextReader, format_tagged_game

from . import notation

RESULTS = {"1-0": (1.0, -1.0), "0-1": (-1.0, 1.0), "1/2-1/2": (0.0, 0.0), "*": None}
SEVEN_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
_TAG_NAME = re.compile(r"[^A-Za-z0-9_+#=:-]")
_UNESCAPE = re.compile(r"\\(.)")
#: What PGN movetext is made of: comments, escape lines, NAGs, variations, results, move numbers, moves
#: (python-chess's own move forms, with check marks and annotations) and the words annotators write beside
#: them (N, TN for a novelty, e.p.).  python-chess skips anything else unseen, so notes or a checkers game would
#: read as a chess game without moves (issue #57): a letter or digit left over once these are taken out is
#: refused.  Signs alone (evaluations such as +- or =, a DOS end-of-file byte) are let pass, as python-chess
#: lets them.
_COMMENT = r"\{[^}]*\}?|;[^\n]*|(?m:^%[^\n]*)"     # a {comment}, a ;comment, an escape line
_MOVETEXT = re.compile(rf"""
      \s+ | {_COMMENT} | \$\d+ | [()]
    | (?:1-0|0-1|1/2-1/2|1/2|½-½|\*)
    | (?:[PNBRQK]?[a-h]?[1-8]?[-x:]?[a-h][1-8](?:=?[nbrqkNBRQK])?|[PNBRQK]?@[a-h][1-8]|--|Z0|0000|@@@@
         |O-O(?:-O)?|0-0(?:-0)?)(?:\s?e\.p\.)?[+#]{{0,2}}[!?]{{0,2}}[+#]?
    | \d+\s*\.+ | (?<!\S)\d+(?!\S) | [!?]{{1,2}}
    | (?<![^\s(){{}}])(?:N|TN|RR|e\.p\.)(?![^\s(){{}}])
    """, re.VERBOSE)
_LETTER_OR_DIGIT = re.compile(r"[^\W_]")
_COMMENTS = re.compile(_COMMENT)
_RESULT = re.compile(r"(?<!\S)(?:1-0|0-1|1/2-1/2|\*)(?!\S)")
#: A tag pair's start, [Name "...: a line that merely begins with "[" (a JSON array such as [1,2) is none.
_TAG_PAIR = re.compile(r'\s*\[\s*[A-Za-z0-9][A-Za-z0-9_+#=:-]*\s+"')


class PgnError(RecordGameError):
    """A PGN game that cannot be read; knows its game number and line."""


# ------------------------------------------------------------------ writing

def format_record(record: GameRecord, number: int = 1, notes: Sequence[MoveNote | None] | None = None) -> str:
    """One game as PGN text (ends with a newline); ``notes`` (one per move, or None) adds each move's NAGs
    and comment."""
    try:
        board = notation.parse_fen(record.start)
    except PositionError as exc:
        raise RecordError(f"record {number}: its start position is not chess FEN: {exc}") from None
    tags = {"Event": record.tags.get("Event", "plyground game"), "Site": record.tags.get("Site", "?"),
            "Date": record.tags.get("Date", "????.??.??"), "Round": record.tags.get("Round", "?"),
            "White": record.players[0], "Black": record.players[1], "Result": record.result_text}
    if board.fen() != chess.STARTING_FEN:
        tags["SetUp"] = "1"
        tags["FEN"] = board.fen()
    if record.reason and "Termination" not in record.tags:
        tags["Termination"] = _termination(record)
    moves = []
    for i, text in enumerate(record.moves):
        try:
            move = board.parse_san(text)
            if move not in board.legal_moves:
                raise ValueError(text)
        except ValueError:
            raise RecordError(f"record {number}: move {i + 1} {text!r} is not a legal chess move in "
                              f"{board.fen()}") from None
        moves.append((board.fullmove_number, board.turn == chess.WHITE, board.san(move)))
        board.push(move)
    return format_tagged_game(tags, record, moves, _TAG_NAME, notes)


def _termination(record: GameRecord) -> str:
    """The PGN Termination tag's standard words for how the game ended."""
    if not record.finished:
        return "unterminated"
    if "ply cap" in record.reason or "adjudicat" in record.reason:
        return "adjudication"
    if "forfeit" in record.reason:
        return "rules infraction"
    return "normal"


def format_records(records: Sequence[GameRecord]) -> str:
    """Games as PGN text, separated by blank lines."""
    return "\n".join(format_record(r, i + 1) for i, r in enumerate(records))


# ------------------------------------------------------------------ reading

@dataclass
class PgnGame:
    """One game as read from PGN: tags, the main line in SAN and as moves, the result."""

    number: int                     # 1-based position in the file
    line: int                       # line where the game starts
    tags: dict[str, str] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)            # SAN, as python-chess writes it
    uci_moves: list[chess.Move] = field(default_factory=list)
    result: str = "*"
    source: str = ""
    final_comment: str = ""         # the comment after the last move (plyground writes the reason there)
    notes: list[MoveNote | None] = field(default_factory=list)   # each move's NAGs and comment, if any has one

    @property
    def fen(self) -> str:
        """The start position: the FEN tag, or the initial position."""
        return self.tags.get("FEN", chess.STARTING_FEN)

    def replay(self, game=None):
        """The final ChessState after the main line.

        ``game`` defaults to chess with the claimable draws off (recorded games
        may go on past a threefold repetition nobody claimed).
        """
        if game is None:
            from .game import ChessGame
            game = ChessGame(repetitions=0, no_progress_plies=0)
        state = game.new_state(self.fen)
        for move in self.uci_moves:
            state.apply(move)
        return state

    def to_record(self) -> GameRecord:
        """As a plyground GameRecord (players from the White/Black tags)."""
        result = self.result if self.result in RESULTS else "*"
        returns = RESULTS[result]
        skip = {"White", "Black", "Result", "FEN", "SetUp"}
        return GameRecord(game="chess", players=(self.tags.get("White", "?"), self.tags.get("Black", "?")),
                          start=chess.Board(self.fen).fen(), moves=list(self.moves),
                          returns=returns or (0.0, 0.0), finished=returns is not None,
                          reason=self.final_comment or self.tags.get("Termination", ""),
                          tags={k: v for k, v in self.tags.items() if k not in skip}, notes=list(self.notes))


class _Lines:
    """A text handle for chess.pgn.read_game that knows the number of the line last read."""

    def __init__(self, text: str) -> None:
        self._lines = text.splitlines(keepends=True)
        self.line = 0
        self._end_movetext = False
        self.skipped_after: int | None = None   # the last line read before skip_movetext, for this game
        self._previous = ""                     # the line last returned
        self._in_comment = False                # whether a '{' comment is open after it

    def readline(self) -> str:
        if self._end_movetext:         # a blank line: python-chess ends the game there
            self._end_movetext = False
            self._previous = "\n"
            return "\n"
        if self.line < len(self._lines):
            text = self._lines[self.line]
            if text.startswith("[") and not self._in_comment and self._previous.strip() \
                    and self._previous[:1] not in "[;%":
                # A tag line straight after movetext starts the next game: python-chess would read its tags as
                # this game's movetext and lose them, so this game ends here, as at a blank line.
                self._previous = "\n"
                return "\n"
            self.line += 1
            self._previous = text
            if self._in_comment or "{" in text:
                self._in_comment = _comment_left_open(text, self._in_comment)
            return text
        return ""

    def skip_to_next_tags(self) -> None:
        """Leave the rest of a game python-chess failed on: the next read returns the next tag line."""
        while self.line < len(self._lines) and not self._lines[self.line].lstrip().startswith("["):
            self.line += 1

    def skip_movetext(self) -> None:
        """Leave the rest of this game's movetext unread: the next read ends the game (its remaining
        moves are not wanted).  Not while the line being read opens a comment it does not close:
        python-chess would read the following lines as the comment (the caller asks again later)."""
        if self._in_comment:
            return
        if self.skipped_after is None:
            self.skipped_after = self.line
        while self.line < len(self._lines) and not self._lines[self.line].isspace() \
                and not self._lines[self.line].lstrip().startswith("["):
            self.line += 1
        self._end_movetext = True


def _comment_left_open(line: str, open_before: bool) -> bool:
    """Whether a '{' comment is still open at the end of ``line`` (``open_before``: one was at its start)."""
    inside = open_before
    for char in re.findall(r"[{};]", line):
        if inside:
            inside = char != "}"
        elif char == "{":
            inside = True
        elif char == ";":
            return False                 # the rest of the line is a comment of its own
    return inside


class _Builder(chess.pgn.GameBuilder):
    """python-chess's game builder, noting the line of every error instead of logging it."""

    def __init__(self, lines: _Lines, plies: int | None = None) -> None:
        super().__init__()
        self._lines = lines
        self._plies = plies
        self._main_line = 0         # main-line moves read so far
        self.start_line = 0
        self.failures: list[tuple[int, str]] = []

    def begin_game(self) -> None:
        self.start_line = self._lines.line
        super().begin_game()

    def parse_san(self, board: chess.Board, san: str) -> chess.Move:
        if self._plies is not None:
            if self._main_line >= self._plies:
                # Past the moves wanted: the rest of the game is skipped unread (reading SAN is most of the
                # time python-chess takes over a game); a null move stands in for the moves left on this
                # line, and the reader drops them.
                self._lines.skip_movetext()
                return chess.Move.null()
            if len(self.variation_stack) == 1:
                self._main_line += 1
        try:
            move = board.parse_san(san)
        except ValueError as exc:
            raise ValueError(_describe_bad_move(board, san, exc)) from None
        if not move:  # parse_san gives legal moves only, and the null move ("--"), not a move in a real game
            raise ValueError(_describe_bad_move(board, san, chess.IllegalMoveError(san)))
        return move

    def end_variation(self) -> None:
        # After a bad main-line move python-chess skips the rest as if it were a variation, and a ')'
        # then "closes" it: popping the game itself would crash the next NAG or move (IndexError).
        if len(self.variation_stack) > 1:
            super().end_variation()

    def handle_error(self, error: Exception) -> None:
        self.failures.append((self._lines.line, str(error)))
        self.game.errors.append(error)


def _describe_bad_move(board: chess.Board, san: str, error: Exception) -> str:
    number = f"{board.fullmove_number}{'.' if board.turn == chess.WHITE else '...'}"
    if isinstance(error, chess.AmbiguousMoveError):
        why = "is ambiguous"
    elif isinstance(error, chess.IllegalMoveError):
        why = "is not legal"
    else:
        why = "cannot be read as a move"
    return f"move {number} {san} ({notation.side_name(board.turn)}) {why} in {board.fen()}"


class PgnReader(RecordTextReader):
    """Iterates over the games of PGN text; see the module docstring for ``strict``."""

    format_name = "PGN"
    looks_like = 'tag pairs such as [White "..."] and moves such as 1. e4 e5'

    def __init__(self, text: str, *, strict: bool = True, source: str = "", san: bool = True,
                 plies: int | None = None) -> None:
        super().__init__(text, strict=strict, source=source)
        # san=False leaves every game's ``moves`` (SAN) empty: for readers that need only ``uci_moves``,
        # such as a trainer reading 60,000 games, it saves writing each move out again (a third of the time).
        self.san = san
        # plies=N reads only each game's first N main-line moves (a game's ``moves`` hold those alone): for
        # openings cut from a large file, which would otherwise spend minutes reading moves never used.
        self.plies = plies
        self._lines: _Lines | None = None

    @property
    def fraction_read(self) -> float:
        """How far the iteration has come through the text, 0..1 (for progress lines)."""
        if self._lines is None:
            return 0.0
        return self._lines.line / max(1, len(self._lines._lines))

    def __iter__(self) -> Iterator[PgnGame]:
        lines = self._lines = _Lines(self.text)
        number = 0
        while True:
            builder = _Builder(lines, self.plies)
            lines.skipped_after = None
            number += 1
            try:
                game = chess.pgn.read_game(lines, Visitor=lambda: builder)
                if game is None:
                    return
                problem = self._problem(game, builder) or _movetext_problem(lines, builder.start_line, game)
                converted = None if problem else self._convert(game, number, builder.start_line)
            except Exception as exc:  # noqa: BLE001 - python-chess's own failures are this file's errors
                problem = builder.failures[0] if builder.failures else (lines.line, _crash_text(exc))
                lines.skip_to_next_tags()
            if problem is not None:
                error = PgnError(problem[1], number, problem[0], self.source)
                if self.strict:
                    raise error
                self.errors.append(error)
                continue
            yield converted

    @staticmethod
    def _problem(game: chess.pgn.Game, builder: _Builder) -> tuple[int, str] | None:
        problem = _game_type_problem(game)
        if problem:
            return builder.start_line, problem
        variant = game.headers.get("Variant", "Standard")
        if variant.lower() not in ("standard", "chess", "normal", "from position", "from_position"):
            return builder.start_line, f"variant {variant!r} is not standard chess"
        if "FEN" in game.headers:
            try:
                notation.parse_fen(game.headers["FEN"])
            except PositionError as exc:
                return builder.start_line, f"bad FEN tag: {exc}"
        if builder.failures:
            return builder.failures[0]
        if game.board().chess960:
            return builder.start_line, "Chess960 castling rights: only standard chess is supported"
        return None

    def _convert(self, game: chess.pgn.Game, number: int, line: int) -> PgnGame:
        tags = {name: _UNESCAPE.sub(r"\1", value) for name, value in game.headers.items()}
        moves = list(game.mainline_moves())
        if self.plies is not None:
            moves = moves[:self.plies]
        sans, notes = [], []
        if self.san:
            board = game.board()
            for move, node in zip(moves, game.mainline()):
                sans.append(board.san(move))
                board.push(move)
                notes.append(MoveNote.read(sorted(node.nags), [node.comment]))
        result = tags.get("Result", "*").strip()
        comment = " ".join(game.end().comment.split())   # format_record writes the reason there
        return PgnGame(number=number, line=line, tags=tags, moves=sans, uci_moves=moves,
                       result=result if result in RESULTS else "*", source=self.source,
                       final_comment=comment, notes=notes if any(notes) else [])


def _game_type_problem(game: chess.pgn.Game) -> str:
    """Why the game's GameType tag (PDN's, which PGN files may carry) says it is not chess; "" when it is."""
    game_type = (game.headers.get("GameType", "") or "0").split(",")[0].strip()
    return "" if game_type in ("", "0") else f"GameType {game.headers['GameType']!r} is not chess (0)"


def _movetext_problem(lines: _Lines, start: int, game: chess.pgn.Game) -> tuple[int, str] | None:
    """What makes the game python-chess just read from ``lines`` (from line ``start``) not a PGN game: text
    in its movetext that is no move, number, comment, NAG or result, or neither a tag nor a move at all;
    None when it is one."""
    read = lines._lines[max(0, start - 1):lines.skipped_after or lines.line]    # the lines python-chess read
    first = 0
    while first < len(read) and (not read[first].strip() or read[first].lstrip()[:1] in "[%;"):
        first += 1
    movetext = "".join(read[first:])
    if _LETTER_OR_DIGIT.search(_MOVETEXT.sub("", movetext)):
        pos = 0
        while pos < len(movetext):
            match = _MOVETEXT.match(movetext, pos)
            if match is not None and match.end() > pos:
                pos = match.end()
            elif _LETTER_OR_DIGIT.match(movetext, pos):
                break
            else:
                pos += 1                 # a sign that is no token: let pass
        begin, end = pos, pos            # the word it is in, whole
        while begin > 0 and not movetext[begin - 1].isspace():
            begin -= 1
        while end < len(movetext) and not movetext[end].isspace():
            end += 1
        line = start + first + movetext.count("\n", 0, pos)
        return line, (f"cannot read {clip(movetext[begin:end], 40)!r}: expected a move such as e4 or Nf3, a move "
                      f"number, a comment or a result")
    if not any(_TAG_PAIR.match(text) for text in read) and next(iter(game.mainline_moves()), None) is None \
            and not _RESULT.search(_COMMENTS.sub(" ", movetext)):
        return start, "it has neither tag pairs such as [White \"...\"] nor moves nor a result"
    return None


def _crash_text(exc: Exception) -> str:
    return f"python-chess cannot read this game ({type(exc).__name__}: {exc}); check the movetext near this line"


def recognizes(head: str) -> bool:
    """Whether ``head`` begins with a chess PGN game: its GameType (if any) is chess, its FEN (if any) a chess
    position, its movetext moves such as e4 (their legality is the reader's to judge: a chess game with a bad
    move is still chess), and it has tags or moves (the RecordRecognizer ability)."""
    lines = _Lines(head)
    builder = _Builder(lines, plies=8)
    try:
        game = chess.pgn.read_game(lines, Visitor=lambda: builder)
        if game is None or _game_type_problem(game):
            return False
        if "FEN" in game.headers:
            notation.parse_fen(game.headers["FEN"])
    except Exception:  # noqa: BLE001 - whatever python-chess or the FEN fails on: not a chess game
        return False
    return _movetext_problem(lines, builder.start_line, game) is None


#: A reader over PGN: a Path (read as a file) or the PGN text itself.
read_pgn = PgnReader.over
#: Every game of a PGN file or text as GameRecords (strict by default: the first error raises).
read_records = PgnReader.records
