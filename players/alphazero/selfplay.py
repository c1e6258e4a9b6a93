"""Self-play: one game of the network against itself, recording a training example per position."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from plyground.protocols import Game, GameRecord

from .examples import Examples, Step, make_step
from .search import PUCTSearch, choose_from_visits


@dataclass(frozen=True)
class SelfPlaySettings:
    simulations: int
    temperature_plies: int          # tau = 1 for the first N plies, then 0
    max_plies: int | None = None    # adjudicate a draw after this many plies


def play_selfplay_game(game: Game, search: PUCTSearch, rng: np.random.Generator, settings: SelfPlaySettings,
                       *, names: tuple[str, str] = ("self-play", "self-play"),
                       tags: dict | None = None) -> tuple[Examples, GameRecord]:
    """Play one game with ``search`` (its Dirichlet noise on) choosing both sides' moves.

    Every position where a move was chosen gives one example: a copy of its
    observation, the visit distribution of the search there, and - once the
    game is over - the result for the player who was to move there.
    """
    state = game.new_initial_state()
    search.new_game()
    record = GameRecord(game=game.name, players=names, start=state.to_text(), tags=dict(tags or {}))
    steps: list[Step] = []
    while True:
        if state.is_terminal():
            returns = tuple(state.returns())
            record.reason = state.outcome_reason()
            break
        if settings.max_plies is not None and len(record.moves) >= settings.max_plies:
            returns = (0.0, 0.0)
            record.reason = f"ply cap ({settings.max_plies} plies)"
            break
        legal = state.legal_moves()
        if len(legal) == 1:
            move = legal[0]
            steps.append(make_step(state, legal, [1.0]))
        else:
            search.set_root(state, reuse=True)
            search.run(settings.simulations)
            children = search.root_children()
            steps.append(make_step(state, [c.move for c in children], [c.visits for c in children]))
            temperature = 1.0 if len(record.moves) < settings.temperature_plies else 0.0
            move = choose_from_visits(children, temperature, rng).move
        search.note_position(state)
        search.advance(state, move)
        record.moves.append(state.move_to_text(move))
        state.apply(move)
    record.returns = (float(returns[0]), float(returns[1]))
    record.tags.setdefault("PlyCount", str(len(record.moves)))
    return Examples.from_steps(steps, record.returns, tuple(game.observation_shape)), record
