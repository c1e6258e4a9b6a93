"""Opening sets: every N-ply opening of a game, or positions and games from a file.

Openings make a tournament fair and varied: each is played twice with
colours reversed, so neither player gains from the side it happened to get,
and deterministic players do not repeat one game.

* ``N-ply`` — every sequence of N legal moves from the initial position,
  generated from the game's own move generator (so it works for any game:
  checkers' 3-ply set is the "three-move ballots", tic-tac-toe's 2-ply set is
  its 72 first-move/reply pairs).  Sequences that transpose into the same
  position are kept once (the first in move-generation order), and sequences
  that end the game are dropped.
* a file — for games that can read their own record format (checkers reads
  PDN, chess PGN), every game in the file is an opening (its moves, optionally
  cut to the first ``plies``), replayed under the game's own rules: games that
  are over within their opening are left out with a note; otherwise the file holds one position per line in the
  game's position text (FEN for checkers), read with ``game.new_state``.
  Blank lines and lines starting with ``#`` are skipped.
"""
from __future__ import annotations

import random
import re
import sys
import time
from pathlib import Path

from ..files.bundled_data import records_file
from ..capabilities import record_reader
from ..errors import PlygroundError, UsageError
from ..util.notices import note
from ..protocols import Game, GameRecord, State
from ..files.atomic import check_regular_file
from .config import Opening

_PLY = re.compile(r"^(\d+)-?ply$", re.IGNORECASE)
#: The most move sequences an N-ply opening set may walk (checkers' 8-ply set: about 1.1 million, 40 s).
MAX_OPENING_SEQUENCES = 2_000_000
#: Random descents that estimate how many sequences an N-ply set has before any is walked.
_PROBES = 64
#: Seconds between progress notes while a large set is generated.
_PROGRESS_SECONDS = 5.0


def all_openings(game: Game, plies: int) -> list[Opening]:
    """Every distinct position reachable in exactly ``plies`` legal moves, as move sequences."""
    if plies < 1:
        raise UsageError(f"an opening needs at least 1 ply, not {plies}")
    estimate = _estimated_sequences(game, plies)
    if estimate > MAX_OPENING_SEQUENCES:
        raise UsageError(f"--openings {plies}-ply: {game.name} has about {_about(estimate)} sequences of {plies} "
                         f"moves, more than the {MAX_OPENING_SEQUENCES:,} an opening set may walk; give fewer plies "
                         f"or a file of openings")
    state = game.new_initial_state()
    seen: set[str] = set()
    found: list[Opening] = []
    path: list[str] = []
    walked = 0
    started = last_note = time.monotonic()

    def walk(depth: int) -> None:
        nonlocal walked, last_note
        walked += 1
        if walked % 4096 == 0:
            if walked > MAX_OPENING_SEQUENCES:      # the estimate fell short: stop here, not hours later
                raise UsageError(f"--openings {plies}-ply: {game.name} has more than {MAX_OPENING_SEQUENCES:,} "
                                 f"sequences of up to {plies} moves to walk; give fewer plies or a file of openings")
            now = time.monotonic()
            if now - last_note >= _PROGRESS_SECONDS:
                last_note = now
                note(f"generating {plies}-ply openings: {walked:,} of about {estimate:,.0f} move sequences walked, "
                     f"{len(found):,} openings so far ({now - started:.0f} s)")
        if state.is_terminal():
            return
        if depth == plies:
            text = state.to_text()
            if text not in seen:
                seen.add(text)
                found.append(Opening(tuple(path)))
            return
        for move in state.legal_moves():
            path.append(state.move_to_text(move))
            state.apply(move)
            walk(depth + 1)
            state.undo()
            path.pop()

    walk(0)
    if not found:
        raise UsageError(f"{game.name} has no {plies}-ply openings that leave the game running")
    return found


def _estimated_sequences(game: Game, plies: int) -> float:
    """About how many move sequences of up to ``plies`` moves there are: the mean over seeded random
    descents of the product of the branching factors on the way (Knuth's estimator): a few
    milliseconds, where walking them all can take hours."""
    rng = random.Random(plies)
    total = 0.0
    for _ in range(_PROBES):
        state, width, nodes = game.new_initial_state(), 1.0, 1.0
        for _ in range(plies):
            if state.is_terminal():
                break
            moves = list(state.legal_moves())
            width *= len(moves)
            nodes += width
            state.apply(rng.choice(moves))
        total += nodes
    return total / _PROBES


def _about(count: float) -> str:
    return f"{count:,.0f}" if count < 1e12 else f"{count:.1e}"


