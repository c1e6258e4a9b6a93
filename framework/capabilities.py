"""The optional abilities of games and their states -- capabilities -- named in one place.

The layers of :mod:`plyground.protocols` (playable, searchable, learnable) say
what a game must implement to be used at all.  Beyond them a game may offer
capabilities only some code wants: reading its own records back, telling a UCI
engine its positions, compiled kernels, its own alpha-beta engine, the layout
of its feature vectors.  Each is a row of :data:`CAPABILITIES` (docs/capabilities.md,
the page a game's author reads): a name, the runtime-checkable protocol here
that says what it is, and where the host finds it -- on the game, on its
states, made by the game (its kernels, its alpha-beta engine) or made by that
engine (its learning kits).  A game gains a capability by implementing the
protocol's members; nothing registers it.

:func:`capability` is the one accessor: ``capability(game, "record-reader")`` is
what offers it, or None.  The functions beside each protocol (:func:`record_reader`,
:func:`alphabeta_engine`, ...) are built on it and give their callers the shape
they want (a reader cut to N plies, a default).  Code that wants a capability
asks here, never a game's name or ``hasattr``.
"""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

from .board_text import sorted_moves_line
from .errors import UsageError
from .options import Option
from .protocols import Game, GameRecord, Move, State
from .registry import get_registry

if TYPE_CHECKING:
    from .files.recordio import RecordTextReader

__all__ = ["RecordReader", "RecordWriter", "RecordRecognizer", "RECOGNIZED_HEAD", "recognizes_records", "UciPositions", "CompiledKernels", "PositionLayout",
           "ActionDecoder", "SharedActions", "AnnotatedRecords", "WinningChances", "record_reader",
           "annotated_record_writer", "winning_chances_slope", "LICHESS_SLOPE", "reads_records", "supports_uci",
           "supports_learning", "kernels_of", "missing_kernel_attributes", "has_position_layout",
           "decodes_actions", "shares_action_indices", "KERNEL_ATTRIBUTES", "LEARNER_KERNEL_ATTRIBUTES",
           "MovesListing", "legal_moves_text",
           "pictures_name_players", "BundledRecords", "bundled_records", "records_advice",
           "BundledModels", "bundled_model",
           "EndgameDatabases", "ENDGAME_OPTION", "parse_endgame", "endgame_oracle",
           "SolvedPosition", "SolvedPositions", "solved_positions", "solved_position_sets",
           "AlphaBetaEngine", "AlphaBetaEngines", "alphabeta_engine", "EvaluationLearning", "evaluation_learning",
           "StableHashes", "stable_hash", "has_stable_hashes", "RecordStreams", "record_stream",
           "FeatureLayout", "FeatureLayouts", "feature_layout", "NnueLearning", "nnue_learning",
           "Capability", "CAPABILITIES", "capability", "capabilities_of"]


# ------------------------------------------------------------------ game records

@runtime_checkable
class RecordReader(Protocol):
    """A game that reads its own record format back (checkers: PDN, chess: PGN): opening files,
    appending to a saved file.  ``read_records`` is the inverse of ``format_records``.

    A reader may also take ``plies`` (chess does): only each game's first N moves are wanted, so it can
    skip reading the rest; :func:`record_reader` cuts the records of a reader that does not."""

    def read_records(self, text: str) -> list[GameRecord]:
        """GameRecords from text in the game's format; raises ``RecordError`` naming game and line."""


@runtime_checkable
class RecordWriter(Protocol):
    """A game that writes records: every Game does (JSON lines unless it overrides both)."""

    #: Extension of the record files, e.g. ``.pdn``.
    record_suffix: str

    def format_records(self, records: Sequence[GameRecord]) -> str: ...


def record_reader(game: Game, plies: int | None = None) -> Callable[[str], list[GameRecord]] | None:
    """The game's reader for its own record format (``text -> list[GameRecord]``), or ``None``.

    ``plies``: each record keeps only its first N moves (openings), read alone by a reader whose
    ``read_records`` takes ``plies``."""
    if capability(game, "record-reader") is None:
        return None
    if plies is None:
        return game.read_records
    if "plies" in inspect.signature(game.read_records).parameters:
        return functools.partial(game.read_records, plies=plies)

    def read_cut(text: str) -> list[GameRecord]:
        records = game.read_records(text)
        for record in records:
            record.moves = list(record.moves[:plies])
        return records
    return read_cut


def reads_records(game: Game) -> bool:
    return record_reader(game) is not None


