"""Opening books: the moves strong players chose in the opening, for a player to play while its game is in them.

A book maps a position to the moves kept for it.  A position is known by its
stable hash (:func:`plyground.capabilities.stable_hash`: the same in every
process and on every machine, unlike ``State.key()``); a move by its text,
with the number of games that played it there, the points those games
brought the side that played it and, where an engine judged the book, that
engine's expected score of the move.  ``plyground book build`` makes one from
a game's records (:func:`count_moves`, :func:`select_moves`), optionally
judged by an engine (:func:`verify_moves`); a player with a ``book`` option
(``alphabeta``) opens one (:func:`open_book`) and draws its moves from it
(:meth:`OpeningBook.choose`), each as likely as the games that played it.

The file holds numbers only -- ``.npz`` arrays with JSON metadata beside them
(:mod:`plyground.files.storage`), never pickle:

==========  ========  ===============================================================
array       dtype     what
==========  ========  ===============================================================
``keys``    uint64    the positions' hashes, sorted
``first``   uint32    where each position's moves begin in the arrays below (and, last, their end)
``move``    uint16    each move's text, as an index into the metadata's ``moves``
``games``   uint32    the games that played the move in the position
``points``  uint32    the half-points those games brought the move's side (a win 2, a draw 1)
``engine``  float32   the judging engine's expected score of the move for its side (NaN: not judged)
==========  ========  ===============================================================

The metadata names the format, the game, the hash of the game's initial
position when the book was built (a book whose hashes are another scheme's is
refused, not silently missed), the move texts, and how the book was made.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from ..analysis import expected_score
from ..capabilities import bundled_model, has_stable_hashes, stable_hash, winning_chances_slope
from ..errors import ModelFileError, PlygroundError, UsageError
from ..protocols import Budget, Game, GameRecord, Move, Player, State
from ..files.storage import check_format, load_npz, pop_metadata, save_npz

__all__ = ["BOOK_MODEL", "FORMAT", "PRIOR_DRAWS", "BookMove", "OpeningBook", "MoveCounts", "check_books", "count_moves",
           "select_moves", "verify_moves", "make_book", "open_book", "BOOK_OPTION_HELP"]

FORMAT = "plyground-opening-book"
FORMAT_VERSION = 1
#: The name a game's bundled book has among its bundled models (the BundledModels ability).
BOOK_MODEL = "book"
#: Drawn games added to every move's record when scores are compared, so that a move played in a few games
#: does not look best (or worst) by their luck: 3 wins in 3 games score 65%, 300 in 300 score 98%.
PRIOR_DRAWS = 10
#: The most forced moves the engine's judgement follows before it searches (a forced capture, its reply...).
FORCED_CHAIN = 16
#: The arrays of a book file, with their dtypes.
ARRAYS = {"keys": np.uint64, "first": np.uint32, "move": np.uint16, "games": np.uint32, "points": np.uint32,
          "engine": np.float32}
#: The most moves (distinct texts) a book can name: its ``move`` array holds uint16 indices.
MAX_MOVE_TEXTS = 1 << 16

#: The ``book`` option's words, for a player that offers one.
BOOK_OPTION_HELP = ("opening book: 'auto' (the game's bundled book where it has one: checkers, built from the ACF "
                    "archive; none elsewhere), 'none', or the path of a book file ('plyground book build' makes "
                    "one). While the position is in the book its move is drawn from the book's moves, each as "
                    "likely as the games that played it (the player's seed makes games reproducible), without a "
                    "search; never when the player judges positions (hints, game reports, infinite analysis)")


# ------------------------------------------------------------------ a book

@dataclass(frozen=True)
class BookMove:
    """One move a book keeps for a position: its text, the games that played it there and the half-points they
    brought the side that played it, and an engine's expected score of it (None: not judged)."""

    move: str
    games: int
    half_points: int
    engine: float | None = None

    @property
    def score(self) -> float:
        """Its expected score for the side that plays it, from its games with :data:`PRIOR_DRAWS` draws added."""
        return (self.half_points / 2 + PRIOR_DRAWS / 2) / (self.games + PRIOR_DRAWS)

    def to_json(self) -> dict:
        return {"move": self.move, "games": self.games, "score": round(self.score, 4),
                **({"engine": round(self.engine, 4)} if self.engine is not None else {})}


