"""The ``alphabeta`` player: options, evaluations, iterative deepening and time control."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from plyground import protocols
from plyground.analysis import pv_text
from plyground.play.book import BOOK_OPTION_HELP, open_book
from plyground.capabilities import ENDGAME_OPTION, alphabeta_engine, bundled_model, endgame_oracle
from plyground.draws import answer_by_analysis
from plyground.errors import ModelFileError, MoveError, UsageError
from plyground.negamax.bounds import MATE, MATE_BOUND, SearchTimeout, stopped_result
from plyground.util.wording import counted
from plyground.negamax.deepening import SEARCH_MODES
from plyground.options import MAX_SECONDS, MAX_SIMULATIONS, Option
from plyground.protocols import Budget, Game, Move, State
from plyground.util.stopping import StopSignal

from ..search.alphabeta import AlphaBetaSearch, zero_evaluation
from ..search.player import SearchPlayer
from .evalfile import NotAnEvaluationFile, load_weights, read_weights


#: The deepest iteration (the depth option's maximum, and the depth of a search a time or node limit stops).
DEEPEST = 64
#: The depth of a search with no time or node limit and no depth given.
UNTIMED_DEPTH = 10


class AlphaBetaPlayer(SearchPlayer):
    name = "alphabeta"
    description = ("Iterative-deepening alpha-beta with quiescence, a transposition table and move ordering; "
                   "material or learned evaluation (compiled for checkers and chess).")
    options = (
        Option("depth", int, None, "deepest iteration in plies (quiescence searches captures beyond it); "
               f"none = as deep as the time or node limit allows (up to {DEEPEST}) where one is set (seconds, "
               f"nodes, a clock, --seconds, UCI go movetime, Hub level move-time), else {UNTIMED_DEPTH}; "
               "given together with a time, it still caps the search", min=1, max=DEEPEST, optional=True,
               remote=True),
        Option("seconds", float, None, "time per move in seconds, spent: depth after depth until it is used; "
               "none = no limit (the match budget overrides it); under a clock the search spends a share of "
               "what is left plus the increment, more when its best move changes", min=0.0, max=MAX_SECONDS,
               optional=True, remote=True),
        Option("nodes", int, None, "node limit per move; none = no limit (a match's simulation budget "
               "overrides it)", min=1, max=MAX_SIMULATIONS, optional=True, remote=True),
        Option("eval", str, "auto", "evaluation: 'auto' (the strongest here: 'nnue' where the game ships a "
               "network, checkers; else 'learned' where it ships one, chess; else 'material'), 'material' "
               "(checkers: man 100, king 130; chess: pawn 100, knight 320, bishop 330, rook 500, queen 900; "
               "other games: 0), 'learned' (the game's bundled linear evaluation: checkers learned from the ACF "
               "archive, chess from master games), 'nnue' (the game's bundled NNUE network, checkers: taught "
               "by self-play) or the path of a "
               "learned weights file (eval.npz from the bonanza trainer), of an NNUE network file (checkers) "
               "or of a pattern evaluation file (checkers: benchmarks/patterns_train.py)", remote=("auto", "material", "learned", "nnue")),
        Option("tt_mb", int, 16, "transposition table size in MiB", min=1, max=4096),
        Option("tt", bool, True, "use the transposition table (off: for experiments)", remote=True),
        Option("ordering", bool, True, "order moves: table move, captures, killers, history (off: for experiments)", remote=True),
        Option("quiescence", bool, True, "search captures beyond the depth limit until the position is quiet", remote=True),
        Option("kernels", bool, True, "use the compiled search when the game has one (checkers, chess)", remote=True),
        Option("search", str, "auto", "how the compiled search treats later moves: 'exact' (a full window "
               "for every move, no reductions: the value is a function of position and depth), 'pvs' "
               "(principal-variation search: null windows first, table cutoffs from deeper searches), "
               "'reduced' (pvs with late quiet moves searched less deep, and the null move in chess) or "
               "'auto' (the game's choice: reduced in checkers and chess)",
               choices=("auto",) + SEARCH_MODES, remote=True),
        Option("contempt", float, None, "what a draw by the rules (repetition, no progress, stalemate...) costs "
               "this player in the search, in men (checkers) or pawns (chess): above 0 it plays on rather than "
               "draw unless that much behind, below 0 it seeks such draws; endgame-database draws are left as "
               "they are; "
               "none = the game's choice (checkers 0.15, chess 0; the compiled search only, elsewhere 0)",
               min=-10.0, max=10.0, optional=True, remote=True),
        ENDGAME_OPTION,
        Option("book", str, "auto", BOOK_OPTION_HELP, remote=("auto", "none")),
    )

    def __init__(self, game: Game, **options: Any) -> None:
        super().__init__(game, **options)
        options = self.config
        self.weights, self.eval_info = load_evaluation(game, options["eval"])
        # Loaded (or, for up to 4 pieces, built) now: a missing database fails here, before any game starts.
        self._oracle = endgame_oracle(game, options["endgame"])
        #: The opening book (plyground.play.book), or None; read now, so a bad file fails before any game starts.
        self.book = open_book(game, options["book"])
        self._warming_up = False             # the warm-up searches: the book would answer it without a search
        self._compiler = None                # a child process compiling the search (warm_up_soon)
        self._fallback = None                # the State-API search meanwhile (and for good if the child failed)
        own = alphabeta_engine(game)
        prices_draws = own is not None and options["kernels"] and hasattr(own, "default_contempt")
        if options["contempt"] not in (None, 0.0) and not prices_draws:
            raise UsageError(f"alphabeta: contempt={options['contempt']:g} needs a compiled search that prices "
                             f"draws (checkers or chess, kernels=true); on {game.name} with kernels="
                             f"{str(options['kernels']).lower()} give contempt=0")
        #: What a draw by the rules costs this player in the search (the option, else the game's choice).
        self.contempt = (own.default_contempt if prices_draws else 0.0) if options["contempt"] is None \
            else options["contempt"]

    # ------------------------------------------------------------ capability
    @classmethod
    def unsupported_reason(cls, game: Game) -> str | None:
        return protocols.unsupported_reason(game, protocols.SEARCHABLE)

    # ------------------------------------------------------------ warming up without keeping a client waiting
    def warm_up_soon(self) -> None:
        """Where the compiled search is not in this machine's cache yet (a first run: tens of seconds to
        compile), a child process compiles it into the cache (:mod:`.background`) while this player searches
        through the State API, whose few kernels compile in seconds; the move after the child is done loads
        the compiled search.  Otherwise, :meth:`warm_up`."""
        engine = self._get_engine()
        cached = getattr(engine, "compiled_on_disk", None)
        if cached is None or self._fallback is not None or cached():
            self.warm_up()
            return
        from . import background
        self._compiler = background.compile_in_child(self.game, self.config)
        self._fallback = self._generic_engine()
        self.warm_up()                       # the State-API search's own kernels, while the child compiles
        self._fallback.clear()

    @property
    def warming_in_background(self) -> bool:
        return self._compiler is not None and self._compiler.poll() is None

    def _search_engine(self):
        """The compiled search, or while a child compiles it, the State-API one."""
        if self._compiler is not None and self._compiler.poll() is not None:
            # Done.  A child that failed (killed, or the cache cannot be written) leaves the fallback for good:
            # compiling here would take a move's time many times over.
            if self._compiler.returncode == 0 and self._get_engine().compiled_on_disk():
                self._fallback = None
            self._compiler = None
        return self._fallback if self._fallback is not None else self._get_engine()

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self._fallback is not None:
            self._fallback.clear()

    def warm_up(self) -> None:
        """The search's warm-up (:meth:`SearchPlayer.warm_up`), searched even where the book holds the initial
        position: it is there to compile the search."""
        self._warming_up = True
        try:
            super().warm_up()
        finally:
            self._warming_up = False

    def close(self) -> None:
        if self._compiler is not None:
            from . import background
            background.stop(self._compiler)
            self._compiler = None
        super().close()

    # ------------------------------------------------------------ search
    def choose_move(self, state: State, budget: Budget = Budget()) -> Move:
        legal = state.legal_moves()
        if not legal:
            raise MoveError(f"alphabeta was asked to move in a finished game ({state.to_text()})")
        started = time.perf_counter()
        if len(legal) > 1 and self.book is not None and not (self.analysing or self._warming_up):
            chosen = self.book.choose(state, self._rng)
            if chosen is not None:
                move, entry, entries = chosen
                self._analysis = {"move": entry.move, "value": None, "depth": 0, "nodes": 0, "pv": [entry.move],
                                  "seconds": time.perf_counter() - started, "engine": "book",
                                  "book": [e.to_json() for e in entries]}
                return move
        engine = self._search_engine()
        seconds = self.config["seconds"] if budget.seconds is None else budget.seconds
        nodes = self.config["nodes"] if budget.simulations is None else budget.simulations
        if len(legal) == 1:
            self._analysis = {"move": state.move_to_text(legal[0]), "value": None, "depth": 0, "nodes": 0,
                              "pv": [], "seconds": 0.0, "engine": engine.kind, "forced": True}
            return legal[0]
        deadline = None if seconds is None else started + seconds
        most = None if deadline is None or budget.most_seconds is None else started + budget.most_seconds
        on_depth = None
        if self.progress is not None:     # a finished depth is news: shown at once
            on_depth = lambda found: self.report_progress(           # noqa: E731
                lambda: self._describe(state, found, started, engine), force=True)
        result = engine.think(state, search_depth(self.config["depth"], seconds, nodes), deadline, nodes, on_depth,
                              most=most)
        move = result["move"]
        if move not in legal:
            raise RuntimeError(f"alphabeta: the search proposed {move!r}, which is not legal in {state.to_text()}")
        self._analysis = self._describe(state, result, started, engine)
        return move

    def answer_draw(self, state: State) -> tuple[bool, str]:
        """By the last search's value (:meth:`Player.answer_draw`); after a move from the book, which has no value,
        the position (the opponent to move) is searched first, as a judge searches it, and its value taken for
        this side."""
        if not self._analysis or self._analysis.get("engine") != "book" or state.is_terminal():
            return super().answer_draw(state)
        saved, analysing = self._analysis, self.analysing
        self.analysing = True
        try:
            self.choose_move(state.clone(), Budget())
            theirs = self._analysis or {}
        finally:
            self.analysing, self._analysis = analysing, saved
        value = theirs.get("value")
        if value is None:               # the opponent's one legal move: no value either
            return answer_by_analysis(None)
        return answer_by_analysis({"value": -value, "score": score_text(-value, self._unit())})

    def _describe(self, state: State, result: dict, started: float, engine) -> dict:
        """The engine's result (its move a Move) as the analysis: the move as text, the score in words."""
        result = dict(result, seconds=time.perf_counter() - started, engine=engine.kind,
                      score=score_text(result.get("value"), self._unit()),
                      move=state.move_to_text(result["move"]))
        if self._oracle is not None:
            result["database"] = self._oracle.words(state)
        return result

    def _unit(self) -> str | None:
        """What the game's evaluation counts as 100 (None: the game has no evaluation of its own)."""
        own = alphabeta_engine(self.game) if self.weights is not None else None
        return None if own is None else getattr(own, "unit", None)

    def _build_engine(self):
        """'compiled' (the game's own search: checkers, chess) or 'generic' (Python State API)."""
        cfg = self.config
        own = alphabeta_engine(self.game)       # the game's evaluation and compiled search (checkers)
        if own is not None and cfg["kernels"]:
            # search=auto is left to the game (an engine that predates the option is not asked).
            mode = {} if cfg["search"] == "auto" else {"search": cfg["search"]}
            engine = own.compiled_engine(self.weights, tt_mb=cfg["tt_mb"], use_tt=cfg["tt"],
                                         ordering=cfg["ordering"], quiescence=cfg["quiescence"],
                                         stop=self.stop_signal, oracle=self._oracle, **mode)
            if self.contempt:                   # a game's own engine need not price draws (contempt 0 then)
                engine.set_contempt(self.contempt)
            return engine
        return self._generic_engine()

    def _generic_engine(self) -> "GenericEngine":
        """The search through the State API (kernels=false); the game's own evaluation (checkers, chess) is
        then called on each state (no capture search here)."""
        own = alphabeta_engine(self.game)
        evaluate = zero_evaluation if own is None else own.evaluator(self.weights)
        return GenericEngine(evaluate, self.config, self.stop_signal)