@runtime_checkable
class RecordStreams(Protocol):
    """A game that reads a file of its records game by game (checkers: PDN, chess: PGN), so a large file is not
    read whole to use its first games, and a game it cannot read can be skipped (Deep Pepper's pretraining
    positions)."""

    def stream_records(self, source: str | Path, *, strict: bool = True) -> RecordTextReader:
        """A reader over ``source`` (a Path: that file, read with the checks of
        :func:`plyground.files.recordio.read_record_file`; else the text itself) that yields the games one at a time,
        each with ``to_record()``; ``strict=False`` skips a game it cannot read and keeps its error in the
        reader's ``errors``, ``strict=True`` raises it (``RecordError`` naming the game and line)."""


def record_stream(game: Game, source: str | Path, *, strict: bool = True) -> RecordTextReader | None:
    """A reader of ``game``'s records in ``source``, game by game (:class:`RecordStreams`), or None."""
    return game.stream_records(source, strict=strict) if capability(game, "record-streams") is not None else None


@runtime_checkable
class RecordRecognizer(Protocol):
    """A game that knows a file of its records by what it holds, not by its name (checkers: a PDN game of
    GameType 21 whose moves, such as 11-15, replay; chess: PGN whose moves, such as e4, do), so a file is
    opened as the game it holds whatever its suffix says (:func:`plyground.play.resume.game_of_record_file`)."""

    def recognizes_records(self, head: str) -> bool:
        """Whether ``head`` (the first whole lines of a file, up to :data:`RECOGNIZED_HEAD` characters) begins
        with a game of this game's record format."""


#: How much of a file a game is shown to tell whether it holds its records (whole lines only).
RECOGNIZED_HEAD = 65_536


def recognizes_records(game: Game, head: str) -> bool:
    """Whether ``game`` (with the RecordRecognizer ability) says ``head`` begins with one of its records."""
    return capability(game, "record-recognizer") is not None and bool(game.recognizes_records(head))


@runtime_checkable
class AnnotatedRecords(Protocol):
    """A game whose record format carries comments and NAGs (checkers: PDN, chess: PGN): ``plyground analyse``
    writes its annotated game through it."""

    def format_annotated_record(self, record: GameRecord, notes: Sequence[Any]) -> str:
        """One game in the game's format with, after each move, its note's NAGs and ``{comment}`` (``notes``:
        a :class:`plyground.files.recordio.MoveNote` or None for each move)."""


def annotated_record_writer(game: Game) -> Callable[[GameRecord, Sequence[Any]], str] | None:
    """The game's writer of annotated records, or None (its records are JSON lines, or carry no comments)."""
    return game.format_annotated_record if capability(game, "annotated-records") is not None else None


#: Lichess's winning-chances slope for chess: an evaluation of ``x`` pawns (100 centipawns a pawn) gives the
#: side to move an expected score of 1 / (1 + exp(-0.368208 x)) -- a pawn up 59%, a knight up 76%.
LICHESS_SLOPE = 0.368208


@runtime_checkable
class WinningChances(Protocol):
    """A game that says how its alpha-beta evaluation (100 to the piece it counts in: the checkers man, the
    chess pawn) turns into an expected score: ``1 / (1 + exp(-slope * value / 100))`` for the side to move
    (``plyground analyse``: how much a move lost)."""

    #: The logistic slope per piece of evaluation (chess: :data:`LICHESS_SLOPE`).
    winning_chances_slope: float


def winning_chances_slope(game: Game) -> float:
    """The game's slope of evaluation to expected score (:class:`WinningChances`), else lichess's chess one."""
    return float(game.winning_chances_slope) if capability(game, "winning-chances") is not None else LICHESS_SLOPE


@runtime_checkable
class BundledRecords(Protocol):
    """A game that ships record files (archives of real games) inside its package, each by a short name
    that ``--openings NAME`` and a trainer's ``games=NAME`` accept (checkers: ``acf``, the ACF archive)."""

    #: One line for a message about a missing record file: where records of this game come from.
    records_advice: str

    def bundled_records(self) -> Mapping[str, Path]:
        """Name -> the file in the package, compressed with xz (``.xz``); may be empty."""


def bundled_records(game: Game) -> Mapping[str, Path]:
    """The record files ``game`` ships, by name (empty when it ships none)."""
    return game.bundled_records() if capability(game, "bundled-records") is not None else {}


@runtime_checkable
class BundledModels(Protocol):
    """A game that ships trained models in its own package, by the player that reads them (a third-party
    game's ``alphazero`` network: examples/connect-four)."""

    def bundled_models(self) -> Mapping[str, Path]:
        """Player name (``alphazero``) -> the model file in the package; may be empty."""


