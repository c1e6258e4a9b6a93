"""Writing game records in each game's own format: atomically, or appended game by game.

A file named by ``--save`` is checked before any game is played
(:func:`check_save_path`) and then grows by one game as each finishes
(:class:`RecordAppender`: append, flush, fsync), so Ctrl-C, a crash or a full
disk keep every finished game.  An existing file is appended to only if it
already holds records of the same game in the same format.
"""
from __future__ import annotations

import importlib
import os
import re
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ..errors import PlygroundError, RecordError, UsageError
from ..capabilities import record_reader
from ..protocols import Game, GameRecord
from .atomic import atomic_write_text, check_regular_file, describe_os_error
from .storage import parse_json


#: The fields every game record in JSON holds (:meth:`GameRecord.to_json` writes more, which may be left out).
RECORD_FIELDS = ("game", "players", "start", "moves", "returns")


def record_from_json(data: dict) -> GameRecord:
    """The GameRecord whose :meth:`~GameRecord.to_json` gave ``data`` (KeyError/TypeError if it is not one)."""
    return GameRecord(game=data["game"], players=tuple(data["players"]), start=data["start"],
                      moves=list(data["moves"]), returns=tuple(data["returns"]), reason=data.get("reason", ""),
                      finished=data.get("finished", True), tags=dict(data.get("tags") or {}),
                      notes=_notes_from_json(data.get("notes")))


def _notes_from_json(notes) -> list:
    """The ``notes`` an annotated JSON-lines record holds (``plyground analyse`` writes them: each move's NAGs
    and comment), as MoveNotes; what is not one is no note."""
    if not isinstance(notes, list):
        return []
    return [MoveNote.read([nag for nag in note.get("nags") or () if type(nag) is int], [str(note.get("comment") or "")])
            if isinstance(note, dict) and isinstance(note.get("nags") or (), list) else None for note in notes]


def record_date(moment: datetime | None = None) -> str:
    """The ``Date`` tag of a game played at ``moment`` (default: now): its UTC date as PGN and PDN write
    dates, ``YYYY.MM.DD``.  UTC, so games played around midnight on two machines still sort by date."""
    return (moment or datetime.now(timezone.utc)).astimezone(timezone.utc).strftime("%Y.%m.%d")


#: Control characters no text record file holds (tab, newlines, form feed and DOS end-of-file are fine).
_BINARY_BYTES = re.compile(rb"[\x00-\x08\x0e-\x19\x1b-\x1f]")