class OpeningBook:
    """A game's opening book: the moves kept for each position it holds, by the position's stable hash."""

    def __init__(self, game: str, entries: Mapping[int, Sequence[BookMove]], metadata: Mapping[str, Any]) -> None:
        self.game = game
        self.metadata = dict(metadata)
        self._entries = {int(key): tuple(moves) for key, moves in entries.items() if moves}

    def __len__(self) -> int:
        """The positions it holds."""
        return len(self._entries)

    @property
    def move_count(self) -> int:
        """The moves it holds, over all its positions."""
        return sum(len(moves) for moves in self._entries.values())

    def moves(self, state: State) -> tuple[BookMove, ...]:
        """The moves it keeps for ``state``'s position (empty: the position is not in it)."""
        key = stable_hash(state)
        return () if key is None else self._entries.get(key, ())

    def choose(self, state: State, rng: np.random.Generator) -> tuple[Move, BookMove, tuple[BookMove, ...]] | None:
        """A move for ``state`` drawn from its book moves, each as likely as the games that played it, with
        ``rng``: (the move, its book entry, all the position's book moves); None when the position is not in
        the book (or, after a hash collision, none of its moves is legal there)."""
        if state.is_terminal():
            return None
        legal = []
        for entry in self.moves(state):
            try:
                legal.append((state.parse_move(entry.move), entry))
            except PlygroundError:          # another position with the same hash: this one is not in the book
                return None
        if not legal:
            return None
        weights = np.array([entry.games for _, entry in legal], dtype=np.float64)
        index = int(rng.choice(len(legal), p=weights / weights.sum()))
        return legal[index][0], legal[index][1], tuple(entry for _, entry in legal)

    # ------------------------------------------------------------ the file
    def save(self, path: Path) -> None:
        """Write the book to ``path`` (compressed, atomically: a crash leaves the old file or the new)."""
        texts = sorted({entry.move for moves in self._entries.values() for entry in moves})
        if len(texts) > MAX_MOVE_TEXTS:
            raise UsageError(f"the book names {len(texts):,} different moves; a book file holds at most "
                             f"{MAX_MOVE_TEXTS:,}: give fewer --plies or more --min-games")
        index = {text: i for i, text in enumerate(texts)}
        keys = sorted(self._entries)
        rows = [entry for key in keys for entry in self._entries[key]]
        first = np.cumsum([0] + [len(self._entries[key]) for key in keys])
        arrays = {"keys": np.array(keys, dtype=np.uint64), "first": first.astype(np.uint32),
                  "move": np.array([index[e.move] for e in rows], dtype=np.uint16),
                  "games": np.array([e.games for e in rows], dtype=np.uint32),
                  "points": np.array([e.half_points for e in rows], dtype=np.uint32),
                  "engine": np.array([np.nan if e.engine is None else e.engine for e in rows], dtype=np.float32)}
        metadata = {**self.metadata, "format": FORMAT, "format_version": FORMAT_VERSION, "game": self.game,
                    "positions": len(keys), "entries": len(rows), "moves": texts}
        save_npz(Path(path), arrays, metadata, compress=True)

    @classmethod
    def load(cls, path: Path, game: Game, label: str | None = None, any_name: bool = False) -> "OpeningBook":
        """The book in ``path`` for ``game``; a ModelFileError starting with ``label`` (default: the path) for a
        file that is missing, unreadable, not a book, another game's (``any_name``: a book made under another
        name is taken -- the game's own bundled book, which a variant inherits), or made with another hash
        scheme."""
        path = Path(path)
        label = label or str(path)

        def fits(metadata: Any, declared: dict) -> None:
            """Refuse, from the metadata and the arrays' headers, a file that is not a book of this game."""
            check_format(metadata, label, FORMAT, FORMAT_VERSION, "plyground opening book")
            if metadata.get("game") != game.name and not any_name:
                raise ModelFileError(f"{label} is an opening book for {metadata.get('game')!r}, not {game.name}")
            for name, dtype in ARRAYS.items():
                if name not in declared:
                    raise ModelFileError(f"{label} is not a complete opening book: it has no {name!r} array")
                shape, found = declared[name]
                if found != np.dtype(dtype) or len(shape) != 1:
                    raise ModelFileError(f"{label}: array {name!r} is {found} of shape {shape}, expected a 1-D "
                                         f"{np.dtype(dtype)} array")
        arrays = load_npz(path, label=label, before=fits)
        metadata = pop_metadata(arrays, label)
        initial = game.new_initial_state()
        if metadata.get("initial_hash") != stable_hash(initial):
            raise ModelFileError(f"{label} was built with other position hashes than this {game.name} has (its "
                                 f"initial position's hash is {metadata.get('initial_hash')!r}, here "
                                 f"{stable_hash(initial)}): rebuild it with 'plyground book build'")
        return cls(str(metadata.get("game")), _entries(arrays, metadata, label), metadata)