def bundled_model(game: Game, player: str) -> Path | None:
    """The model ``game`` ships for ``player``, or None (it ships none: the player's own folder may)."""
    path = game.bundled_models().get(player) if capability(game, "bundled-models") is not None else None
    return Path(path) if path is not None and Path(path).is_file() else None


def records_advice(game: Game) -> str:
    """Where records of ``game`` come from, for a message about a missing file ("" when the game does not say)."""
    return game.records_advice if capability(game, "bundled-records") is not None else ""


# ------------------------------------------------------------------ console pictures

@runtime_checkable
class MovesListing(Protocol):
    """A game that lists its legal moves itself, in the order and form its error messages use
    (checkers: ``9-13, 9-14, ...``; chess: pieces first, then pawns)."""

    def legal_moves_text(self, state: State) -> str:
        """One line listing the legal moves of ``state`` (``Legal moves (7): ...``)."""


def legal_moves_text(game: Game, state: State) -> str:
    """The game's own line of legal moves, or one with their texts sorted (so a list never looks random)."""
    return game.legal_moves_text(state) if capability(game, "moves-listing") is not None else sorted_moves_line(state)


def pictures_name_players(game: Game) -> bool:
    """Whether ``game.render_text`` takes ``players`` (the names by side) and names them in its
    picture's status line (``Black (random) to move``), so a console needs no turn line of its own."""
    return capability(game, "players-in-picture") is not None


def _render_text_takes_players(game: Game) -> Game | None:
    """``game`` if its ``render_text`` takes ``players``: a keyword parameter cannot be a runtime-checkable
    protocol, hence the signature is asked."""
    try:
        return game if "players" in inspect.signature(game.render_text).parameters else None
    except (TypeError, ValueError):   # a callable without a signature: assume the plain one
        return None


# ------------------------------------------------------------------ chess engines

@runtime_checkable
class UciPositions(Protocol):
    """States a UCI chess engine can be told about: ``uci`` and ``stockfish`` play such games,
    Deep Pepper's Stockfish judge reads them."""

    def uci_position(self) -> str:
        """The UCI ``position`` command for this position, with the moves that led to it."""

    def move_to_uci(self, move: Move) -> str:
        """``move`` in UCI long algebraic notation (``e2e4``, ``e7e8q``)."""


def supports_uci(game: Game) -> bool:
    """Whether ``game``'s states speak UCI (a game whose starting position cannot be made does not)."""
    return capability(game, "uci-positions") is not None


def _declared_state_class(cls: type) -> type | None:
    """The class ``cls.new_initial_state`` is annotated to return, or None (no annotation, or not a class)."""
    import typing
    try:
        declared = typing.get_type_hints(cls.new_initial_state).get("return")
    except Exception:  # noqa: BLE001 - an annotation that does not resolve: the caller makes a state instead
        return None
    return declared if isinstance(declared, type) and declared is not State else None


# ------------------------------------------------------------------ positions kept in files (opening books)

@runtime_checkable
class StableHashes(Protocol):
    """States with a hash of their position that is the same in every process, on every machine, so a file may
    keep it: an opening book (:mod:`plyground.play.book`).  ``key()`` need not be (chess's is Python's ``hash`` of
    a tuple, which changes from run to run).  Checkers: its Zobrist key, drawn from a fixed seed; chess:
    Polyglot's Zobrist hash."""

    def zobrist(self) -> int:
        """The position's hash as an unsigned 64-bit number: the pieces, the side to move and whatever else
        makes two positions the same under the rules (not the move counters)."""


def stable_hash(state: State) -> int | None:
    """``state``'s hash that is the same everywhere (:class:`StableHashes`), or None: its game has none."""
    return int(state.zobrist()) & 0xFFFFFFFFFFFFFFFF if capability(state, "stable-hashes") is not None else None


def has_stable_hashes(game: Game) -> bool:
    """Whether ``game``'s states have a hash a file may keep."""
    return capability(game, "stable-hashes") is not None


# ------------------------------------------------------------------ learning

def supports_learning(game: Game) -> bool:
    """Whether ``game`` declares learner encodings (``observation_shape`` and ``num_actions``);
    ``protocols.unsupported_reason(game, LEARNABLE)`` also checks that its states implement them."""
    return capability(game, "learner-encodings") is not None


@runtime_checkable
class ActionDecoder(Protocol):
    """States that turn an action index back into the legal move (self-play, hints)."""

    def move_for_action(self, index: int) -> Move: ...


@runtime_checkable
class SharedActions(Protocol):
    """States that list the legal moves at an action index, in legal-move order (in checkers two
    captures can share one index)."""

    def moves_for_action(self, index: int) -> list[Move]: ...


def decodes_actions(state: State) -> bool:
    return capability(state, "action-decoder") is not None