def read_record_file(path: Path, format_name: str, looks_like: str) -> str:
    """The text of a record file (PGN, PDN): UTF-8, else Latin-1 (old archives; tags and moves are ASCII).

    A file that cannot be read, or holds binary data, raises one RecordError
    naming it; ``looks_like`` tells what ``format_name`` text looks like.
    """
    path = check_regular_file(Path(path), f"{format_name} file", RecordError)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RecordError(f"cannot read {format_name} file {path}: {exc.strerror or exc}") from None
    binary = _BINARY_BYTES.search(data)
    if binary is not None:
        raise RecordError(f"{path} is not a {format_name} file: it holds binary data (byte "
                          f"{data[binary.start()]:#04x} at offset {binary.start()}); {format_name} is text: "
                          f"{looks_like}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


class RecordTextReader:
    """The base of the games' record readers (PDN, PGN): built on record text, opened on a file or on
    text, iterated for the games.  A subclass names its format and what its text looks like, passes
    ``text``, ``strict`` and ``source`` (the file, for messages) on to this ``__init__``, and iterates
    over its games, each with ``to_record()``."""

    #: "PDN", "PGN"
    format_name = ""
    #: What the format's text looks like, for the message about a file that is not text.
    looks_like = ""

    def __init__(self, text: str, *, strict: bool = True, source: str = "") -> None:
        self.text = text[1:] if text.startswith("\ufeff") else text      # a byte-order mark is not text
        #: True: the first bad game raises; False: bad games are skipped, their errors kept in ``errors``.
        self.strict = strict
        self.source = source
        self.errors: list[RecordGameError] = []

    @classmethod
    def from_file(cls, path: str | Path, /, **options):
        text = read_record_file(path, cls.format_name, cls.looks_like)
        options.setdefault("source", str(path))
        return cls(text, **options)

    @classmethod
    def over(cls, given: str | Path, /, **options):
        """A reader over ``given``: a Path (read as a file) or the text itself."""
        return cls.from_file(given, **options) if isinstance(given, Path) else cls(given, **options)

    @classmethod
    def records(cls, given: str | Path, /, **options) -> list[GameRecord]:
        """Every game of ``given`` (as :meth:`over`) as GameRecords (strict unless ``strict=False``: the first
        error raises)."""
        return [game.to_record() for game in cls.over(given, **options)]


class RecordGameError(RecordError):
    """A game of a record file (PGN, PDN) that cannot be read; knows its number in the file and its line."""

    def __init__(self, message: str, game_number: int, line: int, source: str = "") -> None:
        where = f"{source}: " if source else ""
        super().__init__(f"{where}game {game_number}, line {line}: {message}")
        self.game_number = game_number
        self.line = line


#: The marks of PGN's first six NAGs (PDN numbers them alike): ``$1`` ``!`` ... ``$6`` ``?!``.
NAG_MARKS = {1: "!", 2: "?", 3: "!!", 4: "??", 5: "!?", 6: "?!"}
#: The NAG of a mark written after a move (``11-15?``).
MARK_NAGS = {mark: nag for nag, mark in NAG_MARKS.items()}
#: A command embedded in a comment, as lichess and ChessBase write them: ``[%eval +0.35]``, ``[%clk 0:03:00]``.
_COMMENT_COMMAND = re.compile(r"\[%(\w+)\s+([^\]]*)\]")


@dataclass(frozen=True)
class MoveNote:
    """What an annotated record says of one move: its NAGs (``$2`` a mistake, ``$4`` a blunder, ``$6`` a
    dubious move, as PGN numbers them) and a comment written after it."""

    nags: tuple[int, ...] = ()
    comment: str = ""

    @classmethod
    def read(cls, nags, comments) -> "MoveNote | None":
        """The note a reader found after a move (its NAGs and its comments, in order); None when it found none."""
        comment = " ".join(" ".join(comments).split())
        return cls(tuple(nags), comment) if nags or comment else None

    @property
    def marks(self) -> str:
        """The NAGs as marks after the move (``??``); NAGs other than the first six are left out."""
        return "".join(NAG_MARKS.get(nag, "") for nag in self.nags)

    @property
    def evaluation(self) -> str:
        """The ``[%eval ...]`` of the comment (``+0.35``, ``#-3``: from the game's evaluation side); "" if none."""
        found = next((m for m in _COMMENT_COMMAND.finditer(self.comment) if m.group(1) == "eval"), None)
        return found.group(2).strip() if found else ""

    @property
    def remark(self) -> str:
        """The comment's words, without the commands embedded in it (``[%eval ...]``)."""
        return " ".join(_COMMENT_COMMAND.sub(" ", self.comment).split())


def numbered(number: int, mover: int, i: int) -> tuple[int, bool]:
    """How a record numbers the ``i``-th move (0: the first) of alternating moves from a position where side
    ``mover`` (0 or 1) plays move ``number`` (:attr:`State.move_number`): its number, and whether side 0, the
    side that moves first in a game, plays it; the number goes up after side 1's moves."""
    return number + (mover + i) // 2, (mover + i) % 2 == 0


def format_tagged_game(tags: dict, record: GameRecord, moves: Iterable[tuple[int, bool, str]],
                       tag_name: re.Pattern, notes: Sequence[MoveNote | None] | None = None,
                       number_after_comments: bool = True) -> str:
    """One game in the shape PGN and PDN share, ending with a newline.

    ``tags`` come first, then the record's own (names with characters that
    ``tag_name`` matches made ``_``; a tag already given wins); a blank line;
    the moves, each (move number, whether the side that moves first in the
    game plays it, move text), numbered ``12.`` before the first side's move
    and ``12...`` before a game's opening move by the other side; the
    record's reason as a ``{comment}``; the result; wrapped at 79 columns.
    ``notes``, one per move (None: nothing to say), puts each move's NAGs and
    ``{comment}`` after it; with ``number_after_comments`` the move after a
    comment is numbered again (``12...``), as PGN export format asks (PDN
    readers such as pydraughts' take a number written twice for a new move).
    """
    tags = dict(tags)
    for name, value in record.tags.items():
        tags.setdefault(tag_name.sub("_", str(name)) or "_", value)
    lines = [f'[{name} "{_tag_value(value)}"]' for name, value in tags.items()]
    notes = list(notes or ())
    tokens = []
    commented = False
    for i, (number, first_side, text) in enumerate(moves):
        if first_side:
            tokens.append(f"{number}.")
        elif i == 0 or commented:
            tokens.append(f"{number}...")
        tokens.append(text)
        note = notes[i] if i < len(notes) else None
        commented = bool(note and note.comment) and number_after_comments
        if note is not None:
            tokens.extend(f"${nag}" for nag in note.nags)
            if note.comment:
                tokens.append(_comment(note.comment))
    if record.reason:
        tokens.append("{" + record.reason.replace("}", ")").replace("{", "(") + "}")
    tokens.append(record.result_text)
    return "\n".join(lines) + "\n\n" + _wrap(tokens) + "\n"


def _comment(text: str) -> str:
    """``text`` as a ``{comment}`` on one line (braces inside it made parentheses: a comment cannot nest)."""
    return "{" + " ".join(str(text).split()).replace("}", ")").replace("{", "(") + "}"


def _tag_value(value) -> str:
    """A tag value on one line, quotes and backslashes escaped."""
    return " ".join(str(value).split()).replace("\\", "\\\\").replace('"', '\\"')


def _wrap(tokens: list[str], width: int = 79) -> str:
    """Tokens on lines of at most ``width`` characters, never splitting one (a comment stays whole)."""
    lines, current = [], ""
    for token in tokens:
        if current and len(current) + 1 + len(token) > width:
            lines.append(current)
            current = token
        else:
            current = f"{current} {token}" if current else token
    lines.append(current)
    return "\n".join(lines)


class TextRecords:
    """What a game whose records are text in a format of its own (checkers: PDN, chess: PGN) takes from the
    module that writes and recognizes that format (``records_module``: its ``format_records``, ``format_record``
    and ``recognizes``), imported at first use so that the plugins load without it: the game's
    ``format_records``, and its AnnotatedRecords and RecordRecognizer abilities."""

    records_module: str = ""

    def format_records(self, records: Sequence[GameRecord]) -> str:
        """The records as text in the game's format (tags, numbered moves, result)."""
        return self._records().format_records(records)

    def format_annotated_record(self, record: GameRecord, notes) -> str:
        """The AnnotatedRecords ability: one game in the game's format with each move's NAGs and comment
        (``notes``: a :class:`MoveNote` or None a move), as ``plyground analyse`` writes it."""
        return self._records().format_record(record, notes=notes)

    def recognizes_records(self, head: str) -> bool:
        """The RecordRecognizer ability: whether ``head`` begins with a game of this game in its format."""
        return self._records().recognizes(head)

    def _records(self):
        return importlib.import_module(self.records_module)


def write_records(game: Game, records: Sequence[GameRecord], path: Path, append: bool = False) -> None:
    """Write ``records`` to ``path`` atomically (after what it holds, with ``append``)."""
    text = game.format_records(records)
    path = check_regular_file(Path(path), "record file")
    if append and path.exists():
        previous = path.read_text(encoding="utf-8")
        if previous and not previous.endswith("\n"):
            previous += "\n"
        text = previous + (_separator(game) if previous.strip() else "") + text
    atomic_write_text(path, text)


def saved_records_reader(game: Game) -> Callable[[str], list[GameRecord]] | None:
    """The reader of the record files plyground writes for ``game``: the game's own (PDN, PGN), else, for a
    game whose records are the default JSON lines (``.jsonl``), the JSON-lines reader; None when neither."""
    return record_reader(game) or (_read_json_lines if game.record_suffix == ".jsonl" else None)


def format_name(game: Game) -> str:
    """The record format in words: "PDN", "PGN", "JSON lines"."""
    suffix = game.record_suffix.lstrip(".")
    return "JSON lines" if suffix == "jsonl" else suffix.upper()


def _separator(game: Game) -> str:
    """What the game's format puts between two records (a blank line for PDN/PGN, nothing for JSON lines)."""
    probe = GameRecord(game=game.name, players=("a", "b"), start=game.new_initial_state().to_text())
    one, two = game.format_records([probe]), game.format_records([probe, probe])
    if two.startswith(one) and two.endswith(one) and len(two) >= 2 * len(one):
        return two[len(one):len(two) - len(one)]
    return "\n"


# --------------------------------------------------------------------------- checks before any game


def check_save_path(game: Game, path: Path, flag: str = "--save") -> Path:
    """Refuse, before any game is played, a save path that cannot take this game's records.

    The folder must exist and be writable; an existing file must be a file of
    this game's records in its format (it is appended to); anything else is
    refused with one line naming the path and what would be valid.
    """
    path = Path(path).expanduser()
    where = f"{flag} {path}"
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise UsageError(f"{where} is a directory; give a file name such as {path / ('games' + game.record_suffix)}")
    check_regular_file(path, flag)
    if not parent.exists():
        raise UsageError(f"{where}: the folder {parent} does not exist")
    if not parent.is_dir():
        raise UsageError(f"{where}: {parent} is not a folder")
    if path.exists():
        _check_same_format(game, path, where)
    _probe_writable(path, where)
    return path


def _check_same_format(game: Game, path: Path, where: str) -> None:
    kind = f"a {format_name(game)} file of {game.name} games"
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{where} exists and is not a text file; give a new file or {kind} to append to") from None
    except OSError as exc:
        raise UsageError(f"{where}: cannot read it ({describe_os_error(exc)})") from None
    if not text.strip():
        return
    reader = saved_records_reader(game) or _read_json_lines
    try:
        records = reader(text)
    except (PlygroundError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{where} exists and is not {kind} ({exc}); give a new file or {kind} to append to") from None
    if not records or any(r.game != game.name for r in records):
        raise UsageError(f"{where} exists and is not {kind}; give a new file or {kind} to append to")


def _read_json_lines(text: str) -> list[GameRecord]:
    """The records of a JSON-lines file as the default ``format_records`` writes them."""
    records = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                data = parse_json(line)
                if not isinstance(data, dict):
                    raise TypeError("it is not a JSON object")
                records.append(record_from_json(data))
            except (ValueError, KeyError, TypeError) as exc:
                why = f"it has no {exc.args[0]!r}" if isinstance(exc, KeyError) else str(exc)
                raise ValueError(f"line {lineno} is not a game record ({why}); each line is a JSON object with "
                                 f"{', '.join(RECORD_FIELDS)}, as plyground writes them") from None
    return records


def _probe_writable(path: Path, where: str) -> None:
    """Open the file for appending (creating nothing that was not there) to prove it can be written."""
    existed = path.exists()
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise UsageError(f"{where}: cannot write there ({describe_os_error(exc)})") from None
    finally:
        if not existed and path.exists() and path.stat().st_size == 0:
            path.unlink()


def check_output_dir(path: Path, flag: str, is_ours: Callable[[Path], bool]) -> Path:
    """Refuse, before any work, an output folder that cannot be written or holds someone else's files.

    ``is_ours(path)`` says whether an existing, non-empty folder is one this
    command wrote (it is then resumed or extended); any other non-empty folder
    is refused, so nothing the user keeps there is overwritten.
    """
    path = Path(path).expanduser()
    where = f"{flag} {path}"
    if path.exists() and not path.is_dir():
        raise UsageError(f"{where} is a file, not a folder")
    ancestor = path
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise UsageError(f"{where}: {ancestor} is a file, not a folder")
    if path.is_dir() and any(path.iterdir()) and not is_ours(path):
        raise UsageError(f"{where} holds files plyground did not write; give a new or empty folder "
                         f"(or one an earlier run of this command wrote)")
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".write-probe.")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UsageError(f"{where}: cannot write there ({describe_os_error(exc)})") from None
    return path


# --------------------------------------------------------------------------- appending game by game

class RecordAppender:
    """Appends each finished game to a record file at once: write, flush, fsync.

    Check the path with :func:`check_save_path` first.  A full disk raises a
    UsageError naming the file; the games appended before it stay intact.
    """

    def __init__(self, game: Game, path: Path) -> None:
        self.game = game
        self.path = Path(path).expanduser()
        self.count = 0
        self._separator = _separator(game)

    def append(self, record: GameRecord) -> None:
        check_regular_file(self.path, "record file")
        data = self.game.format_records([record]).encode("utf-8")
        size = None
        written = False
        try:
            with open(self.path, "ab+") as handle:
                size = handle.seek(0, os.SEEK_END)
                if size:
                    handle.seek(size - 1)
                    newline = b"" if handle.read(1) == b"\n" else b"\n"
                    data = newline + self._separator.encode("utf-8") + data
                written = handle.write(data) == len(data)   # one write: Ctrl-C cannot land inside a game
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            written = False
            if size is not None:
                _cut_back(self.path, size)   # no half-written game at the end of the file
            raise UsageError(f"cannot write game {self.count + 1} to {self.path}: {describe_os_error(exc)}; "
                             f"the {self.count} game(s) written before it are kept") from None
        finally:
            if written:     # counted even when Ctrl-C lands after the write, so the count matches the file
                self.count += 1


def _cut_back(path: Path, size: int) -> None:
    try:
        os.truncate(path, size)
    except OSError:
        pass  # the disk refused the cut too; the reader reports the torn game by its number
