"""The ``alphazero`` player: PUCT (or Gumbel root) search with a trained policy/value network."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from plyground.analysis import pv_text
from plyground.errors import PlygroundError, UsageError
from plyground.options import MAX_SECONDS, Option, settings_from
from plyground.protocols import SEARCH_STATE_API, Budget, Game, Move, Network, State, missing_state_api
from plyground.util.wording import counted

from ..search.gumbel import GumbelRoot
from ..search.player import SearchPlayer
from ..search.puct import PUCTSearch
from ..search.root import move_budget
from ..search.settings import SearchSettings
from .compute import limit_blas
from .networks import NETWORK_RUNTIME_OPTIONS, load_model, network_evaluator, resolve_model_path
from .settings import DIRICHLET_EPSILON, SEARCH_KIND_OPTIONS, SEARCH_OPTIONS, build_search

#: The State methods the search calls, beyond the learner encodings.
REQUIRED_STATE_API = SEARCH_STATE_API + ("observation", "action_index")


class AlphaZeroPlayer(SearchPlayer):
    name = "alphazero"
    description = ("AlphaZero: PUCT (or Gumbel root) tree search guided by a trained policy/value network "
                   "(model=FILE or run dir).")
    options = (
        Option("model", Path, None, "model file (.npz) or a training run directory (uses DIR/best.npz); "
               "none: the model bundled for the game", optional=True),
        Option("seconds", float, None, "time per move in seconds; none = no limit", min=0.0, max=MAX_SECONDS,
               optional=True, remote=True),
        *SEARCH_OPTIONS,
        *SEARCH_KIND_OPTIONS,
        Option("temperature", float, 0.0, "0 plays the most visited move; > 0 samples moves with "
               "probability proportional to visits^(1/temperature) (search=gumbel: > 0 turns the root's Gumbel "
               "noise on)", min=0.0, max=100.0, remote=True),
        Option("temperature_plies", int, None, "apply the temperature only in the first N plies of the game "
               "(none: every move)", min=0, optional=True),
        DIRICHLET_EPSILON,
        Option("reuse", bool, True, "keep the searched subtree between moves", remote=True),
        Option("prior", str, None, "another player whose move_priors are mixed into the network's "
               "(e.g. prior=bayes:model=runs/bayes/chess-urgency/model.npz; one option only: a comma starts the "
               "next alphazero option)", optional=True),
        Option("prior_weight", float, 0.5, "weight of that player's priors (0..1; the network's get the rest)",
               min=0.0, max=1.0, remote=True),
        Option("threads", int, 1, "threads for the network: a leaf batch is split into this many shares run side "
               "by side, one BLAS thread each (1 is fastest on a busy machine)", min=1, max=256),
        *NETWORK_RUNTIME_OPTIONS,
        Option("seed", int, None, "random seed (default: the match's seed)", optional=True),
    )

    def __init__(self, game: Game, *, network: Network | None = None, **options: Any) -> None:
        super().__init__(game, **options)
        options = self.config
        if network is None:
            self.model_path: Path | None = resolve_model_path(options["model"], game)
            network = load_model(self.model_path, game, device=options["device"], precision=options["precision"])
        else:
            self.model_path = None
        self.network = network
        # Another player's priors are mixed in through the State API: that search has no compiled loop.
        self.settings = settings_from(SearchSettings, options, **({"compiled": False} if options["prior"] else {}))
        self._get_engine()                      # built now: the search holds the network's evaluator
        if options["prior"]:
            self._mix_priors_of(options["prior"], options["prior_weight"])

    @property
    def search(self) -> PUCTSearch:
        return self._engine

    def _build_engine(self) -> PUCTSearch:
        evaluate = limit_blas(network_evaluator(self.network), self.config["threads"])
        search = build_search(self.settings, evaluate, rng=self._rng, game=self.game)
        search.stop = self.stop_signal
        return search

    def _new_game(self, search: PUCTSearch) -> None:
        search.rng = self._rng                  # reset() may have seeded a new generator
        search.new_game()

    def _mix_priors_of(self, spec: str, weight: float) -> None:
        from plyground.registry import get_registry
        helper = get_registry().make_player(spec, self.game)
        if not hasattr(helper, "move_priors"):
            raise UsageError(f"player {self.name}: prior={spec} has no move priors to give (players with "
                             f"them: bayes)")
        self.search.evaluator.prior = lambda state: helper.move_priors(state)[1]
        self.search.evaluator.prior_weight = weight

    @classmethod
    def unsupported_reason(cls, game: Game) -> str | None:
        if not game.supports_learning:
            return "the game has no learner encodings (observation_shape and num_actions)"
        return missing_state_api(game, REQUIRED_STATE_API)

    @classmethod
    def defaults_reason(cls, game: Game) -> str | None:
        try:
            reason = cls.unsupported_reason(game)
            if reason is None:
                resolve_model_path(None, game)      # the model it plays with no model= option
            return reason
        except PlygroundError as exc:           # no model bundled for the game: it must be given one
            return str(exc)

    # ------------------------------------------------------------ lifecycle
    def observe_move(self, state: State, move: Move) -> None:
        self.search.note_position(state)
        if self.config["reuse"]:
            self.search.advance(state, move)

    # ------------------------------------------------------------ moves
    def choose_move(self, state: State, budget: Budget = Budget()) -> Move:
        simulations, seconds, legal = move_budget("alphazero", self.config, budget, state)
        started = time.perf_counter()
        temperature = self.config["temperature"]
        limit = self.config["temperature_plies"]
        if limit is not None and state.ply >= limit:
            temperature = 0.0
        search = self.search
        search.set_root(state, self.config["reuse"], temperature=temperature)
        done = 0
        if len(legal) > 1:
            deadline = None if seconds is None else started + seconds
            done = search.run(simulations, deadline, self._live_search(state, started) if self.progress else None)
        children = search.root_children()
        if len(legal) == 1 or not children:
            move = legal[0]
        else:
            move = search.choose_move(temperature, self._rng)
            oracle = search.oracle
            if oracle is not None:
                move = oracle.keep_result(state, move, {c.move: c.visits for c in children})
        self._analysis = self._describe(state, children, move, done, time.perf_counter() - started)
        return move

    def _live_search(self, state: State, started: float):
        """``progress(done)`` for the search: the analysis so far, for whoever watches it think."""
        def describe(done: int) -> dict | None:
            children = self.search.root_children()
            if not children:
                return None
            best = max(children, key=lambda c: c.visits).move
            return self._describe(state, children, best, done, time.perf_counter() - started)
        return self._live(describe)

    def _describe(self, state: State, children, move, done: int, seconds: float) -> dict:
        text = state.move_to_text
        chosen = next((c for c in children if c.move == move), None)
        info = {
            "move": text(move),
            "visits": {text(c.move): c.visits for c in sorted(children, key=lambda c: -c.visits)},
            "priors": {text(c.move): round(c.prior, 4) for c in sorted(children, key=lambda c: -c.prior)},
            "value": chosen.value if chosen is not None and chosen.visits else self.search.root_value(),
            "simulations": done,
            "seconds": seconds,
            "pv": pv_text(state, self.search.principal_variation(state, move)) if children else [],
            "nodes": self.search.size,
            "engine": self.search.kind,
            "compiled": self.search.compiled,
        }
        if self.search.oracle is not None:
            info["database"] = self.search.oracle.words(state)
        proof = self.search.root_proof()
        if proof is not None:
            info["proven"] = f"{proof[0]} in {counted(proof[1], 'ply', 'plies')}" if proof[0] != "draw" else "draw"
        if isinstance(self.search, GumbelRoot):
            info.update(self.search.root_analysis(text))
        return info
