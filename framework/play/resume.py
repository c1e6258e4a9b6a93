"""Saving a game in the middle and playing it on later (``save`` at the prompt, ``plyground play --resume``).

A saved game is an ordinary record in the game's own format (PGN, PDN, JSON
lines) with the result ``*`` of a game still going on, so other programs read
it too.  Resuming reads the last unfinished game of the file, replays its
moves from its start position -- each one checked, so a hand-edited file
fails on the move that is wrong -- and play goes on from there.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterator, Sequence

from ..errors import MoveError, PlygroundError, PositionError, RecordError, UsageError
from ..protocols import Game, GameRecord, State
from ..capabilities import RECOGNIZED_HEAD, recognizes_records
from ..files.recordio import format_name, read_record_file, saved_records_reader, write_records
from ..files.storage import parse_json
from ..util.wording import counted

#: The environment variable that moves the saved-games folder (tests point it at a temporary one).
SAVES_VARIABLE = "PLYGROUND_GAMES"


def saves_folder() -> Path:
    """The one folder for saved games: ``$PLYGROUND_GAMES``, else ``~/plyground-games``."""
    return Path(os.environ.get(SAVES_VARIABLE) or "~/plyground-games").expanduser()


def saves_folder_words() -> str:
    """The saved-games folder as messages name it (``~/plyground-games``; with the variable that set it)."""
    folder = saves_folder()
    try:
        shown = str(Path("~") / folder.resolve().relative_to(Path.home().resolve()))
    except ValueError:
        shown = str(folder)
    return f"{shown}, from ${SAVES_VARIABLE}" if os.environ.get(SAVES_VARIABLE) else shown


class WouldReplace(UsageError):
    """Saving would replace a file that holds something else than an earlier state of the game being saved."""

    def __init__(self, path: Path, holds: str) -> None:
        super().__init__(f"{path} already {holds}; saving would replace it")
        self.path, self.holds = path, holds


def game_so_far(record: GameRecord, saved: bool = True) -> GameRecord:
    """A copy of the record of a game still being played, marked unfinished (result ``*``); its reason says
    it was saved before its end, or (``saved`` false: shown, not written) that it goes on."""
    plies = counted(len(record.moves), "ply", "plies")
    reason = f"saved before its end, after {plies}" if saved else f"still being played, after {plies}"
    return GameRecord(game=record.game, players=tuple(record.players), start=record.start, moves=list(record.moves),
                      returns=(0.0, 0.0), finished=False, reason=reason, tags=dict(record.tags))


def save_unfinished(game: Game, record: GameRecord, path: Path | None = None, *, replace: bool = False) -> Path:
    """Write the game being played (``record``, as the match runner keeps it) unfinished, result ``*``, to
    ``path`` (default :func:`default_save_path`) atomically; returns the path.

    The file holds just this game, so ``--resume`` finds it whatever was saved before.  A file that holds
    only an earlier state of this game (saved before, or the file it was resumed from) is brought up to
    date; one that holds anything else raises :class:`WouldReplace` unless ``replace`` (the user said
    yes).  A folder, a missing folder (other than the saved-games one), something that is not a regular
    file, or a file that is not this game's records is refused with a UsageError naming it.
    """
    path = Path(path or default_save_path(game)).expanduser()
    holds = what_saving_replaces(game, record, path)
    if holds and not replace:
        raise WouldReplace(path, holds)
    write_records(game, [game_so_far(record)], path)
    return path


def keep_unfinished(game: Game, record: GameRecord, folder: Path | None = None) -> Path:
    """An automatic save (Ctrl-C): the game so far in ``folder`` (default: the saved-games folder), one file
    a game: ``checkers-saved.pdn`` or the first of ``checkers-saved-2.pdn``, ... that is free or holds an
    earlier state of this very game, which is brought up to date (a second Ctrl-C in the same game writes
    no second file) -- never over another game; returns the path."""
    return save_beside(game, record, default_save_path(game, folder))


def what_saving_replaces(game: Game, record: GameRecord, path: Path) -> str:
    """What saving ``record`` to ``path`` would lose, in words ("holds 3 checkers games"); "" when
    nothing: no file there, an empty one, or one holding only an earlier state of this very game.  A
    place no saved game can go raises a UsageError naming it and what would be valid."""
    example = f"{game.name}-game{game.record_suffix}"
    if path.is_dir():
        raise UsageError(f"{path} is a folder; give a file name such as {path / example}")
    parent = path.parent
    if parent.exists() and not parent.is_dir():
        if parent.resolve() == saves_folder().resolve():
            raise UsageError(f"cannot save to {path}: the saved-games folder ({saves_folder_words()}) is a file; point "
                             f"${SAVES_VARIABLE} at a folder, or unset it for ~/plyground-games")
        raise UsageError(f"cannot save to {path}: {parent} is a file, not a folder; give a file name in a folder")
    if not parent.exists() and parent.resolve() != saves_folder().resolve():
        raise UsageError(f"cannot save to {path}: the folder {parent} does not exist (create it first, or give "
                         f"a bare name such as {example} to save in the current folder)")
    if not path.exists():
        return ""
    kind = f"a {format_name(game)} file of {game.name} games"
    if not path.is_file():
        raise UsageError(f"cannot save to {path}: it is not a regular file (a pipe, device or socket); "
                         f"give a new file name or {kind}")
    reader = saved_records_reader(game)
    try:
        text = read_record_file(path, format_name(game), kind)
        records = reader(text) if reader is not None and text.strip() else []
    except (PlygroundError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"cannot save to {path}: it is not {kind} ({exc}); give a new file name") from None
    if not text.strip():
        return ""
    if reader is None:
        return "exists"
    if not records:
        raise UsageError(f"cannot save to {path}: it holds no {game.name} game, so it is not {kind}; "
                         f"give a new file name")
    if len(records) == 1 and _earlier_state_of(records[0], record):
        return ""
    others = [r for r in records if r.game == game.name]
    return f"holds {len(others)} other {game.name} game{'s' if len(others) != 1 else ''}" \
        if len(others) == len(records) else f"holds {len(records)} games"


def _earlier_state_of(saved: GameRecord, record: GameRecord) -> bool:
    """Whether ``saved`` is ``record`` as it was some plies ago (same start and players, its moves a prefix)."""
    changes = str(record.tags.get(GameRecord.PLAYER_CHANGES, ""))     # played on by another player since
    return (not saved.finished and (saved.start or None) == (record.start or None)
            and all(then == now or f"(was {then})" in changes for then, now in zip(saved.players, record.players))
            and list(record.moves[:len(saved.moves)]) == list(saved.moves))


def numbered_path(path: Path) -> Path:
    """``path`` if nothing is there, else the first free ``stem-2.ext``, ``stem-3.ext``, ..."""
    path = Path(path)
    for candidate in _numbered(path):
        if not (candidate.exists() or candidate.is_symlink()):
            return candidate


def save_beside(game: Game, record: GameRecord, path: Path) -> Path:
    """Save as :func:`save_unfinished` does, to ``path`` or, when that holds anything else, to the first
    of ``stem-2.ext``, ``stem-3.ext``, ... that is free or holds an earlier state of this game (so saving
    again updates the same file); returns the path written."""
    for candidate in _numbered(Path(path).expanduser()):
        try:
            return save_unfinished(game, record, candidate)
        except UsageError:
            if not (candidate.exists() or candidate.is_symlink()):
                raise                # not a name taken by something else: a folder that is missing


def _numbered(path: Path):
    """``path``, then ``stem-2.ext``, ``stem-3.ext``, ... without end."""
    yield path
    number = 2
    while True:
        yield path.with_name(f"{path.stem}-{number}{path.suffix}")
        number += 1


def _is_numbered(candidate: Path, path: Path) -> bool:
    """Whether ``candidate`` is one of the names :func:`_numbered` gives for ``path``."""
    if candidate.name == path.name:
        return True
    stem, _, number = candidate.name[:len(candidate.name) - len(path.suffix)].rpartition("-")
    return (candidate.name.endswith(path.suffix) and stem == path.stem and number.isascii() and number.isdigit()
            and int(number) >= 2 and str(int(number)) == number)


def default_save_path(game: Game, folder: Path | None = None) -> Path:
    """``checkers-saved.pdn`` and the like, in ``folder`` (default: the saved-games folder)."""
    return Path(folder or saves_folder()) / f"{game.name}-saved{game.record_suffix}"


def saved_games(game: Game, folders: Sequence[Path] | None = None) -> list[Path]:
    """The files automatic and default saves of ``game`` wrote (``checkers-saved.pdn``,
    ``checkers-saved-2.pdn``, ...) in ``folders`` (default: the saved-games folder, then the current
    one), newest first.  Those names only: ``checkers-saved.analysed.pdn`` is ``plyground analyse``'s
    report on a saved game, not a game to play on."""
    found: dict[Path, Path] = {}
    for folder in folders if folders is not None else (saves_folder(), Path(".")):
        try:
            paths = list(Path(folder).glob(f"{game.name}-saved*{game.record_suffix}"))
        except OSError:
            continue
        for path in paths:
            if _is_numbered(path, default_save_path(game, Path(folder))) and path.is_file():
                found.setdefault(path.resolve(), path)
    return sorted(found.values(), key=lambda p: p.stat().st_mtime_ns, reverse=True)


def recent_record_files(game: Game, folders: Sequence[Path], count: int) -> list[Path]:
    """The ``count`` newest record files of ``game`` (its record suffix) in ``folders``, newest first: what the
    start pages' Open game lists."""
    seen: dict[Path, float] = {}
    for folder in folders:
        try:
            for path in Path(folder).glob(f"*{game.record_suffix}"):
                if path.is_file():
                    seen[path.resolve()] = path.stat().st_mtime
        except OSError:
            continue
    return sorted(seen, key=lambda p: -seen[p])[:count]