def read_openings(game: Game, path: Path, plies: int | None = None) -> list[Opening]:
    """Openings from a file of games (the game's record format) or of position texts."""
    path = check_regular_file(Path(path), "opening file")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"opening file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read opening file {path}: {exc}") from None
    reader = record_reader(game, plies)     # a reader told the cut reads no further (60,000 chess games: minutes)
    looks_like_records = path.suffix == game.record_suffix or text.lstrip().startswith("[")
    if reader is None and looks_like_records:
        raise UsageError(f"{path} looks like a file of {game.name} games, but the {game.name} plugin cannot read "
                         f"its record format (its Game has no read_records method); give one position per line")
    if reader is not None and looks_like_records:
        try:
            records = reader(text)
        except PlygroundError as exc:
            raise UsageError(f"{path}: {exc}") from None
        # A record with no moves from the initial position (only tags, only a result) starts nowhere new.
        initial = game.new_initial_state().to_text()
        records = [(n, r) for n, r in enumerate(records, 1) if r.moves or (r.start and r.start != initial)]
        # Replayed once per distinct line: games sharing their first moves (most do, cut to a few plies)
        # share the replay.  The reader has already cut each record to ``plies``.
        replays: dict[tuple[str, tuple[str, ...]], tuple[Opening, str] | None] = {}
        replayed = []
        for n, r in records:
            line = (r.start, tuple(r.moves))
            if line not in replays:
                replays[line] = _opening_from_record(game, r, plies, path, n, initial)
            replayed.append(replays[line])
        reached = [o for o in replayed if o is not None]      # (opening, the position it reaches)
        skipped = len(replayed) - len(reached)
        if skipped and reached:
            cut = "" if plies is not None else "; --opening-plies N keeps only each game's first N plies"
            print(f"plyground: note: {skipped} of {len(replayed)} games in {path} end within their opening under "
                  f"{game.name}'s rules (a win, or an automatic draw the recorded players played past) and are "
                  f"not used{cut}", file=sys.stderr)
    else:
        reached = []
        for lineno, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                state = game.new_state(line)
            except PlygroundError as exc:
                raise UsageError(f"{path}:{lineno}: {exc}") from None
            if state.is_terminal():
                raise UsageError(f"{path}:{lineno}: the position {line!r} is already over")
            reached.append((Opening((), line), state.to_text()))
    openings = _distinct(reached)
    if not openings:
        raise UsageError(f"opening file {path} holds no playable openings: no game with moves that leave the "
                         f"game running (only tags or results?) and no position line")
    return openings


def _opening_from_record(game: Game, record: GameRecord, plies: int | None, path: Path, n: int,
                         initial: str) -> tuple[Opening, str] | None:
    """The record's moves as an opening with the text of the position it reaches, or None when the game is
    over before they are all played.

    The moves are replayed under the tournament game's own rules, as the games
    will be: a recorded game that went on past an automatic draw (players in
    real games play on until a draw is claimed) or that ends in a win within
    the cut leaves no position to play from.  ``initial`` is the initial
    position's text (a record starting there has no base).
    """
    moves = list(record.moves if plies is None else record.moves[:plies])
    base = None if not record.start or record.start == initial else record.start
    try:
        state = game.new_initial_state() if base is None else game.new_state(base)
    except PlygroundError as exc:
        raise UsageError(f"{path}: game {n}: {exc}") from None
    for ply, move in enumerate(moves, 1):
        if state.is_terminal():
            return None
        try:
            state.apply(state.parse_move(move))
        except PlygroundError as exc:
            raise UsageError(f"{path}: game {n}, ply {ply}: {exc}") from None
    if state.is_terminal():
        return None
    return Opening(tuple(moves), base), state.to_text()


def _distinct(reached: list[tuple[Opening, str]]) -> list[Opening]:
    """The openings in order, less those reaching a position an earlier one reaches."""
    seen, out = set(), []
    for o, text in reached:
        if text not in seen:
            seen.add(text)
            out.append(o)
    return out


def start_state(game: Game, opening: Opening | None) -> State:
    """The position a game with this opening starts from (with the opening's moves as history)."""
    if opening is None:
        return game.new_initial_state()
    state = game.new_initial_state() if opening.base is None else game.new_state(opening.base)
    for move in opening.moves:
        state.apply(state.parse_move(move))
    return state


def choose_openings(game: Game, source: str | None, seed: int, plies: int | None = None) -> list[Opening]:
    """Resolve ``--openings``: ``none``, ``N-ply``, a file path or the name of games the game ships (``acf``);
    shuffled with the tournament seed.

    Shuffling means that a tournament playing fewer games than there are
    openings uses a random sample of them, not the first few in move order.
    """
    if source is None or source.strip().lower() in ("", "none"):
        return []
    source = source.strip()
    match = _PLY.match(source)
    if match and not Path(source).exists():
        openings = all_openings(game, int(match.group(1)))
    else:
        openings = read_openings(game, records_file(game, source, "--openings", "'none', 'N-ply' (e.g. 3-ply), "),
                                 plies)
    random.Random(seed).shuffle(openings)
    return openings