def shares_action_indices(state: State) -> bool:
    return capability(state, "shared-actions") is not None


# ------------------------------------------------------------------ compiled kernels (docs/kernels.md)

@runtime_checkable
class CompiledKernels(Protocol):
    """The kernels object of docs/kernels.md: numba functions over int64 position arrays."""

    pos_size: int
    max_moves: int

    def gen_moves(self, pos: Any, out: Any) -> int: ...
    def apply_move(self, pos: Any, code: int) -> None: ...
    def outcome(self, pos: Any, n_legal: int) -> int: ...
    def current_player(self, pos: Any) -> int: ...
    def state_to_pos(self, state: State) -> Any: ...
    def code_to_move(self, state: State, code: int) -> Move: ...
    def move_to_code(self, state: State, move: Move) -> int: ...


#: What a kernels object provides, by name (for messages naming what is missing).
#: A game may add its own ``playout(pos, max_plies) -> outcome``; the search core builds a random one otherwise.
KERNEL_ATTRIBUTES = ("gen_moves", "apply_move", "outcome", "current_player",
                     "pos_size", "max_moves", "state_to_pos", "code_to_move", "move_to_code")


def missing_kernel_attributes(kernels: Any) -> list[str]:
    """The attributes of the kernels contract that ``kernels`` lacks (empty: it is complete)."""
    return [name for name in KERNEL_ATTRIBUTES if not hasattr(kernels, name)]


def move_is_code(state: State, move_or_code: Any) -> int:
    """``code_to_move`` and ``move_to_code`` both, for a game whose moves are their kernel codes (ints)."""
    return int(move_or_code)


#: The learner kernels (docs/kernels.md) a kernels object adds for the compiled AlphaZero search, all or none.
LEARNER_KERNEL_ATTRIBUTES = ("encode", "action_of", "position_key")


def kernels_of(game: Game) -> CompiledKernels | None:
    """The game's complete compiled kernels, or ``None`` (no kernels, or an incomplete object)."""
    return capability(game, "compiled-kernels")


@runtime_checkable
class PositionLayout(Protocol):
    """A game whose kernels' position arrays follow a named layout that other code reads directly.

    ``"checkers-bitboard"`` (games/checkers, docs/kernels.md) is read by checkers' own
    evaluation features and compiled alpha-beta search (its :class:`AlphaBetaEngines`
    ability) and is what the Hub engines of games/checkers/hub play; a checkers variant
    that keeps the layout declares it and gets both.
    """

    position_layout: str

    def kernels(self) -> Any: ...


def has_position_layout(game: Game, layout: str) -> bool:
    """Whether ``game`` declares position arrays in ``layout`` and has the kernels that make them."""
    return (capability(game, "position-layout") is not None and game.position_layout == layout
            and kernels_of(game) is not None)


# ------------------------------------------------------------------ endgame databases (docs/endgame.md)

@runtime_checkable
class EndgameDatabases(Protocol):
    """A game with endgame databases: the exact result of every position with few pieces (checkers:
    games/checkers/endgame).  The search players and the AlphaZero trainer use one through the
    ``endgame`` option (:data:`ENDGAME_OPTION`)."""

    #: The numbers of pieces a database of this game can hold (checkers: 2 to 8).
    endgame_pieces: range

    def endgame_oracle(self, spec: str | int, directory: Path | None = None,
                       log: Callable[[str], None] | None = None) -> Any | None:
        """The oracle of ``spec`` -- ``"auto"`` (the largest database built, None if none is) or a number
        of pieces from :attr:`endgame_pieces` (UsageError naming the build command when it cannot be had)
        -- kept in ``directory`` (None: the game's default folder); ``log`` hears about a build.

        The oracle answers ``returns(state)`` (the State API's returns with perfect play, None when
        not held), ``result(state)`` (``("win" | "loss" | "draw", plies to the end)`` for the side to move,
        None when not held: the searches' proofs), ``words(state)`` (``"win in 33 plies"``, for the
        analysis), ``perfect_moves(state)``
        and ``keep_result(state, move, visits)`` (the move that keeps the result the best way).  A game
        with compiled kernels also gives it ``tables`` and ``compiled_outcome``, a numba function
        ``(pos, tables) -> (outcome, plies)`` (outcome 0/1: that player wins, 2: draw, -1: not held)
        that the compiled searches call."""


#: The ``endgame`` option of the search players (alphabeta, mcts, alphazero) and the AlphaZero trainer.
ENDGAME_OPTION = Option(
    "endgame", str, "auto",
    "the game's endgame database, where it has them (checkers): 'auto' (the largest one built; none if "
    "none is), 'off', or a number of pieces N (checkers builds N <= 4 on first use; larger ones by "
    "'plyground endgame build --pieces N')", remote=("auto", "off"))