def newest_unfinished(game: Game, paths: Sequence[Path]) -> tuple[Path, GameRecord] | None:
    """The first of ``paths`` (newest first, as :func:`saved_games` lists them) that holds an unfinished
    ``game`` to play on, with that game; None when none does (a file that is not one is passed over)."""
    for path in paths:
        try:
            return path, load_unfinished(game, path)
        except (PlygroundError, OSError):
            continue
    return None


def locate_saved(path: Path, doing: str = "resume from") -> Path:
    """The file ``--resume NAME`` (or ``--review NAME``) means: NAME as given (from the current folder), else
    NAME in the saved-games folder; a RecordError ("cannot ``doing`` NAME: ...") saying where it looked when
    neither holds it."""
    path = Path(path).expanduser()
    if path.exists():
        return path
    if path.is_absolute():
        raise RecordError(f"cannot {doing} {path}: no such file")
    in_saves = saves_folder() / path
    if in_saves.exists():
        return in_saves
    raise RecordError(f"cannot {doing} {path}: no such file in the current folder ({Path.cwd()}) or the "
                      f"saved-games folder ({saves_folder_words()}); save a game with 'save' at the move prompt "
                      f"or the window's Save button")


def resume_argument(path: Path) -> str:
    """What to give ``--resume`` for ``path``: its bare name when it is in the saved-games folder (found
    from anywhere), else the path."""
    path = Path(path)
    try:
        in_saves = path.parent.resolve() == saves_folder().resolve()
    except OSError:
        in_saves = False
    bare = Path(path.name)
    if in_saves and (not bare.exists() or bare.resolve() == path.resolve()):   # --resume looks here first
        return path.name
    return str(path)


