"""The contracts every plugin kind fulfils.

Plugins subclass these bases.  Each concrete class carries ``name`` (what users
type), ``description`` (one line) and ``options`` (declared :class:`Option`\\ s).

Game / State follow OpenSpiel: an immutable :class:`Game` (rules + parameters)
creates :class:`State`\\ s.  States are mutated with push/pop (``apply`` /
``undo``) and copied with ``clone``; whoever hands a state to code it does not
own (a player, a renderer) hands over a clone, so no aliasing bug can leak.
Players are numbered 0 (moves first: Black in checkers, X in tic-tac-toe) and 1.

The game contract comes in layers (:data:`PLAYABLE`, :data:`SEARCHABLE`,
:data:`LEARNABLE`): what a game implements decides which players can use it, and
:func:`unsupported_reason` says in words what is missing.  Optional abilities
beyond the layers (reading records, UCI positions, compiled kernels...) are named
in :mod:`plyground.capabilities`.
"""
from __future__ import annotations

import enum
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, ClassVar, Hashable, Mapping, NamedTuple, Sequence

import numpy as np

from .draws import answer_by_analysis
from .errors import UnsupportedGame
from .options import Option, resolve_options
from .util.stopping import StopSignal
from .util.timelimit import TimeLimit

Move = Hashable  # a game's own move value; compare with ==, use as dict key


class Plugin:
    """Common class attributes of everything registered."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    options: ClassVar[tuple[Option, ...]] = ()

    @classmethod
    def checked_options(cls, game: "Game", options: Mapping[str, Any], role: str, verb: str,
                        reason: str | None = None) -> dict:
        """For players and trainers, once, in the base class's constructor: check that the plugin can
        ``verb`` ("play", "train") ``game`` at all (``reason``, else ``unsupported_reason``; an
        :class:`~plyground.errors.UnsupportedGame` naming the game and why not), then resolve ``options``
        against :attr:`options` (``role``, "player" or "trainer", names the plugin in errors)."""
        reason = reason or cls.unsupported_reason(game)
        if reason:
            raise UnsupportedGame(f"{role} {cls.name} cannot {verb} {game.name}: {reason}", cls, reason)
        return resolve_options(cls.options, options, f"{role} {cls.name}")


# --------------------------------------------------------------------- games

class Outcome(NamedTuple):
    """How a game ended: each player's return (+1 win, -1 loss, 0 draw) and why, in words."""

    returns: tuple[float, float]
    reason: str = ""

    @classmethod
    def win(cls, player: int, reason: str = "") -> "Outcome":
        """``player`` (0 or 1) won."""
        return cls((1.0, -1.0) if player == 0 else (-1.0, 1.0), reason)

    @classmethod
    def draw(cls, reason: str = "") -> "Outcome":
        return cls((0.0, 0.0), reason)