def search_depth(depth: int | None, seconds: float | None, nodes: int | None) -> int:
    """The deepest iteration of a search: ``depth`` where given (it caps a timed search too), else as deep as
    a time or node limit allows (:data:`DEEPEST`), else :data:`UNTIMED_DEPTH`."""
    if depth is not None:
        return depth
    return DEEPEST if seconds is not None or nodes is not None else UNTIMED_DEPTH


def score_text(value: float | None, unit: str | None) -> str | None:
    """The value in words: a win or loss in so many plies, else (``unit``: the name of the piece an
    evaluation counts as 100, the checkers man or the chess pawn) so many of them ahead for the side to
    move, or the raw value."""
    if value is None:
        return None
    if abs(value) > MATE_BOUND:
        plies = int(round(MATE - abs(value)))
        return f"{'win' if value > 0 else 'loss'} in {counted(plies, 'ply', 'plies')}"
    if unit is None and value == 0:      # this game has no evaluation: only won and lost positions score
        return "no win or loss within the search"
    return f"{value / 100 + 0.0:+.2f} {unit}" if unit else f"{value + 0.0:+.2f}"   # + 0.0: never "-0.00"


class GenericEngine:
    """Iterative deepening over :class:`AlphaBetaSearch`."""

    kind = "generic"

    def __init__(self, evaluate: Callable[[State], float], cfg: dict, stop: StopSignal) -> None:
        entries = max(1024, cfg["tt_mb"] * (1 << 20) // 200)   # about 200 bytes per dict entry
        self.search = AlphaBetaSearch(evaluate, use_tt=cfg["tt"], ordering=cfg["ordering"], tt_entries=entries)
        self.search.stop = stop

    def clear(self) -> None:
        self.search.clear()

    def think(self, state: State, max_depth: int, deadline: float | None, node_limit: int | None,
              on_depth=None, most: float | None = None) -> dict:
        """Iterative deepening; ``on_depth(result so far)`` after every finished depth; the time to ``deadline``
        is spent (``most``, a clock's limit for an unsure move, is not used by this search)."""
        search = self.search
        search.new_move()
        root = state.clone()
        best = None
        total = 0
        for depth in range(1, max_depth + 1):
            search.nodes = 0
            search.deadline = deadline if depth > 1 else None
            search.node_limit = float("inf") if node_limit is None or depth == 1 else node_limit - total
            try:
                value, pv = search.search(root, depth)
            except SearchTimeout:
                total += search.nodes
                break
            total += search.nodes
            best = {"move": pv[0], "value": value, "depth": depth,
                    "pv": pv_text(state, pv)}
            if on_depth is not None:
                on_depth(dict(best, nodes=total))
            if abs(value) > MATE_BOUND or (deadline is not None and time.perf_counter() >= deadline):
                break
            if node_limit is not None and total >= node_limit:
                break
        best = best or stopped_result(state)
        best["nodes"] = total
        return best


#: The name a game's bundled NNUE network has among its bundled models (the BundledModels ability).
NNUE_MODEL = "alphabeta-nnue"


def load_evaluation(game: Game, spec: str) -> tuple[np.ndarray | None, dict]:
    """Weights for ``eval=spec`` (``None`` for a game without its own evaluation) and a description."""
    own = alphabeta_engine(game)
    if spec.strip().lower() == "auto":
        if getattr(own, "load_network", None) is not None and bundled_model(game, NNUE_MODEL) is not None:
            spec = "nnue"
        else:
            spec = "learned" if own is not None and bundled_model(game, "alphabeta") is not None else "material"
    if spec.strip().lower() == "material":
        if own is not None:
            return own.material_weights(), {"eval": "material"}
        return None, {"eval": "material (0: only won/lost/drawn positions score)"}
    if spec.strip().lower() == "nnue":
        load_network = getattr(own, "load_network", None)
        if load_network is None:
            raise ModelFileError(f"eval=nnue: {game.name} has no NNUE evaluation; use eval=learned or "
                                 f"eval=material")
        path = bundled_model(game, NNUE_MODEL)
        if path is None:
            raise ModelFileError(f"no NNUE network is bundled for {game.name}; give eval=PATH of a {game.name} "
                                 f"NNUE network file (plyground train nnue makes one), or use eval=learned")
        return load_network(path), {"eval": "nnue", "path": str(path)}
    if spec.strip().lower() == "learned":
        # The game ships its learned evaluation (checkers: learned from the ACF archive, docs/bonanza.md).
        path = bundled_model(game, "alphabeta")
        if path is None:
            raise ModelFileError(f"no learned evaluation is bundled for {game.name}; "
                                 f"use eval=material or eval=PATH from 'plyground train bonanza'")
    else:
        path = Path(spec).expanduser()
    if own is None:
        _, metadata = read_weights(path)
        if metadata.get("game") != game.name:
            raise ModelFileError(f"{path} is an evaluation for the game {metadata.get('game')!r}, not {game.name!r}")
        raise ModelFileError(f"{path}: alphabeta has no evaluation features for {game.name!r} "
                             f"(learned evaluations exist for checkers only); use eval=material")
    try:
        weights, metadata = load_weights(path, own.feature_metadata())
    except NotAnEvaluationFile as linear_error:
        # Not a linear evaluation's file: the game's other evaluations may read it (the formats name themselves;
        # checkers: an NNUE network or a pattern evaluation).
        load_model = getattr(own, "load_model", None)
        if load_model is None:
            raise
        try:
            model, kind = load_model(path)
        except ModelFileError as other_error:
            raise ModelFileError(f"{path} is neither a linear evaluation file ({linear_error}) nor "
                                 f"{own.model_files} ({other_error})") from None
        return model, {"eval": str(path), "kind": kind}
    return weights, {"eval": str(path), "metadata": metadata}


__all__ = ["AlphaBetaPlayer", "load_evaluation"]
