"""The ``random`` player: a uniformly random legal move (the rating anchor)."""
from __future__ import annotations

import random

from plyground.hookspecs import hookimpl
from plyground.options import Option
from plyground.protocols import Player


class RandomPlayer(Player):
    name = "random"
    description = "Plays a uniformly random legal move."
    options = (Option("seed", int, None, "random seed (default: the match's seed)", optional=True),)

    def __init__(self, game, **options):
        super().__init__(game, **options)
        self.rng = random.Random(options.get("seed"))

    def reset(self, seed=None):
        fixed = self.config.get("seed")
        if fixed is not None or seed is not None:
            self.rng.seed(fixed if fixed is not None else seed)

    def choose_move(self, state, budget):
        return self.rng.choice(state.legal_moves())


@hookimpl
def register_players():
    return [RandomPlayer]
