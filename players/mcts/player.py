"""The ``mcts`` player: options, budgets, seeding and the choice between the two search engines."""
from __future__ import annotations

import math
import time
import warnings
from typing import Any


from plyground.analysis import pv_text
from plyground.capabilities import ENDGAME_OPTION, endgame_oracle, missing_kernel_attributes
from plyground.options import MAX_SECONDS, MAX_SIMULATIONS, PAGE_SIMULATIONS, Option
from plyground.protocols import Budget, Game, Move, State, missing_state_api

from ..search.root import move_budget
from ..search.tree import DRAW, LOSS, UNKNOWN, WIN
from ..search.results import PROVEN_NAMES, pick_move, root_proven
from ..search.uct_compiled import FastSearch
from ..search.player import SearchPlayer
from ..search.uct import UCTSearch

#: Seconds of simulations between looks at the stop signal and the clock.
_BATCH_SECONDS = 0.05


class MCTSPlayer(SearchPlayer):
    name = "mcts"
    description = "Monte Carlo tree search (UCT) with random playouts; compiled when the game has kernels."
    options = (
        Option("simulations", int, 1000, "simulations per move (the match budget overrides it)",
               min=1, max=MAX_SIMULATIONS, remote=(1, PAGE_SIMULATIONS)),
        Option("seconds", float, None, "time per move in seconds; none = no limit; whichever of "
               "simulations and seconds ends first stops the search", min=0.0, max=MAX_SECONDS, optional=True, remote=True),
        Option("c", float, math.sqrt(2), "UCT exploration constant (> 0) for scores in [0, 1]",
               min=1e-6, max=100.0, remote=True),
        Option("playouts", int, 1, "random playouts per new leaf", min=1, max=1000, remote=True),
        Option("reuse", bool, True, "keep the searched subtree between moves", remote=True),
        Option("solver", bool, True, "MCTS-Solver: prove wins, losses and draws and play proven wins", remote=True),
        Option("max_playout_plies", int, 500, "a playout longer than this counts as a draw",
               min=1, max=10**6, remote=True),
        Option("kernels", bool, True, "use the game's compiled kernels when it has them "
               "(false: the generic Python search)", remote=True),
        Option("seed", int, None, "random seed (default: the match's seed)", optional=True),
        ENDGAME_OPTION,
    )

    def __init__(self, game: Game, **options: Any) -> None:
        super().__init__(game, **options)
        # Loaded (or, for up to 4 pieces, built) now: a missing database fails here, before any game starts.
        self._oracle = endgame_oracle(game, self.config["endgame"])

    # ------------------------------------------------------------ capability
    @classmethod
    def unsupported_reason(cls, game: Game) -> str | None:
        return missing_state_api(game)

    # ------------------------------------------------------------ lifecycle
    def observe_move(self, state: State, move: Move) -> None:
        if self.config["reuse"] and self._engine is not None:
            self._engine.observe(state, move)

    # ------------------------------------------------------------ search
    def choose_move(self, state: State, budget: Budget = Budget()) -> Move:
        simulations, seconds, legal = move_budget("mcts", self.config, budget, state)
        engine = self._get_engine()              # compiles on first use, before the clock starts
        started = time.perf_counter()
        engine.set_root(state, self.config["reuse"])
        engine.seed(int(self._rng.integers(2**31)))
        done = 0
        if len(legal) > 1:
            if isinstance(engine, FastSearch):
                done = engine.apply_root_rules(state)
            done += self._search(engine, simulations - done, None if seconds is None else started + seconds,
                                 self._live_search(state, engine, started, done))
        children = engine.root_children()
        if not children and len(legal) > 1:
            # The kernels see a finished game where the rules do not; search the Python states instead.
            engine = UCTSearch(self.config["c"], self.config["playouts"], self.config["solver"],
                                   self.config["max_playout_plies"])
            engine.oracle = self._oracle
            engine.set_root(state, False)
            engine.seed(int(self._rng.integers(2**31)))
            done = self._search(engine, simulations, None if seconds is None else started + seconds,
                                self._live_search(state, engine, started, 0))
            children = engine.root_children()
        if len(legal) == 1:                      # forced: no search, but keep the tree for reuse
            move = legal[0]
            best = next((ch for ch in children if ch.move == move), None)
        else:
            best = pick_move(children)
            move = best.move
            if move not in legal:
                raise RuntimeError(f"mcts: the game's kernels proposed {move!r}, which is not legal in "
                                   f"{state.to_text()}; the kernels and the rules disagree")
            if self._oracle is not None:
                move = self._oracle.keep_result(state, move, {ch.move: ch.visits for ch in children})
                best = next((ch for ch in children if ch.move == move), best)
        self._analysis = self._describe(state, children, best, move, done, time.perf_counter() - started,
                                        engine)
        return move

    def _live_search(self, state: State, engine, started: float, before: int):
        """``progress(done)``: the analysis after ``done`` more simulations, for whoever watches the search."""
        def describe(done: int) -> dict | None:
            children = engine.root_children()
            best = pick_move(children) if children else None
            return best and self._describe(state, children, best, best.move, before + done,
                                           time.perf_counter() - started, engine)
        return self._live(describe)

    def _search(self, engine, simulations: int, deadline: float | None, progress=None) -> int:
        """Run ``simulations`` in batches of about a twentieth of a second, so the deadline is overshot
        by little and a stop request (``stop_signal``) ends the search within a batch; ``progress(done)``
        after each batch."""
        done, batch = 0, 16
        # The first batch runs even when stopped at once: a move needs at least its root's children.
        while done < simulations and (done == 0 or not self.stop_signal.is_set()):
            t0 = time.perf_counter()
            want = min(batch, simulations - done)
            ran = engine.run(want)
            done += ran
            if progress is not None:
                progress(done)
            now = time.perf_counter()
            if ran < want or (deadline is not None and now >= deadline):       # solved, or out of time
                break
            rate = ran / max(now - t0, 1e-6)
            batch = max(1, int(rate * _BATCH_SECONDS))
            if deadline is not None:    # about 1/10 of the time left, so the deadline is overshot by little
                batch = min(batch, max(1, int(rate * (deadline - now) / 10)))
        return done

    def _describe(self, state, children, best, move, done, seconds, engine) -> dict:
        text = state.move_to_text
        proven = root_proven(children) if self.config["solver"] else UNKNOWN
        if proven != UNKNOWN:
            value = {WIN: 1.0, DRAW: 0.0, LOSS: -1.0}[proven]
        elif best is not None and best.visits:
            value = 2.0 * best.score - 1.0
        else:
            value = 0.0
        return {
            "move": text(move),
            "visits": {text(ch.move): ch.visits for ch in sorted(children, key=lambda ch: -ch.visits)},
            "value": value,
            "proven": PROVEN_NAMES[proven],
            "proven_moves": {text(ch.move): PROVEN_NAMES[ch.proven] for ch in children
                             if ch.proven != UNKNOWN} if self.config["solver"] else {},
            "pv": pv_text(state, engine.principal_variation(state, move)),
            "simulations": done,
            "seconds": seconds,
            "nodes": engine.size,
            "engine": engine.kind,
            "database": self._oracle.words(state) if self._oracle is not None else None,
        }

    def _build_engine(self) -> FastSearch | UCTSearch:
        """'fast' (compiled kernels) or 'generic' (Python State API)."""
        cfg = self.config
        args = (cfg["c"], cfg["playouts"], cfg["solver"], cfg["max_playout_plies"])
        kernels = self.game.kernels() if cfg["kernels"] else None
        if kernels is not None:
            missing = missing_kernel_attributes(kernels)
            if missing:
                warnings.warn(f"mcts: the kernels of game {self.game.name} lack {', '.join(missing)} "
                              f"(docs/kernels.md); using the slower generic search", stacklevel=3)
                kernels = None
        if kernels is not None:
            engine = FastSearch(kernels, *args, oracle=self._oracle)
            engine.warm_up()
        else:
            engine = UCTSearch(*args)
            engine.oracle = self._oracle
        return engine
