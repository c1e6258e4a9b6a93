"""Saving a game in the middle and playing it on later (``save`` at the prompt, ``plyground play --resume``).

A saved game is an ordinary record in the game's own format (PGN, PDN, JSON
lines) with the result ``*`` of a game still going on, so other programs read
it too.  Resuming reads the last unfinished game of the file, replays its
moves from its start position -- each one checked, so a hand-edited file
fails on the move that is wrong -- and play goes on from there.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from .errors import MoveError, PositionError, RecordError, UsageError
from .protocols import Game, GameRecord, State
from .recordio import format_name, read_record_file, record_reader, write_records


def game_so_far(record: GameRecord) -> GameRecord:
    """A copy of the record of a game still being played, marked unfinished (result ``*``)."""
    return GameRecord(game=record.game, players=tuple(record.players), start=record.start, moves=list(record.moves),
                      returns=(0.0, 0.0), finished=False,
                      reason=f"saved before its end, after {len(record.moves)} plies", tags=dict(record.tags))


def save_unfinished(game: Game, record: GameRecord, path: Path | None = None) -> Path:
    """Write the game being played (``record``, as the match runner keeps it) unfinished, result ``*``, to
    ``path`` (default :func:`default_save_path`) atomically, replacing what it held; returns the path.

    The file holds just this game, so ``--resume`` finds it whatever was saved before.
    """
    path = Path(path or default_save_path(game)).expanduser()
    if path.is_dir():
        raise UsageError(f"{path} is a folder; give a file name such as {path / ('game' + game.record_suffix)}")
    write_records(game, [game_so_far(record)], path)
    return path


def default_save_path(game: Game, folder: Path | None = None) -> Path:
    """``checkers-saved.pdn`` and the like, in ``folder`` (default: the current one)."""
    return Path(folder or ".") / f"{game.name}-saved{game.record_suffix}"


def load_unfinished(game: Game, path: Path) -> GameRecord:
    """The last unfinished game in the record file ``path`` (RecordError naming the file otherwise)."""
    path = Path(path).expanduser()
    reader = record_reader(game)
    if reader is None:
        raise UsageError(f"{game.name} cannot read its records back, so its games cannot be resumed")
    kind = format_name(game)
    if not path.is_file():
        raise RecordError(f"cannot resume from {path}: no such file (save a game with 'save' at the move "
                          f"prompt or the window's Save button)")
    text = read_record_file(path, kind, f"a {kind} file written by plyground")
    try:
        records = reader(text)
    except RecordError as exc:
        raise RecordError(f"cannot resume from {path}: {exc}") from None
    if not records:
        raise RecordError(f"cannot resume from {path}: it holds no {game.name} game in {kind}")
    unfinished = [r for r in records if not r.finished]
    if not unfinished:
        raise RecordError(f"cannot resume from {path}: its {len(records)} game(s) all ended; only a game saved "
                          f"before its end (result '*') can be played on")
    return unfinished[-1]


def replay(game: Game, record: GameRecord, source: str = "") -> tuple[State, list[int]]:
    """The position after ``record``'s moves and the side that made each (a side may move twice in a row)."""
    where = f"{source}: " if source else ""
    try:
        state = game.new_state(record.start) if record.start else game.new_initial_state()
    except (PositionError, ValueError) as exc:
        raise RecordError(f"{where}the saved start position cannot be read: {exc}") from None
    movers: list[int] = []
    for number, text in enumerate(record.moves, start=1):
        if state.is_terminal():
            raise RecordError(f"{where}move {number} ({text}) comes after the end of the game "
                              f"({state.outcome_reason()})")
        try:
            move = state.parse_move(text)
        except MoveError as exc:
            raise RecordError(f"{where}move {number} ({text}) cannot be played: {exc}") from None
        movers.append(state.current_player())
        state.apply(move)
    return state, movers


def game_of_record_file(registry, path: Path) -> str:
    """The game whose records ``path`` holds, told by its suffix (``.pgn`` chess, ``.pdn`` checkers) or,
    for JSON lines, by the records' own ``game`` field."""
    path = Path(path).expanduser()
    suffix = path.suffix.lower()
    if suffix == ".jsonl" and path.is_file():
        for line in reversed(path.read_text(encoding="utf-8", errors="replace").splitlines()):
            try:
                return str(json.loads(line)["game"])
            except (ValueError, KeyError, TypeError):
                continue
    games = [name for name in registry.names("games") if registry.make_game(name).record_suffix == suffix]
    if len(games) == 1:
        return games[0]
    raise UsageError(f"cannot tell which game {path} holds from its suffix {suffix or '(none)'!r}; "
                     f"add --game (e.g. --game checkers)")


def resumed_players(record: GameRecord, given: Sequence[str | None]) -> list[str | None]:
    """The players to seat: those given on the command line, else the saved game's own (a name the
    file leaves unknown, ``?`` in PGN and PDN, leaves the seat to the usual default)."""
    return [spec if spec is not None else (saved if saved and saved.strip() not in ("?", "") else None)
            for spec, saved in zip(given, record.players)]