def _entries(arrays: dict[str, np.ndarray], metadata: dict, label: str) -> dict[int, list[BookMove]]:
    """The positions' moves from a book file's arrays, each array checked against the others."""
    keys, first = arrays["keys"], arrays["first"].astype(np.int64)
    rows = len(arrays["move"])
    texts = metadata.get("moves")
    if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
        raise ModelFileError(f"{label}: its metadata has no list of move texts ('moves')")
    if any(len(arrays[name]) != rows for name in ("games", "points", "engine")):
        raise ModelFileError(f"{label}: its move arrays differ in length")
    if len(first) != len(keys) + 1 or (len(first) and (first[0] != 0 or first[-1] != rows)) \
            or np.any(np.diff(first) <= 0):
        raise ModelFileError(f"{label}: its 'first' array does not divide its {rows:,} moves among its "
                             f"{len(keys):,} positions")
    if np.any(np.diff(keys.astype(np.uint64)) == 0) or np.any(keys[1:] < keys[:-1]):
        raise ModelFileError(f"{label}: its position hashes are not sorted and distinct")
    if rows and int(arrays["move"].max()) >= len(texts):
        raise ModelFileError(f"{label}: a move index is beyond its {len(texts)} move texts")
    if np.any(arrays["games"] == 0) or np.any(arrays["points"] > 2 * arrays["games"].astype(np.int64)):
        raise ModelFileError(f"{label}: a move has no games, or more points than its games can bring")
    engine = arrays["engine"].astype(np.float64)
    entries: dict[int, list[BookMove]] = {}
    for i, key in enumerate(keys.tolist()):
        entries[int(key)] = [BookMove(texts[int(arrays["move"][j])], int(arrays["games"][j]),
                                      int(arrays["points"][j]), None if math.isnan(engine[j]) else float(engine[j]))
                             for j in range(int(first[i]), int(first[i + 1]))]
    return entries


def open_book(game: Game, spec: Any, option: str = "book") -> OpeningBook | None:
    """The book the ``book`` option ``spec`` names for ``game``: ``auto`` (the game's bundled book, None when it
    has none), ``none`` (None) or a book file's path.  Any file that cannot be the game's book is one
    ModelFileError naming the option."""
    text = "none" if spec is None else str(spec).strip()
    if text.lower() in ("none", "off", "false", "no", ""):
        return None
    if text.lower() == "auto":
        path = bundled_model(game, BOOK_MODEL)
        if path is None:
            return None
        return OpeningBook.load(path, game, label=f"{option}=auto: the bundled book {path}", any_name=True)
    if not has_stable_hashes(game):
        raise ModelFileError(f"{option}={text}: {game.name} has no opening books (its positions have no hash that "
                             f"is the same on every machine); use {option}=none")
    path = Path(text).expanduser()
    if path.is_dir():
        raise ModelFileError(f"{option}={text} is a folder; give the path of a book file ('plyground book build' "
                             f"makes one), auto or none")
    return OpeningBook.load(path, game, label=f"{option}={text}")


# ------------------------------------------------------------------ building one

def check_books(game: Game) -> None:
    """A UsageError unless ``game`` can have opening books (its positions have a hash the same everywhere)."""
    if not has_stable_hashes(game):
        raise UsageError(f"{game.name} has no opening books: its positions have no hash that is the same on every "
                         f"machine (the StableHashes ability of plyground.capabilities)")


@dataclass
class MoveCounts:
    """The moves a game's records played in the positions of their first plies: per position (its stable
    hash) each move's [games, half-points for its side], and the moves that first reached the position (to
    set it up again for an engine); how many records were used and why others were not."""

    moves: dict[int, dict[str, list[int]]]
    lines: dict[int, tuple[str, ...]]
    used: int = 0
    skipped: dict[str, int] | None = None


