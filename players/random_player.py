"""The ``random`` player: a uniformly random legal move (the rating anchor)."""
from __future__ import annotations

import random
import time

from plyground.hookspecs import hookimpl
from plyground.options import Option
from plyground.protocols import Player


class RandomPlayer(Player):
    name = "random"
    description = "Plays a uniformly random legal move."
    options = (Option("seed", int, None, "random seed (default: the match's seed)", optional=True),
               Option("delay", float, 0.0, "seconds to wait before each move, whatever the clock or budget "
                      "(a slow opponent: for trying clocks and windows)", min=0.0, max=3600.0, remote=True))

    def __init__(self, game, **options):
        super().__init__(game, **options)
        self.rng = random.Random(options.get("seed"))

    def reset(self, seed=None):
        fixed = self.config.get("seed")
        if fixed is not None or seed is not None:
            self.rng.seed(fixed if fixed is not None else seed)

    def choose_move(self, state, budget):
        until = time.monotonic() + float(self.config.get("delay") or 0.0)
        while time.monotonic() < until and not self.stop_signal.is_set():    # stoppable, like any search
            time.sleep(max(0.0, min(0.01, until - time.monotonic())))
        return self.rng.choice(state.legal_moves())


@hookimpl
def register_players():
    return [RandomPlayer]