class State:
    """A position plus the history needed for the rules (repetition, counters).

    The result of a game has one source: :meth:`outcome`.  A game implements
    ``outcome()`` and gets ``is_terminal``, ``returns`` and ``outcome_reason``
    from it, or implements those three itself (the built-in games do, for
    speed) and gets ``outcome()`` from them.
    """

    game: "Game"

    def current_player(self) -> int:
        """0 or 1; meaningless once terminal."""
        raise NotImplementedError

    def legal_moves(self) -> list[Move]:
        """Every legal move, in a fixed order; empty when terminal."""
        raise NotImplementedError

    def apply(self, move: Move) -> None:
        """Play ``move`` (must be legal) in place."""
        raise NotImplementedError

    def undo(self) -> None:
        """Take back the last applied move, restoring everything."""
        raise NotImplementedError

    def clone(self) -> "State":
        """An independent copy, history included."""
        raise NotImplementedError

    def outcome(self) -> Outcome | None:
        """``None`` while the game goes on; else the final returns and why the game ended."""
        if _overrides(self, "is_terminal") and _overrides(self, "returns"):
            return Outcome(tuple(self.returns()), self.outcome_reason()) if self.is_terminal() else None
        raise NotImplementedError("a State implements outcome(), or is_terminal() and returns()")

    def is_terminal(self) -> bool:
        return self.outcome() is not None

    def returns(self) -> tuple[float, float]:
        """Final reward per player: +1 win, -1 loss, 0 draw (0, 0 while not terminal)."""
        outcome = self.outcome()
        return (0.0, 0.0) if outcome is None else tuple(outcome.returns)

    def claimable_draw(self) -> str | None:
        """The draw the side to move may claim here by the rules, in words ("threefold repetition"); None when
        there is none (the default: a game whose rules draw by themselves)."""
        return None

    def outcome_reason(self) -> str:
        """Why the game ended, in words ("no legal moves", "threefold repetition", ...)."""
        if not _overrides(self, "outcome"):
            return ""
        outcome = self.outcome()
        return "" if outcome is None else outcome.reason

    def move_to_text(self, move: Move) -> str:
        """The move in the game's own notation (``11-15``, ``e4``, ``b2``)."""
        raise NotImplementedError

    def parse_move(self, text: str) -> Move:
        """The legal move named by ``text``; raises :class:`MoveError` saying why not."""
        raise NotImplementedError

    def to_text(self) -> str:
        """The position as text (FEN or the game's equivalent)."""
        raise NotImplementedError

    def key(self) -> int:
        """A hash of the position and side to move, for repetition and transposition tables."""
        raise NotImplementedError

    @property
    def ply(self) -> int:
        """Moves applied since the start of the game or the loaded position."""
        raise NotImplementedError

    @property
    def move_number(self) -> int:
        """The number a record gives the move to play here: 1 at a game's start, one more after both sides
        have moved (chess's FEN full-move number).  A position loaded from text keeps the number its text
        gives, so a game started from a reviewed position goes on with the review's numbers.  The default
        counts from :attr:`ply` (a loaded position is move 1); games whose text carries it override this."""
        return 1 + self.ply // 2

    # Learner encodings (games that support learning players) ---------------
    def observation(self) -> np.ndarray:
        """float32 tensor of shape ``game.observation_shape``, from the side to move's view."""
        raise NotImplementedError

    def action_index(self, move: Move) -> int:
        """Index of ``move`` in ``range(game.num_actions)``; distinct for distinct legal moves."""
        raise NotImplementedError

    def legal_mask(self) -> np.ndarray:
        """bool array of length ``game.num_actions``: True at the indices of legal moves."""
        mask = np.zeros(self.game.num_actions, dtype=bool)
        for move in self.legal_moves():
            mask[self.action_index(move)] = True
        return mask

    def __str__(self) -> str:
        return self.game.render_text(self)


def _overrides(state: State, name: str) -> bool:
    """Whether ``state``'s class implements ``name`` itself rather than inheriting State's."""
    return getattr(type(state), name, None) not in (None, getattr(State, name, None))


# ------------------------------------------------------------ the layered game contract

@dataclass(frozen=True)
class Layer:
    """One layer of the game contract: the State API a way of using a game calls, completely.

    Each layer includes the one below it.  ``key()`` is in no layer: searches use
    it for transposition tables when a game has it and fall back to ``to_text()``.
    """

    name: str
    #: Who calls it, in words for messages ("tree search").
    purpose: str
    #: State methods and properties the layer needs (``is_terminal`` and ``returns`` may come from ``outcome``).
    state_api: tuple[str, ...]
    #: Whether the Game must declare learner encodings (``observation_shape``, ``num_actions``).
    needs_encodings: bool = False


#: What a match needs: random and human players, the match runner, the console (clones go to players).
PLAYABLE = Layer("playable", "a match", ("current_player", "legal_moves", "apply", "clone", "is_terminal",
                                         "returns", "move_to_text", "parse_move", "to_text"))