def count_moves(game: Game, records: Iterable[GameRecord], plies: int) -> MoveCounts:
    """Count, in every position of the first ``plies`` plies of each finished game of ``records`` that starts
    from ``game``'s initial position, the moves played and the points their games brought their side.

    A game is followed as far as its moves are legal and the game goes on; games from another position
    and unfinished games (no result to count) are left out, and counted by why."""
    check_books(game)
    initial = game.new_initial_state()
    initial_text = initial.to_text()
    counts = MoveCounts({}, {}, 0, {"from another position": 0, "unfinished": 0, "no moves": 0})
    for record in records:
        if record.start and record.start != initial_text:
            counts.skipped["from another position"] += 1
            continue
        if not record.finished:
            counts.skipped["unfinished"] += 1
            continue
        if not record.moves:
            counts.skipped["no moves"] += 1
            continue
        counts.used += 1
        state, line = initial.clone(), []
        for text in record.moves[:plies]:
            if state.is_terminal():
                break
            side = state.current_player()
            try:
                move = state.parse_move(text)
            except PlygroundError:
                break
            key, canonical = stable_hash(state), state.move_to_text(move)
            counts.lines.setdefault(key, tuple(line))
            entry = counts.moves.setdefault(key, {}).setdefault(canonical, [0, 0])
            entry[0] += 1
            entry[1] += int(round(2 * record.score(side)))
            line.append(canonical)
            state.apply(move)
    return counts


def select_moves(counts: MoveCounts, min_games: int, margin: float) -> dict[int, list[BookMove]]:
    """The book's moves: in each position played in at least ``min_games`` games, the moves played in at least
    ``min_games`` of them whose score (:attr:`BookMove.score`) is within ``margin`` of the best such move's;
    most played first.  Positions left with no move are not in the book."""
    book: dict[int, list[BookMove]] = {}
    for key, moves in counts.moves.items():
        if sum(games for games, _ in moves.values()) < min_games:
            continue
        kept = [BookMove(text, games, half) for text, (games, half) in moves.items() if games >= min_games]
        if not kept:
            continue
        best = max(entry.score for entry in kept)
        kept = sorted((entry for entry in kept if entry.score >= best - margin), key=lambda e: (-e.games, e.move))
        book[key] = kept
    return book


def verify_moves(game: Game, book: dict[int, list[BookMove]], lines: Mapping[int, Sequence[str]], judge: Player,
                 margin: float, budget: Budget = Budget(),
                 log: Callable[[str], None] | None = None) -> tuple[dict[int, list[BookMove]], int]:
    """``book`` with each move judged by ``judge`` (searching, never reading a book: its ``analysing`` is set):
    a move whose expected score for its side is more than ``margin`` below the best the engine sees in the
    position (its own best move, or a better book move) is dropped; the others keep the engine's score.
    Returns the book and the number of moves dropped."""
    judge.analysing = True
    judge.reset(0)
    slope = winning_chances_slope(game)
    kept: dict[int, list[BookMove]] = {}
    dropped = 0
    started, last = time.perf_counter(), time.perf_counter()
    for done, (key, moves) in enumerate(book.items(), 1):
        state = game.new_initial_state()
        for text in lines[key]:
            state.apply(state.parse_move(text))
        side = state.current_player()
        scores = []
        for entry in moves:
            child = state.clone()
            child.apply(child.parse_move(entry.move))
            scores.append(_judged(judge, child, side, slope, budget))
        best = max([s for s in scores if s is not None] + [_judged(judge, state, side, slope, budget) or 0.0])
        good = [BookMove(e.move, e.games, e.half_points, s) for e, s in zip(moves, scores)
                if s is None or best - s <= margin]
        dropped += len(moves) - len(good)
        if good:
            kept[key] = good
        if log is not None and (time.perf_counter() - last > 10 or done == len(book)):
            last = time.perf_counter()
            log(f"judged {done:,} of {len(book):,} positions ({dropped:,} moves dropped) in "
                f"{last - started:.0f} s")
    return kept, dropped


def _judged(judge: Player, state: State, side: int, slope: float, budget: Budget) -> float | None:
    """``judge``'s expected score of ``state`` for ``side``, after any forced moves (a search of a position with
    one legal move says nothing of it); None when the engine says nothing of the position."""
    state = state.clone()
    for _ in range(FORCED_CHAIN):
        if state.is_terminal():
            return (float(state.returns()[side]) + 1.0) / 2.0
        legal = state.legal_moves()
        if len(legal) != 1:
            break
        state.apply(legal[0])
    judge.choose_move(state.clone(), budget)
    score = expected_score(judge.analysis(), slope)
    if score is None:
        return None
    return score if state.current_player() == side else 1.0 - score


def make_book(game: Game, entries: dict[int, list[BookMove]], metadata: Mapping[str, Any]) -> OpeningBook:
    """A book of ``entries`` for ``game``, its metadata saying how it was made (and the initial position's hash)."""
    return OpeningBook(game.name, entries,
                       {**metadata, "initial_hash": stable_hash(game.new_initial_state())})