def kept_words(path: Path) -> str:
    """What the terminal is told of a game kept unfinished in ``path`` when it ended before its end (Ctrl-C,
    'quit', a window or page closed mid-game): the file, and how to play it on."""
    return f"The game so far is saved in {path}; plyground play --resume {resume_argument(path)} plays it on."


def read_game_file(game: Game, path: Path, reader: Callable[[str], list[GameRecord]],
                   doing: str = "resume from") -> tuple[Path, list[GameRecord]]:
    """The file ``path`` means (:func:`locate_saved`) and the ``game`` records ``reader`` reads in it: at least
    one, every one of ``game``; otherwise one RecordError, "cannot ``doing`` PATH: why"."""
    kind = format_name(game)
    path = locate_saved(Path(path).expanduser(), doing)
    if not path.is_file():
        raise RecordError(f"cannot {doing} {path}: it is not a regular file")
    text = read_record_file(path, kind, f"a {kind} file written by plyground")
    try:
        records = reader(text)
    except (RecordError, ValueError, KeyError, TypeError) as exc:   # JSON lines: a ValueError naming the line
        raise RecordError(f"cannot {doing} {path}: {exc}") from None
    if not records:
        raise RecordError(f"cannot {doing} {path}: it holds no {game.name} game in {kind}")
    strangers = sorted({r.game for r in records if r.game != game.name})
    if strangers:
        raise RecordError(f"cannot {doing} {path}: it holds {', '.join(strangers)} games, not {game.name} ones; "
                          f"give --game {strangers[0]}")
    return path, records


def load_unfinished(game: Game, path: Path) -> GameRecord:
    """The last unfinished game in the record file ``path`` (RecordError naming the file otherwise)."""
    reader = saved_records_reader(game)
    if reader is None:
        raise UsageError(f"{game.name} cannot read its records back, so its games cannot be resumed")
    path, records = read_game_file(game, path, reader)
    unfinished = [r for r in records if not r.finished]
    if not unfinished:
        raise RecordError(f"cannot resume from {path}: its {len(records)} game(s) all ended; only a game saved "
                          f"before its end (result '*') can be played on")
    return unfinished[-1]


def replay(game: Game, record: GameRecord, source: str = "") -> tuple[State, list[int]]:
    """The position after ``record``'s moves and the side that made each (a side may move twice in a row)."""
    state, movers = None, []
    for state, mover in replayed(game, record, source):
        if mover is not None:
            movers.append(mover)
    return state, movers


class PastTheEnd(RecordError):
    """A record whose moves go on after the game ended under the rules replaying it (an automatic draw the
    recorded players played past)."""


