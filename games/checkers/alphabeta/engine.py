"""Checkers' own engine for the ``alphabeta`` player: its evaluation and the compiled search over it.

:class:`CheckersAlphaBeta` is the ``AlphaBetaEngines`` ability of checkers
(plyground.capabilities): the features of :mod:`.features`, with the material
or learned weights, the NNUE of :mod:`.nnue` or the pattern evaluation of
:mod:`.patterns`, and :class:`CompiledEngine`, iterative deepening and time
control around :mod:`.compiled`.
"""
from __future__ import annotations

import numpy as np

from plyground.errors import ModelFileError
from plyground.negamax.deepening import CompiledDeepening, LinearEngine, set_search_mode
from plyground.negamax.nnue import FORMAT as NNUE_FORMAT
from plyground.negamax.nnue import Network
from plyground.negamax.tables import table_entries
from plyground.protocols import Game, State
from plyground.util.stopping import StopSignal
from plyground.files.storage import METADATA_KEY, load_npz, pop_metadata

from . import features, patterns
from .patterns import PatternWeights


class CheckersAlphaBeta(LinearEngine):
    """The evaluation and compiled search of a game whose positions are in the ``checkers-bitboard`` layout:
    the linear evaluation of :mod:`.features` (its weights an array), the NNUE of :mod:`.nnue` (a
    :class:`~plyground.negamax.nnue.Network`) or the pattern evaluation of :mod:`.patterns` (a
    :class:`~.patterns.PatternWeights`)."""

    features = features
    unit = "men"
    #: Play on rather than repeat, unless 0.15 man behind: with the endgame databases to say which few-piece
    #: endings are drawn, the repetitions left are level middlegames, where the stronger side has chances
    #: (docs/nnue.md, "Contempt").
    default_contempt = 0.15

    #: The model files :meth:`load_model` reads, for a message about a file that is none of them.
    model_files = "an NNUE network file or a pattern evaluation file"

    def load_network(self, path):
        """The NNUE network of the file ``path`` (ModelFileError naming what is wrong)."""
        from . import nnue
        return nnue.load(path)[0]

    def load_model(self, path) -> tuple[object, str]:
        """(the evaluation, its kind) of a model file that is not a linear evaluation's: an NNUE network
        (``"nnue"``) or a pattern evaluation (``"patterns"``), by the format the file names; ModelFileError
        naming what is wrong."""
        label = f"evaluation file {path}"
        found = pop_metadata(load_npz(path, label, names=(METADATA_KEY,)), label)
        if isinstance(found, dict) and found.get("format") == patterns.FORMAT:
            return patterns.load(path)[0], "patterns"
        if isinstance(found, dict) and found.get("format") != NNUE_FORMAT:
            raise ModelFileError(f"{path} is not a checkers model file: its format is {found.get('format')!r}, "
                                 f"expected {NNUE_FORMAT!r} or {patterns.FORMAT!r}")
        return self.load_network(path), "nnue"

    def evaluator(self, weights):
        """The same evaluation as the compiled search's, on each state's position array (checkers searched
        with kernels=false; no capture search here)."""
        to_pos = self.game.kernels().state_to_pos
        if isinstance(weights, Network):
            from . import nnue
            E = nnue.quantize(weights)
            return lambda state: float(nnue.evaluate(to_pos(state), E))
        if isinstance(weights, PatternWeights):
            W = patterns.arrays(weights)[0]
            return lambda state: float(patterns.evaluate(to_pos(state), W))
        return lambda state: float(features.evaluate(to_pos(state), weights))

    def learning(self):
        """The EvaluationLearning ability: what the bonanza trainer needs to learn these features' weights."""
        from .learning import CheckersLearning
        return CheckersLearning()

    def nnue_learning(self):
        """The NnueLearning ability: what the nnue trainer needs to teach :mod:`.nnue`'s network."""
        from .learning import CheckersNnueLearning
        return CheckersNnueLearning()

    def compiled_engine(self, weights, *, tt_mb: int, use_tt: bool, ordering: bool, quiescence: bool,
                        stop: StopSignal | None = None, oracle=None, search: str | None = None) -> CompiledEngine:
        return CompiledEngine(self.game, self.game.kernels(), weights, tt_mb=tt_mb, use_tt=use_tt,
                              ordering=ordering, quiescence=quiescence, stop=stop, oracle=oracle,
                              search=search or self.default_search)


class CompiledEngine(CompiledDeepening):
    """The compiled checkers search (:mod:`.compiled`) under the player's iterative deepening."""

    def __init__(self, game: Game, kernels, weights: np.ndarray | Network | PatternWeights, *, tt_mb: int,
                 use_tt: bool, ordering: bool, quiescence: bool, stop: StopSignal | None = None, oracle=None,
                 search: str = "exact") -> None:
        from . import compiled, nnue
        super().__init__(stop)
        self.c = compiled
        if isinstance(weights, Network):          # the NNUE, updated as moves are made (its E: this search's)
            self.compiled = compiled.search(nnue.NNUE)
            self.evaluation = nnue.quantize(weights)
        elif isinstance(weights, PatternWeights):
            self.compiled = compiled.search(patterns.PATTERN_EVALUATION)
            self.evaluation = patterns.arrays(weights)
        else:
            self.compiled = compiled.search()
            self.evaluation = compiled.linear_arrays(weights)
        self.kernels = kernels
        self.ws = compiled.Workspace(tt_entries=table_entries(tt_mb))
        self.ws.stop = self.stop.flags          # the compiled search reads the player's flag at every node
        P = self.ws.P
        P[compiled.P_NO_PROGRESS] = kernels.no_progress_limit
        P[compiled.P_PLY_CAP] = kernels.ply_cap
        P[compiled.P_USE_TT] = int(use_tt)
        P[compiled.P_ORDERING] = int(ordering)
        P[compiled.P_QUIESCENCE] = int(quiescence)
        P[compiled.P_REPETITION] = int(game.params.get("repetitions", 0) > 0)
        set_search_mode(P, search)
        #: The endgame database (an EndgameOracle) whose positions the search scores exactly, or None.
        self.oracle = oracle
        self.ws.attach_endgame(oracle)

    def set_root(self, state: State) -> np.ndarray:
        """Root position, with the keys of the positions that can still repeat stored before it."""
        c, ws = self.c, self.ws
        pos = self.kernels.state_to_pos(state)
        limit = int(self.ws.P[c.P_NO_PROGRESS])
        if limit and pos[c.NO_PROGRESS] >= limit:
            # Drawn by our no-progress rule, played on under a client's rules (a Hub engine: the draw is the
            # client's to claim): searched as the position one ply before our draw, so that each quiet move
            # is the draw it makes by our rules -- not a finished root, which has no move to give (issue #72).
            pos[c.NO_PROGRESS] = limit - 1
        keys = []
        earlier = state.clone()
        for _ in range(min(int(pos[c.NO_PROGRESS]), ws.history_capacity - 1)):
            try:
                earlier.undo()
            except Exception:  # noqa: BLE001 - the start of the game (or a state without history)
                break
            keys.append(c.hash_position(self.kernels.state_to_pos(earlier)))
        keys.reverse()
        base = len(keys)
        ws.keys[:base] = keys
        ws.keys[base] = c.hash_position(pos)
        ws.P[c.P_KEY_BASE] = base
        return pos

    def code_to_move(self, state: State, code: int):
        return self.kernels.code_to_move(state, code)