def parse_endgame(spec: Any, game: Game | None = None) -> str | int:
    """'auto', 'off' or a number of pieces from an ``endgame`` option value (UsageError otherwise); with
    ``game`` a number must also be one the game's databases can hold."""
    pieces = game.endgame_pieces if capability(game, "endgame-databases") is not None else None
    text = str(spec).strip().lower()
    if text in ("auto", "off"):
        return text
    if text in ("0", "none", "no", "false"):
        return "off"
    if text.isdigit() and (int(text) in pieces if pieces is not None else int(text) >= 1):
        return int(text)
    if game is not None and pieces is None:
        raise UsageError(f"endgame={spec!r} is not valid: use 'auto' or 'off' "
                         f"({game.name} has no endgame database)")
    numbers = f"from {pieces.start} to {pieces.stop - 1}" if pieces is not None else "(such as 4)"
    raise UsageError(f"endgame={spec!r} is not valid: use 'auto', 'off' or a number of pieces {numbers}")


def endgame_oracle(game: Game, spec: Any, directory: Path | None = None,
                   log: Callable[[str], None] | None = None) -> Any | None:
    """The endgame oracle the ``endgame`` option ``spec`` names for ``game``, or None: ``off``, ``auto`` with
    none built, or ``auto`` for a game without databases (a number of pieces for such a game is an error)."""
    wanted = parse_endgame(spec, game)
    if wanted == "off":
        return None
    if capability(game, "endgame-databases") is not None:
        return game.endgame_oracle(wanted, directory, log)
    if wanted == "auto":
        return None
    having = _games_with_endgame_databases()
    where = (f"endgame databases exist for {' and '.join(having)} only" if having
             else "no installed game has endgame databases")
    raise UsageError(f"endgame={spec}: {where}, not {game.name}; use endgame=off")


def _games_with_endgame_databases() -> list[str]:
    """The installed games that have endgame databases (for a message)."""
    return _games_offering("endgame-databases")


# ------------------------------------------------------------------ solved positions (plyground.play.mistakes)

@dataclass(frozen=True)
class SolvedPosition:
    """A position a perfect player has labelled: a move outside ``best`` is a *mistake* (its exact
    win/draw/loss is worse than the best move's); with ``value`` a network's value there is right or
    wrong too (:func:`plyground.play.mistakes.value_table`)."""

    category: str               # its class in the game's set, e.g. "Begin-Hard"
    state: State
    best: frozenset             # the moves that keep the position's exact result
    name: str = ""              # how the game writes it (e.g. its moves), for messages
    value: float | None = None  # the exact result for the side to move (1 win, 0 draw, -1 loss), if known


@runtime_checkable
class SolvedPositions(Protocol):
    """A game with sets of positions labelled by a perfect player (Connect Four's solver, tic-tac-toe's
    full game tree).  ``plyground.play.mistakes`` scores any player on them; the AlphaZero trainer's
    ``mistakes`` option scores each iteration's network."""

    #: The names of its sets (the first is the one to look at while tuning).
    solved_position_sets: Sequence[str]
    #: The classes of its positions, in the order tables list them.
    solved_position_classes: Sequence[str]

    def solved_positions(self, name: str) -> list[SolvedPosition]:
        """Every position of set ``name`` (one of :attr:`solved_position_sets`, or whatever else the game
        accepts, such as a file), in a fixed order; UsageError naming the valid sets for any other."""


def solved_position_sets(game: Game) -> Sequence[str]:
    """The names of ``game``'s sets of solved positions (empty: it has none)."""
    return tuple(game.solved_position_sets) if capability(game, "solved-positions") is not None else ()


def solved_positions(game: Game, name: str, per_class: int | None = None) -> dict[str, list[SolvedPosition]]:
    """The positions of ``game``'s set ``name`` by class, the first ``per_class`` of each (None: all);
    UsageError, naming the valid sets, for a game without them or an unknown set."""
    sets = solved_position_sets(game)
    if not sets:
        raise UsageError(f"{game.name} has no positions labelled by a perfect player; games that have them: "
                         f"{', '.join(_games_with_solved_positions()) or 'none installed'}")
    rows = game.solved_positions(name)
    return {c: [p for p in rows if p.category == c][:per_class] for c in game.solved_position_classes}


def _games_with_solved_positions() -> list[str]:
    return _games_offering("solved-positions")


# ------------------------------------------------------------------ alpha-beta (docs/bonanza.md)