def replayed(game: Game, record: GameRecord, source: str = "") -> Iterator[tuple[State, int | None]]:
    """``record``'s start position (mover None), then the position after each of its moves with the side that
    made it: one live State, changed in place (clone what you keep).  Each move is checked: one that cannot be
    read or played raises a RecordError naming it, one after the end of the game :class:`PastTheEnd`."""
    where = f"{source}: " if source else ""
    try:
        state = game.new_state(record.start) if record.start else game.new_initial_state()
    except (PositionError, ValueError) as exc:
        raise RecordError(f"{where}the saved start position cannot be read: {exc}") from None
    yield state, None
    for number, text in enumerate(record.moves, start=1):
        if state.is_terminal():
            raise PastTheEnd(f"{where}move {number} ({text}) comes after the end of the game "
                              f"({state.outcome_reason()})")
        try:
            move = state.parse_move(text)
        except MoveError as exc:
            raise RecordError(f"{where}move {number} ({text}) cannot be played: {exc}") from None
        mover = state.current_player()
        state.apply(move)
        yield state, mover


def game_of_record_file(registry, path: Path) -> str:
    """The game whose records ``path`` holds, told by what it holds (:func:`games_recognising`: a checkers game
    saved as ``x.pgn`` is checkers); by the suffix (``.pgn`` chess, ``.pdn`` checkers) only when the content
    does not tell (no game recognises it, as notes or a broken file: that game's reader then says what is
    wrong), or among the games that recognise it when several do."""
    path = Path(path).expanduser()
    suffix = path.suffix.lower()
    claimed = games_recognising(registry, path)
    if len(claimed) == 1:
        return claimed[0]
    games = [name for name in claimed or registry.names("games") if registry.make_game(name).record_suffix == suffix]
    if len(games) == 1:
        return games[0]
    if claimed:
        raise UsageError(f"cannot tell which game {path} holds: it reads as a game of {' and of '.join(claimed)}; "
                         f"add --game (e.g. --game {claimed[0]})")
    raise UsageError(f"cannot tell which game {path} holds from what it holds or its suffix "
                     f"{suffix or '(none)'!r}; add --game (e.g. --game {registry.default_game()})")


def games_recognising(registry, path: Path) -> list[str]:
    """The games whose records ``path`` begins with, by its content alone: the installed game a JSON-lines
    record names, else every game that recognises its first lines (the RecordRecognizer ability); [] when
    the content does not tell (or the file cannot be read)."""
    path = Path(path).expanduser()
    names = registry.names("games")
    held = _json_lines_game(path)
    if held in names:
        return [held]
    head = _head(path)
    return [name for name in names if recognizes_records(registry.make_game(name), head)] if head else []


def _head(path: Path) -> str:
    """The first whole lines of ``path`` (up to RECOGNIZED_HEAD characters); "" when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(RECOGNIZED_HEAD)
    except OSError:
        return ""
    if len(data) == RECOGNIZED_HEAD:
        data = data[:data.rfind(b"\n") + 1]
    return data.decode("utf-8", errors="replace")


#: The longest first line read as a JSON-lines record to learn its game (a record holds a whole game).
_JSON_LINE_LIMIT = 64 * 2**20


def _json_lines_game(path: Path) -> str | None:
    """The ``game`` of the JSON-lines record ``path`` begins with, if it begins with one."""
    try:
        with open(path, "rb") as handle:
            line = handle.readline(_JSON_LINE_LIMIT)
            while line and not line.strip():
                line = handle.readline(_JSON_LINE_LIMIT)
    except OSError:
        return None
    if not line.lstrip().startswith(b"{"):
        return None
    try:
        held = parse_json(line.decode("utf-8", errors="replace"))["game"]
    except (ValueError, KeyError, TypeError):
        return None
    return held if isinstance(held, str) and held else None


def check_resumed_game(registry, path: Path, game: Game, flag: str = "--resume", doing: str = "play it on") -> None:
    """Refuse to resume (``flag`` ``--review``: review) ``path`` as ``game`` (an explicit ``--game``) when what
    the file holds is recognised as another game's records: one UsageError naming the file, the game it holds
    and the game asked for.  A file no game recognises is left to ``game``'s reader to judge."""
    claimed = games_recognising(registry, path)
    if not claimed or game.name in claimed:
        return
    held = claimed[0] if len(claimed) == 1 else " or ".join(claimed)
    raise UsageError(f"{flag} {path} holds a {held} game, not {game.name} (--game {game.name}); leave out "
                     f"--game to {doing} as {claimed[0]}, or give --game {claimed[0]}")


def resumed_players(record: GameRecord, given: Sequence[str | None]) -> list[str | None]:
    """The players to seat: those given on the command line, else the saved game's own (a name the
    file leaves unknown, ``?`` in PGN and PDN, leaves the seat to the usual default)."""
    return [spec if spec is not None else (saved if saved and saved.strip() not in ("?", "") else None)
            for spec, saved in zip(given, record.players)]
