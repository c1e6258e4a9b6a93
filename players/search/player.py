"""The one base of the players that search (mcts, alphabeta, alphazero): what they all do around a search.

A :class:`SearchPlayer` builds its search engine on first use (so a game's
kernels compile before the clock of the first move starts, not when a match
is set up), keeps the seeded generator its moves draw from, clears the engine
for a new game and keeps the analysis of its last move.  A subclass builds the
engine (:meth:`_build_engine`), chooses moves with it and describes them.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from plyground.protocols import Budget, Game, Player

#: The warm-up's search (:meth:`SearchPlayer.warm_up`): long enough to run every kernel once, too short to matter.
WARM_UP = Budget(seconds=0.05, simulations=8)


class SearchPlayer(Player):
    """A player over a search of :mod:`plyground.players.search`."""

    def __init__(self, game: Game, **options: Any) -> None:
        super().__init__(game, **options)
        self._rng = np.random.default_rng(self.config.get("seed"))
        self._engine: Any = None
        self._analysis: dict | None = None
        self._warm = False

    # ------------------------------------------------------------ what a subclass provides
    def _build_engine(self) -> Any:
        """The search engine (an object with ``kind`` and ``clear()``), built once."""
        raise NotImplementedError

    def _new_game(self, engine: Any) -> None:
        """Ready ``engine`` for a new game (default: ``clear()``)."""
        engine.clear()

    # ------------------------------------------------------------ the engine
    def _get_engine(self) -> Any:
        if self._engine is None:
            self._engine = self._build_engine()
        return self._engine

    @property
    def engine_kind(self) -> str:
        """Which search the player runs, e.g. 'fast' or 'generic' (mcts), 'compiled' or 'generic' (alphabeta)."""
        return self._get_engine().kind

    # ------------------------------------------------------------ lifecycle
    def warm_up(self) -> None:
        """One short search of the initial position (once per player): the engine is built, its kernels
        compiled or loaded from the cache, its model read.  The search is forgotten afterwards: the
        engine is cleared for a new game, the generator's draws and the analysis are as before.  No timer
        cuts it short: a search stopped before its first step would skip what it is for (the budget keeps
        it short once compiled)."""
        if self._warm:
            return
        self._warm = True
        draws = self._rng.bit_generator.state
        self.stop_signal.clear()            # a stop meant for an earlier search
        try:
            self.choose_move(self.game.new_initial_state(), WARM_UP)
        finally:
            self._rng.bit_generator.state = draws
            if self._engine is not None:
                self._new_game(self._engine)
            self._analysis = None

    def reset(self, seed: int | None = None) -> None:
        fixed = self.config.get("seed")
        if fixed is not None or seed is not None:
            self._rng = np.random.default_rng(fixed if fixed is not None else seed)
        if self._engine is not None:
            self._new_game(self._engine)
        self._analysis = None

    def analysis(self) -> dict | None:
        return self._analysis

    def _live(self, describe: Callable[[int], dict | None]) -> Callable[[int], None]:
        """``progress(done)`` for a search: ``describe(done)``, the analysis after ``done`` simulations (or
        None), goes to whoever watches the search (``report_progress`` asks for it only when shown)."""
        def progress(done: int) -> None:
            self.report_progress(lambda: describe(done))
        return progress