@runtime_checkable
class AlphaBetaEngine(Protocol):
    """A game's own evaluation for the ``alphabeta`` player and the compiled search over it (checkers:
    games/checkers/alphabeta, chess: games/chess/alphabeta; a linear evaluation of features with material
    and learned weights).  It may name ``unit``, what its evaluation counts as 100 (``"men"``,
    ``"pawns"``): the player then shows scores as so many of them."""

    def material_weights(self) -> Any:
        """The weights of ``eval=material``."""

    def feature_metadata(self) -> dict:
        """What a weights file (players/alphabeta/evalfile.py) must say it is for: ``game``, ``feature_set``,
        ``feature_set_version`` and ``feature_count``."""

    def evaluator(self, weights: Any) -> Callable[[State], float]:
        """The evaluation with ``weights`` of a state, for its side to move (the search without kernels)."""

    def compiled_engine(self, weights: Any, *, tt_mb: int, use_tt: bool, ordering: bool, quiescence: bool,
                        stop: Any = None, oracle: Any = None, **search: str) -> Any:
        """The compiled search with ``weights`` and the endgame ``oracle``, stopped by ``stop`` (a StopSignal):
        ``kind`` (``"compiled"``), ``clear()`` and ``think(state, max_depth, deadline, node_limit, on_depth)``
        as the player's own engine over the State API has them.  The player passes ``search`` (one of
        plyground.negamax.deepening's SEARCH_MODES) only when the user chose one; else the game chooses."""


@runtime_checkable
class AlphaBetaEngines(Protocol):
    """A game that brings its own :class:`AlphaBetaEngine`; the ``alphabeta`` player searches any other
    game through the State API with no evaluation but won and lost positions."""

    def alphabeta_engine(self) -> AlphaBetaEngine | None:
        """Its evaluation and compiled search, or None (such as a variant whose positions they cannot read)."""


def alphabeta_engine(game: Game) -> AlphaBetaEngine | None:
    """The evaluation and compiled search ``game`` brings for the ``alphabeta`` player, or None."""
    return capability(game, "alphabeta-engine")


@runtime_checkable
class EvaluationLearning(Protocol):
    """What the ``bonanza`` trainer needs to learn a game's alpha-beta evaluation from expert games
    (plyground.learning.expert; checkers: games/checkers/alphabeta/learning.py, chess: games/chess/alphabeta/learning.py).
    An :class:`AlphaBetaEngine` offers it as ``learning()``.

    ``features`` names the feature set (``NUM_FEATURES``, ``FROZEN``, ``MAX_ENTRIES``, ``FEATURE_SET``,
    ``FEATURE_VERSION``, ``material_weights()``, ``metadata()``, ``feature_names()``); ``leaf_features``
    is a numba-compiled ``(leaf, perspective, idx, val) -> n`` giving a leaf position's sparse features
    (phi(perspective) - phi(opponent)); ``leaf_width`` and ``leaf_dtype`` are a leaf row's.
    """

    features: Any
    leaf_features: Any
    leaf_width: int
    leaf_dtype: Any

    def read_games(self, path: Path, max_games: int | None, log: Callable[[str], None]) -> tuple[list, list[str]]:
        """The readable games of a record file as ``ExpertGame``\\ s, and one message per unreadable game;
        raises ``UsageError`` naming the file when it holds none."""

    def positions(self, games: list, indices: Any, skip_plies: int = 0, every: int = 1) -> Any:
        """A ``PositionSet`` of the chosen games (plyground.learning.expert.collect_positions)."""

    def search_children(self, positions: Any, w: Any, depth: int, start: int, stop: int, values: Any,
                        leaves: Any = None, terminal: Any = None) -> int:
        """Search every child of the roots ``start..stop-1`` ``depth`` plies (plus the game's capture
        search): each move's value for the root's side into ``values``, and with ``leaves`` the end of
        its principal variation (``terminal``: 1 when a rule, not the evaluation, gave the value).
        Returns the nodes searched."""

    def summary(self, w: Any) -> dict:
        """A few learned values worth a line in the report (a king's worth, a piece's)."""

    def write_heatmap(self, w: Any, path: Path, title: str) -> None:
        """A picture of the learned piece-on-square values (matplotlib)."""


def evaluation_learning(game: Game) -> EvaluationLearning | None:
    """What the ``bonanza`` trainer needs to learn ``game``'s evaluation, or None (the game has no evaluation
    of its own, or cannot learn it)."""
    return capability(game, "evaluation-learning")


