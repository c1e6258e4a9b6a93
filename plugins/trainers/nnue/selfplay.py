"""Self-play for the ``nnue`` trainer: games of the game's compiled alpha-beta with one evaluation.

Each game starts with a few random plies (a seeded number between the run's
bounds), then both sides search every move to a fixed depth (and node
budget).  A game records its move codes, the root score of every searched
move (for the side to move, in the evaluation's unit: a man), and its result
for the first player.  A position the endgame database holds ends the game
with its exact result (the rest would be the database's moves).

Games are played by the workers of :func:`plyground.engines.workers.actor_pool` (processes here, or Ray actors):
:class:`SelfPlaySetup` is what a worker builds its player from (the network's bytes travel in it, so a worker
on another machine needs no file of the run), and each
:class:`GameJob` is one game, its randomness from its own seed, so a game is
the same whichever worker plays it and whenever.
"""
from __future__ import annotations

import math
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from plyground.capabilities import alphabeta_engine, endgame_oracle, kernels_of, nnue_learning
from plyground.registry import get_registry

from plyground.players.alphabeta.player import load_evaluation

#: Mate scores and the like are stored as this many units (a sigmoid of it is 1 to float precision).
SCORE_CAP = 40.0


@dataclass(frozen=True)
class GameJob:
    generation: int
    index: int
    seed: int

    def describe(self) -> str:
        return f"self-play game {self.index + 1} of generation {self.generation}"


@dataclass(frozen=True)
class SelfPlaySetup:
    """What a worker needs to play self-play games (plain data: it travels to the worker)."""

    game: str                  # the game spec, as the registry makes it
    evaluation: str            # the alphabeta player's eval= value: "learned" or a model file
    depth: int
    nodes: int | None
    endgame: str
    random_plies: tuple[int, int]
    max_plies: int
    network: bytes | None = None   # the model file's bytes, read where ``evaluation`` names a file

    def build(self) -> "SelfPlayActor":
        return SelfPlayActor(self)


class SelfPlayActor:
    def __init__(self, setup: SelfPlaySetup) -> None:
        self.setup = setup
        self.game = get_registry().make_game(setup.game)
        if setup.network is None:
            weights, _ = load_evaluation(self.game, setup.evaluation)
        else:                         # the file travelled as bytes: read from a copy here
            with tempfile.TemporaryDirectory(prefix="plyground-selfplay-") as folder:
                copy = Path(folder) / Path(setup.evaluation).name
                copy.write_bytes(setup.network)
                weights, _ = load_evaluation(self.game, str(copy))
        self.oracle = endgame_oracle(self.game, setup.endgame)
        self.kernels = kernels_of(self.game)
        self.unit = nnue_learning(self.game).output_scale
        self.engine = alphabeta_engine(self.game).compiled_engine(
            weights, tt_mb=16, use_tt=True, ordering=True, quiescence=True, oracle=self.oracle,
            search="exact")      # each move's score: a full-width search to the run's depth, whatever the default

    def run(self, job: GameJob) -> Iterator[tuple]:
        codes, scores, first_return = self.play(job.seed)
        yield ("done", codes, scores, first_return)

    def play(self, seed: int) -> tuple[np.ndarray, np.ndarray, float]:
        """One game: its move codes, each move's root score (NaN for a random ply) and the first player's
        result (+1, 0, -1)."""
        s = self.setup
        rng = random.Random(seed)
        state = self.game.new_initial_state()
        self.engine.clear()
        random_plies = rng.randint(*s.random_plies)
        codes: list[int] = []
        scores: list[float] = []
        returns = None
        while not state.is_terminal() and len(codes) < s.max_plies:
            if self.oracle is not None and len(codes) >= random_plies:
                returns = self.oracle.returns(state)
                if returns is not None:
                    break
            if len(codes) < random_plies:
                move = rng.choice(state.legal_moves())
                score = math.nan
            else:
                result = self.engine.think(state, s.depth, None, s.nodes)
                move = result["move"]
                score = max(-SCORE_CAP, min(SCORE_CAP, result["value"] / self.unit))
            codes.append(self.kernels.move_to_code(state, move))
            scores.append(score)
            state.apply(move)
        if returns is None:
            returns = state.returns()          # (0, 0), a draw, for a game stopped at the ply cap
        return np.array(codes, np.int64), np.array(scores, np.float32), float(returns[0])

    def close(self) -> None:
        pass