#: What tree search needs besides (mcts, alphabeta, alphazero): push/pop and the ply counter of tree reuse.
SEARCHABLE = Layer("searchable", "tree search", PLAYABLE.state_api + ("undo", "ply"))
#: What learning players and trainers need besides (alphazero, expert iteration): the learner encodings.
LEARNABLE = Layer("learnable", "learning", SEARCHABLE.state_api + ("observation", "action_index"),
                  needs_encodings=True)
LAYERS = (PLAYABLE, SEARCHABLE, LEARNABLE)

#: What searching through the Python State API needs (mcts, alphabeta, alphazero): the searchable layer.
SEARCH_STATE_API = SEARCHABLE.state_api

#: Results a State may get from ``outcome()`` instead of implementing them.
_FROM_OUTCOME = ("is_terminal", "returns")


def unsupported_reason(game: "Game", layer: Layer = PLAYABLE) -> str | None:
    """Why ``game`` does not fulfil ``layer`` of the contract (for ``Player.unsupported_reason``), or ``None``."""
    if layer.needs_encodings and not game.supports_learning:
        return "the game has no learner encodings (observation_shape and num_actions)"
    return _missing(game, layer.state_api, layer.purpose)


def missing_state_api(game: "Game", required: Sequence[str] = SEARCH_STATE_API) -> str | None:
    """Why ``game``'s states lack ``required`` (by default what tree search needs), or ``None``."""
    return _missing(game, required, "tree search")


def _missing(game: "Game", required: Sequence[str], purpose: str) -> str | None:
    try:
        state = game.new_initial_state()
    except NotImplementedError:
        return "the game cannot create a starting position"
    except Exception as exc:  # a broken third-party game: reported, not swallowed
        return f"creating its starting position failed ({exc})"
    has_outcome = _overrides(state, "outcome")
    missing = [name for name in required
               if not _overrides(state, name) and not (has_outcome and name in _FROM_OUTCOME)]
    if missing:
        return f"its states do not implement {', '.join(missing)} (the State API that {purpose} needs)"
    return None