@runtime_checkable
class NnueLearning(Protocol):
    """What the ``nnue`` trainer needs to teach a game's NNUE evaluation (plyground.negamax.nnue) from its
    own games (checkers: games/checkers/alphabeta/learning.py).  An :class:`AlphaBetaEngine` offers it as
    ``nnue_learning()``; the engine's ``compiled_engine`` must then take a ``Network`` as its weights.

    ``features`` is what a model file says it was made for (``game``, ``feature_set``, ...); ``inputs``
    and ``max_active`` are the first layer's inputs and the most of them a position has active;
    ``w1_limit`` is the first layer's largest weight the game's accumulators hold; ``output_scale`` is
    the search units of an output of 1.0 (a man, a pawn)."""

    features: dict
    inputs: int
    max_active: int
    w1_limit: float
    output_scale: float

    def initial(self, hidden: int, dense: int, seed: int, buckets: int = 1) -> Any:
        """A network of random weights, with ``buckets`` stacks of dense layers (plyground.negamax.nnue)."""

    def save(self, path: Path, net: Any, metadata: dict | None = None) -> None:
        """Write a model file (.npz + JSON, atomically)."""

    def load(self, path: Path) -> tuple[Any, dict]:
        """A model file's network and metadata (ModelFileError naming what is wrong)."""

    def batch_features(self, positions: Any) -> tuple[Any, Any]:
        """The active inputs of each position array, seen from its side to move and from the other:
        two (N, max_active) int64 arrays padded with -1."""

    def quiet(self, positions: Any) -> Any:
        """A bool per position array: whether its side to move has no tactical move (the positions the
        search's evaluation is asked about, after its capture search)."""

    def read_games(self, path: Path, max_games: int | None, log: Callable[[str], None]) -> tuple[list, list[str]]:
        """Expert games of a record file as ``ExpertGame``\\ s with their ``returns``, and one message per
        unreadable game (as :class:`EvaluationLearning`'s)."""


def nnue_learning(game: Game) -> NnueLearning | None:
    """What the ``nnue`` trainer needs to teach ``game``'s NNUE evaluation, or None (the game has none)."""
    return capability(game, "nnue-learning")


# ------------------------------------------------------------------ feature layouts (Deep Pepper's networks)

@dataclass(frozen=True)
class FeatureLayout:
    """A learner encoding that is a flat vector of hand-made features, described part by part, so that a network
    made for it reads its layout from the game that offers it (chess: Deep Pepper's 353 features, which the
    ``deep-pepper-parts`` and ``deep-pepper-full`` networks split and scale)."""

    #: The encoding's name among the game's layouts, e.g. ``"deep-pepper"``.
    name: str
    #: ``(part, start, stop)`` in order, together the whole vector (Deep Pepper: global, piece-centric and
    #: square-centric features).
    parts: tuple[tuple[str, int, int], ...]
    #: One factor per feature that brings its usual values into [0, 1] (counts by their most, values by the
    #: largest piece value, ...).
    scale: tuple[float, ...]

    @property
    def size(self) -> int:
        return self.parts[-1][2]


@runtime_checkable
class FeatureLayouts(Protocol):
    """A game whose learner encodings include flat feature vectors laid out as a :class:`FeatureLayout`."""

    def feature_layouts(self) -> Mapping[str, FeatureLayout]:
        """The layouts of its feature encodings by name (they do not depend on the game's options)."""


def feature_layout(name: str, size: int | None = None) -> FeatureLayout | None:
    """The feature layout ``name`` (of ``size`` features, when given) as an installed game offers it, or None.

    Asked by a network that is built from an observation shape alone (the network families know no game): the
    games whose class offers :class:`FeatureLayouts` are made with their default options and asked."""
    for entry in get_registry().entries("games"):
        if capability(entry.cls, "feature-layouts") is not None:
            layout = entry.cls().feature_layouts().get(name)
            if layout is not None and (size is None or layout.size == size):
                return layout
    return None


# ------------------------------------------------------------------ the table: every capability, one accessor

@dataclass(frozen=True)
class Capability:
    """One row of docs/capabilities.md: what a game may offer and where the host finds it."""

    #: How docs/capabilities.md and :func:`capability` name it (``"record-reader"``).
    name: str
    #: The runtime-checkable protocol that says what it is (None: a signature, or the Game's attributes).
    protocol: type | None
    #: Where the host finds it: ``"game"``, ``"state"``, ``"made by the game"`` or ``"made by its alpha-beta
    #: engine"``.
    found: str
    #: ``subject -> what offers it, or None``.
    find: Callable[[Any], Any]


def _on_the_game(protocol: type) -> Callable[[Any], Any]:
    """Found on the game: its class implements the protocol (asked of a game class too, no game is made)."""
    return lambda game: game if isinstance(game, protocol) else None


def _on_its_states(protocol: type) -> Callable[[Any], Any]:
    """Found on the states: asked of a state, that state; asked of a game, the state class its
    ``new_initial_state`` declares, so that asking makes no position (a checkers position compiles its hash
    kernel: ``plyground uci`` looks through every game), else its initial position."""
    def find(subject: Any) -> Any:
        if isinstance(subject, State):
            return subject if isinstance(subject, protocol) else None
        declared = _declared_state_class(type(subject))
        if declared is not None:
            return declared if issubclass(declared, protocol) else None
        try:
            state = subject.new_initial_state()
        except Exception:  # noqa: BLE001 - a game that cannot start has no capabilities; the layers report why
            return None
        return state if isinstance(state, protocol) else None
    return find


def _made_by(method: str, protocol: type, maker: Callable[[Any], Any] = lambda game: game) -> Callable[[Any], Any]:
    """Made on request: ``maker(game).method()`` (the game's kernels, its alpha-beta engine, that engine's
    learning kits) when it has the method, kept when the product implements the protocol."""
    def find(game: Any) -> Any:
        source = maker(game)
        make = getattr(source, method, None) if source is not None else None
        product = make() if callable(make) else None
        return product if isinstance(product, protocol) else None
    return find


def _its_alphabeta_engine(game: Any) -> Any:
    return capability(game, "alphabeta-engine")


def _row(name: str, protocol: type | None, found: str, find: Callable[[Any], Any] | None = None) -> Capability:
    finders = {"game": _on_the_game, "state": _on_its_states}
    return Capability(name, protocol, found, find if find is not None else finders[found](protocol))


#: Every capability a game may offer, in the order of docs/capabilities.md (a test checks the page lists each).
CAPABILITIES: dict[str, Capability] = {row.name: row for row in (
    _row("record-reader", RecordReader, "game"),
    _row("record-streams", RecordStreams, "game"),
    _row("record-recognizer", RecordRecognizer, "game"),
    _row("record-writer", RecordWriter, "game"),
    _row("annotated-records", AnnotatedRecords, "game"),
    _row("bundled-records", BundledRecords, "game"),
    _row("bundled-models", BundledModels, "game"),
    _row("moves-listing", MovesListing, "game"),
    _row("players-in-picture", None, "game", _render_text_takes_players),
    _row("winning-chances", WinningChances, "game"),
    _row("uci-positions", UciPositions, "state"),
    _row("stable-hashes", StableHashes, "state"),
    _row("learner-encodings", None, "game", lambda game: game if game.supports_learning else None),
    _row("action-decoder", ActionDecoder, "state"),
    _row("shared-actions", SharedActions, "state"),
    _row("feature-layouts", FeatureLayouts, "game"),
    _row("compiled-kernels", CompiledKernels, "made by the game", _made_by("kernels", CompiledKernels)),
    _row("position-layout", PositionLayout, "game"),
    _row("endgame-databases", EndgameDatabases, "game"),
    _row("solved-positions", SolvedPositions, "game"),
    _row("alphabeta-engine", AlphaBetaEngine, "made by the game",
         _made_by("alphabeta_engine", AlphaBetaEngine, _on_the_game(AlphaBetaEngines))),
    _row("evaluation-learning", EvaluationLearning, "made by its alpha-beta engine",
         _made_by("learning", EvaluationLearning, _its_alphabeta_engine)),
    _row("nnue-learning", NnueLearning, "made by its alpha-beta engine",
         _made_by("nnue_learning", NnueLearning, _its_alphabeta_engine)),
)}


def capability(subject: Any, name: str) -> Any | None:
    """What offers the capability ``name`` (a key of :data:`CAPABILITIES`) for ``subject``, or None.

    ``subject`` is a game (or a game class, for the capabilities found on the game: no game is made), or a state
    for those its states hold.  The answer is the game or state itself when it has the capability (for a game
    asked about its states: the state class it declares, or its initial position), or what the game makes on
    request (its kernels, its alpha-beta engine, that engine's learning kits)."""
    row = CAPABILITIES.get(name)
    if row is None:
        raise ValueError(f"unknown capability {name!r}; capabilities: {', '.join(CAPABILITIES)}")
    return row.find(subject)


def capabilities_of(game: Game) -> list[str]:
    """The names of the capabilities ``game`` offers, in the table's order (the conformance kit reports them)."""
    return [name for name in CAPABILITIES if capability(game, name) is not None]


def _games_offering(name: str) -> list[str]:
    """The installed games that offer capability ``name`` (for a message), asked of their classes."""
    return [entry.name for entry in get_registry().entries("games") if capability(entry.cls, name) is not None]