class Game(Plugin):
    """Rules and parameters.  Construct with the declared options as keywords.

    Optional abilities a game may add (``read_records(text)``, the inverse of
    :meth:`format_records`; UCI positions on its states; a position layout for
    its kernels) are the protocols of :mod:`plyground.capabilities`.
    """

    #: Names of the two sides, first mover first.
    side_names: ClassVar[tuple[str, str]] = ("first", "second")
    #: Extension of the game-record format written by :meth:`format_records`.
    record_suffix: ClassVar[str] = ".jsonl"
    #: Player specs to try, strongest first, for ``plyground play`` with no arguments.
    default_opponents: ClassVar[tuple[str, ...]] = ("random",)
    #: Player specs to try, strongest first, for judging a game's moves (``plyground analyse`` with no
    #: ``--engine``): the first installed judges.  By default alpha-beta, the strongest bundled search, with
    #: no contempt (a judge should call an even position even).
    default_judges: ClassVar[tuple[str, ...]] = ("alphabeta:contempt=0",)
    #: How strong the computer plays (the window menu's Level, ``plyground play --level``): level name ->
    #: player specs in order of preference (the first installed plays), easiest level first; by custom easy,
    #: medium, hard and strongest, the last being :attr:`default_opponents`.  Empty: the game has no levels.
    levels: ClassVar[Mapping[str, tuple[str, ...]]] = MappingProxyType({})
    #: The side whose view a numeric evaluation is shown from, in every position ("+1.20, + good for White",
    #: as lichess shows White's): chess White (0); a game whose first side is Black (checkers) names White's.
    evaluation_side: ClassVar[int] = 0
    #: Learner encodings; ``None`` for games without them.
    observation_shape: ClassVar[tuple[int, ...] | None] = None
    num_actions: ClassVar[int | None] = None
    #: Short rules text for tutorials and ``help``.
    rules_text: ClassVar[str] = ""

    def __init__(self, **params: Any) -> None:
        self.params = resolve_options(self.options, params, f"game {self.name}")

    def new_initial_state(self) -> State:
        raise NotImplementedError

    def new_state(self, text: str) -> State:
        """A state from position text; raises :class:`PositionError` naming what is wrong."""
        raise NotImplementedError

    def render_text(self, state: State, last_move: Move | None = None, color: bool = False) -> str:
        """A console picture of the position.

        A picture with a status line may take ``players=(name, name)`` as well and name
        who plays the side to move there (``capabilities.pictures_name_players``)."""
        return state.to_text()

    def augment(self, observation: np.ndarray, policy: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """Symmetric copies of one training example (the example itself included)."""
        return [(observation, policy)]

    def kernels(self) -> Any | None:
        """Compiled kernels for fast search, or ``None``; their form is game-specific."""
        return None

    def perft(self, state: State, depth: int) -> int:
        """Leaf count of the legal-move tree; games may override with a compiled version."""
        if depth == 0:
            return 1
        moves = state.legal_moves()
        if depth == 1:
            return len(moves)
        total = 0
        for move in moves:
            state.apply(move)
            total += self.perft(state, depth - 1)
            state.undo()
        return total

    def format_records(self, records: Sequence["GameRecord"]) -> str:
        """Records as text in the game's file format (PDN for checkers; JSON lines by default)."""
        import json
        return "".join(json.dumps(r.to_json()) + "\n" for r in records)

    @property
    def supports_learning(self) -> bool:
        """Whether the game declares learner encodings (the :data:`LEARNABLE` layer checks its states too)."""
        return self.observation_shape is not None and self.num_actions is not None


# ------------------------------------------------------------------- results

_PLAYER_CHANGE = re.compile(r"from ply (\d+) (.+?): (.*) \(was (.*)\)")


@dataclass
class GameRecord:
    """A finished (or abandoned) game: what happened and why."""

    game: str
    players: tuple[str, str]
    start: str                      # position text of the starting position
    moves: list[str] = field(default_factory=list)
    returns: tuple[float, float] = (0.0, 0.0)
    reason: str = ""
    finished: bool = True
    tags: dict = field(default_factory=dict)
    #: What an annotated record (``plyground analyse``'s, or any PDN/PGN with NAGs and comments) says of each move:
    #: a :class:`plyground.files.recordio.MoveNote` or None a move; empty when it says nothing.  Not part of a record's
    #: identity: the same game with or without comments compares equal.
    notes: list = field(default_factory=list, compare=False)

    @property
    def result_text(self) -> str:
        """PGN-style result from the first player's side: 1-0, 0-1, 1/2-1/2 or *."""
        if not self.finished:
            return "*"
        a, b = self.returns
        return "1-0" if a > b else "0-1" if b > a else "1/2-1/2"

    def score(self, player: int) -> float:
        """1, 0.5 or 0 for ``player``."""
        a, b = self.returns if player == 0 else self.returns[::-1]
        return 1.0 if a > b else 0.0 if b > a else 0.5

    #: The tag that records a change of player in a resumed game: entries "from ply N SIDE: NEW (was OLD)",
    #: joined by "; " (a tag, so PDN, PGN and JSON lines all keep it).
    PLAYER_CHANGES = "PlayerChanges"

    def player_at(self, side: int, ply: int, side_names: Sequence[str]) -> str:
        """Who played ``side``'s move number ``ply`` (1: the first move of the record): ``players[side]``,
        unless the game was resumed with another player for that side (:attr:`PLAYER_CHANGES`) after it."""
        name = self.players[side]
        changes = [entry for entry in str(self.tags.get(self.PLAYER_CHANGES, "")).split("; ") if entry]
        for entry in reversed(changes):      # the latest change at or before the ply holds; before the first,
            match = _PLAYER_CHANGE.fullmatch(entry)          # the player it replaced
            if match is None or match.group(2) != side_names[side]:
                continue
            if ply >= int(match.group(1)):
                return name
            name = match.group(4)
        return name

    def to_json(self) -> dict:
        return {"game": self.game, "players": list(self.players), "start": self.start,
                "moves": self.moves, "result": self.result_text, "reason": self.reason,
                "returns": list(self.returns), "finished": self.finished, "tags": self.tags}


# ------------------------------------------------------------------- players

@dataclass(frozen=True)
class Budget:
    """Per-move limits from the match; ``None`` leaves the player's own option in force."""

    simulations: int | None = None
    seconds: float | None = None
    #: Under a clock: the most the move may take where the search is unsure (its best move changed at its
    #: last depth); ``seconds`` is then what it plans to spend.  None: ``seconds`` is a fixed move time, spent.
    most_seconds: float | None = None


class Command(enum.Enum):
    """What a human may answer instead of a move."""

    UNDO = "undo"
    RESIGN = "resign"
    QUIT = "quit"
    #: Asked of a renderer's ``ask_move`` only: the human player answers it with a search's analysis.
    HINT = "hint"
    #: Asked of a renderer's ``ask_move`` only: infinite analysis -- the human player's hint search of the
    #: position runs (shown live) until the renderer's ``interruption()`` answers ``ANALYSE`` (stop), then the
    #: person is asked again.
    ANALYSE = "analyse"
    #: A renderer's answer when the person's clock (``Renderer.game_clock``) ran out while it waited.
    TIME_UP = "time up"
    #: Offer the opponent a draw: a bot answers by its evaluation (:meth:`Player.answer_draw`), a person at the
    #: same board by accepting (``ACCEPT_DRAW``) or by moving (declined).  Then the person is asked again.
    OFFER_DRAW = "offer draw"
    #: Accept the draw the other person offered (a draw by agreement).
    ACCEPT_DRAW = "accept draw"
    #: Claim the draw the rules allow here (:meth:`State.claimable_draw`: chess's threefold repetition or 50-move
    #: rule when the game leaves the claim to the players).
    CLAIM_DRAW = "claim draw"


#: A search shown live (:meth:`Player.report_progress`) is reported at most this often: five times a second.
PROGRESS_SECONDS = 0.2


class Player(Plugin):
    """Chooses moves.  Construct as ``cls(game, **options)``: the options as typed values or as the text
    of a spec; this constructor checks that the player can play ``game`` and resolves them, once, into
    ``self.config`` (a subclass calls it first and reads its options there)."""

    #: True for players that get their moves from a person through a renderer.
    needs_renderer: ClassVar[bool] = False

    def __init__(self, game: Game, **options: Any) -> None:
        self.game = game
        # Every player plays matches: a game short of the playable layer is refused for all of them.
        self.config = self.checked_options(game, options, "player", "play",
                                           reason=unsupported_reason(game, PLAYABLE))
        self.renderer: "Renderer | None" = None
        #: Set (from another thread) when the move being chosen is no longer wanted: a search
        #: that can take long polls it and returns soon (see :mod:`plyground.util.stopping`).
        self.stop_signal = StopSignal()

    #: Set by the match runner while a renderer shows the search live (:meth:`report_progress`); None
    #: otherwise.  A class attribute, so players that skip ``__init__`` have it too.
    progress: "Callable[[dict], None] | None" = None
    #: Set by whoever asks the player to judge positions rather than to play them (a game report's judge, a
    #: hint, an engine's infinite analysis, an opening book's check): a player that would answer some
    #: positions without searching them (from an opening book) searches them then.
    analysing: bool = False
    _progress_at: float = 0.0

    @classmethod
    def unsupported_reason(cls, game: Game) -> str | None:
        """Why this player cannot play ``game``, or ``None`` if it can."""
        return None

    @classmethod
    def defaults_reason(cls, game: Game) -> str | None:
        """Why this player cannot play ``game`` with its default options though it can with others (a model
        file it must be given: ``alphazero`` on a game that bundles none); None if it can.  A menu offers only
        players that can play as they are."""
        return cls.unsupported_reason(game)

    def report_progress(self, describe: Callable[[], "dict | None"], *, force: bool = False) -> None:
        """From the search's thread, between its steps: hand the analysis so far (``describe()``, in the
        form of :meth:`analysis`) to whoever watches (``self.progress``), at most every
        :data:`PROGRESS_SECONDS` (``force``: now, e.g. a finished iteration); ``describe`` is only called
        when someone watches and it is time.  A failing description is skipped: the display is an extra."""
        watcher = self.progress
        if watcher is None:
            return
        now = time.monotonic()
        if not force and now - self._progress_at < PROGRESS_SECONDS:
            return
        self._progress_at = now
        try:
            analysis = describe()
        except Exception:  # noqa: BLE001 - a display extra must not end the search
            return
        if analysis:
            watcher(dict(analysis, live=True))

    def reset(self, seed: int | None = None) -> None:
        """Forget the previous game; ``seed`` makes the next one reproducible."""

    def choose_move(self, state: State, budget: Budget) -> Move | Command:
        """Pick a legal move for ``state`` (a clone the player may mutate).

        Runs on a thread of the match runner; when ``self.stop_signal`` is set the
        answer is no longer wanted and any legal move may be returned at once."""
        raise NotImplementedError

    def warm_up(self) -> None:
        """Do now the slow work of a first move -- compiling or loading kernels, loading a model -- so that
        no move pays for it: called once a player is built, before any clock runs (the match runner before a
        game's first move, the engine servers before they say they are ready).  The player comes out as it
        went in (as after :meth:`reset`).  Default: nothing to do."""

    def warm_up_soon(self) -> None:
        """:meth:`warm_up` for a client that will not wait (the engine servers: a GUI gives an engine seconds to
        say it is ready): a player whose warm-up would take long (compiling its kernels on a first run) starts
        that work in the background and plays meanwhile as it can without it, weaker but in time.  Default:
        :meth:`warm_up`."""
        self.warm_up()

    @property
    def warming_in_background(self) -> bool:
        """Whether :meth:`warm_up_soon` left work running in the background (moves meanwhile are weaker)."""
        return False

    def observe_move(self, state: State, move: Move) -> None:
        """``move`` was played in ``state`` (by either side); for tree reuse and the like."""

    def analysis(self) -> dict | None:
        """What the last search found (visit counts, value), for display; ``None`` if nothing."""
        return None

    def answer_draw(self, state: State) -> tuple[bool, str]:
        """Whether this player accepts the draw its opponent offers in ``state`` (the opponent to move), and why
        in a few words.  The default goes by the last search's value for this player (:meth:`analysis`,
        :func:`plyground.draws.answer_by_analysis`): accepted at most a quarter of a pawn (a man) ahead, or
        when it saw a draw; declined when it has no evaluation."""
        try:
            analysis = self.analysis()
        except Exception:  # noqa: BLE001 - no evaluation: declined, as without a search
            analysis = None
        return answer_by_analysis(analysis)

    def engine_name(self) -> str:
        """The name the engine behind this player gives itself (a UCI engine's ``id name``, "Stockfish 16"),
        for reports that say who judged; empty when the player is its own engine."""
        return ""

    def close(self) -> None:
        """Release processes, threads or files."""


# ----------------------------------------------------------------- renderers

class Renderer(Plugin):
    """Shows games and, when ``interactive``, asks a human for moves.

    Optional abilities are declared as class attributes, so the CLI never
    probes a renderer: ``has_menu`` (it implements :meth:`run_menu`: the whole
    application, choosing game and players itself), ``runs_games`` (it
    implements :meth:`play`: it runs the game loop itself, e.g. to keep a
    window responsive while bots think), ``reviews_games`` (it implements
    :meth:`review`: stepping through a recorded game) and ``shows_progress``
    (its :meth:`show_analysis` also takes a search still running, several times
    a second: live analysis).
    """

    interactive: ClassVar[bool] = True
    #: Implements :meth:`run_menu`.
    has_menu: ClassVar[bool] = False
    #: Implements :meth:`play`.
    runs_games: ClassVar[bool] = False
    #: Implements :meth:`review`.
    reviews_games: ClassVar[bool] = False
    #: Shows a bot's search while it runs: the match runner hands it the analysis so far
    #: (:meth:`Player.report_progress`) through :meth:`show_analysis`, the analysis marked ``live``.
    shows_progress: ClassVar[bool] = False

    def __init__(self, **options: Any) -> None:
        self.config = options
        #: The record of the game being played, kept up to date by the match runner (moves so
        #: far, undos included): what a save or record command writes.  None between games.
        self.record: GameRecord | None = None
        #: Both sides' clocks (:class:`plyground.play.clock.Clock`) in a game with a time control, set by the
        #: match runner; None without one.  ``game_clock.remaining(side)`` is the time to show.
        self.game_clock = None

    @classmethod
    def unsupported_reason(cls, game: Game) -> str | None:
        return None

    def start(self, game: Game, state: State, players: tuple[str, str]) -> None:
        """A game begins from ``state`` between the named players."""

    def show(self, state: State, last_move: str | None) -> None:
        """Display ``state``; ``last_move`` is the move text that led to it."""

    def thinking(self, player: str) -> None:
        """A bot is about to think (renderers may show an indicator)."""

    def show_analysis(self, title: str, analysis: dict | None, mover: str | None = None) -> None:
        """What a search found: a bot's ``analysis()`` after its move (``title`` names the bot) or a
        hint asked for (``title`` "hint"); ``mover`` names the side it searched for.  Renderers with
        an analysis view show it (text from :func:`plyground.analysis.analysis_lines`).  With
        ``shows_progress`` it is also called from the searching thread while the search runs, with
        ``analysis["live"]`` true."""

    def interruption(self) -> "Command | None":
        """Polled (from the game's thread) while a bot thinks: ``Command.UNDO`` or ``Command.QUIT``
        when the person asked for it meanwhile, which stops the bot's search; ``None`` to let it think."""
        return None

    def tell(self, text: str) -> None:
        """A word for the person about the game that is neither a move nor its end: a draw offer declined, a
        draw offered by the other person, a claim the rules do not allow here."""

    def draw_offered(self, side: int | None) -> None:
        """The draw offer of ``side`` stands (people at one board): the other side, when asked, may answer
        ``Command.ACCEPT_DRAW``; None: no offer stands (it was declined by a move, or taken back)."""

    def ask_move(self, state: State) -> Move | Command:
        """Get a legal move (or a command) from the human to move, re-asking on bad input."""
        raise NotImplementedError(f"renderer '{self.name}' cannot take moves from a human")

    def end(self, state: State, record: GameRecord) -> None:
        """Announce the result."""

    def close(self) -> None:
        """Close windows and release resources."""

    #: The command line's :class:`plyground.play.session.PlaySettings` for every game a menu starts (the menu adds
    #: its own clock and start position); the host sets it before :meth:`run_menu`, None: the defaults.
    menu_settings: Any = None

    def run_menu(self, registry: Any) -> None:
        """Let the user choose game and players from ``registry`` and play (renderers with ``has_menu``),
        each game a :class:`plyground.play.session.GameSession` with :attr:`menu_settings`."""
        raise NotImplementedError(f"renderer '{self.name}' has no menu")

    def play(self, session: Any) -> GameRecord:
        """Play ``session`` (a :class:`plyground.play.session.GameSession`: ``session.play(renderer)`` on the
        renderer's own terms) and return its record (renderers with ``runs_games``)."""
        raise NotImplementedError(f"renderer '{self.name}' does not run games itself")

    def review(self, review: Any, hint: Callable[[State], None]) -> State | None:
        """Let the person step through ``review`` (a :class:`plyground.play.review.GameReview`: its ``state()``,
        ``last_move``, ``back``/``forward``/``goto``); ``hint(state)`` searches a position and shows what it
        found through :meth:`show_analysis`.  Returns the position to play a new game from, or None when the
        person is done (renderers with ``reviews_games``)."""
        raise NotImplementedError(f"renderer '{self.name}' cannot review games")


# ------------------------------------------------------------------ networks

#: Where and how a loaded network computes: ``Network.load(path, device=..., precision=...)`` for the network
#: plugins that offer it (the autograd networks; docs/autograd.md "Devices"), and the same options on the
#: players and trainers that pass them on.  Never saved in a model file: a network trained on a GPU plays on
#: the CPU.
NETWORK_RUNTIME_OPTIONS: tuple[Option, ...] = (
    Option("device", str, "cpu", "where the network computes: cpu, cuda (GPU 0), cuda:N (GPU N) or cpu-portable "
           "(the GPU code path on the CPU, for tests); a GPU needs pip install 'plyground[gpu]'"),
    Option("precision", str, "float32", "floating type of inference (predict); float16 halves a GPU's memory "
           "traffic, for devices cuda and cpu-portable only; training is always float32",
           choices=("float32", "float16")),
)


class Network(Plugin):
    """A trainable function from observations to (policy logits, values).

    Built from a config for a game's encodings; saved and loaded as data
    (``.npz`` arrays + JSON metadata), never pickle.
    """

    #: The JSON metadata saved with the network: what :meth:`load` read back, empty for a fresh
    #: network.  Instances assign their own dict; the class default is read-only.
    metadata: Mapping[str, Any] = MappingProxyType({})

    @classmethod
    def build(cls, observation_shape: tuple[int, ...], num_actions: int, config: dict) -> "Network":
        raise NotImplementedError

    def predict(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Batch of observations -> (policy logits ``(B, num_actions)``, values ``(B,)`` in [-1, 1])."""
        raise NotImplementedError

    def train_step(self, observations: np.ndarray, policies: np.ndarray, values: np.ndarray) -> dict[str, float]:
        """One optimiser step on a batch; returns the losses by name."""
        raise NotImplementedError

    def save(self, path: Path, metadata: dict | None = None) -> None:
        """Write atomically to ``path`` (npz + JSON metadata)."""
        raise NotImplementedError

    @classmethod
    def load(cls, path: Path) -> "Network":
        """Read a file written by :meth:`save`; raises :class:`ModelFileError` if it is not one.

        A plugin that can compute elsewhere than on the CPU takes the keywords ``device`` (``"cpu"``,
        ``"cuda"``, ``"cuda:N"``) and ``precision`` (``"float32"``, ``"float16"``) too; AlphaZero passes
        them only when they are not the defaults, so a plugin without them still loads on the CPU.  A plugin
        whose ``load`` takes ``data`` (the file's bytes, read already) is given them, so that AlphaZero
        reads a model file once; one without reads ``path`` itself."""
        raise NotImplementedError


# ------------------------------------------------------------------ trainers

class Trainer(Plugin):
    """Runs a training job in a run directory; rerunning the same command resumes it."""

    #: Player spec template to use the result, e.g. ``"alphazero:model={run}/best.npz"``.
    produces: ClassVar[str] = ""
    #: Whether :meth:`run` keeps :attr:`time_limit` (``plyground train --minutes``): it stops at a clean point
    #: before the limit, and rerunning the command goes on from there.
    time_limited: ClassVar[bool] = False

    def __init__(self, game: Game, run_dir: Path, **options: Any) -> None:
        """Checks that the trainer can train ``game`` and resolves the options, once, into ``self.config``
        (a subclass calls it first and reads its options there)."""
        self.game = game
        self.run_dir = Path(run_dir)
        self.config = self.checked_options(game, options, "trainer", "train")
        self.time_limit = TimeLimit()

    @classmethod
    def unsupported_reason(cls, game: Game) -> str | None:
        return None

    def log(self, line: str) -> None:
        """Report progress, one line at a time (stderr unless :meth:`set_log` routed it elsewhere)."""
        print(line, file=sys.stderr, flush=True)

    def set_log(self, log: Callable[[str], None]) -> None:
        """Send this trainer's progress lines to ``log`` (``plyground train --quiet`` drops them)."""
        self.log = log  # type: ignore[method-assign]

    def run(self) -> Path:
        """Train (resuming if the run directory holds a previous run); return the artifact."""
        raise NotImplementedError
