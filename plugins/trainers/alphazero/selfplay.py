"""Self-play: games of the network against itself, recording a training example per position.

:class:`SelfPlayGame` is one game as a small state machine (search the
position, play the chosen move, until the game ends); :func:`play_selfplay_game`
drives one game with its own network calls, and ``batched.py`` drives many at
once with one network call per step.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from plyground.protocols import Game, GameRecord
from plyground.players.search.puct import PUCTSearch

from .examples import Examples, Step, make_step


@dataclass(frozen=True)
class SelfPlaySettings:
    simulations: int
    temperature_plies: int          # tau = 1 for the first N plies, then 0
    max_plies: int | None = None    # adjudicate a draw after this many plies
    # Playout cap randomization (KataGo): with fast_simulations set, a move gets the full search (root
    # noise on, recorded as a training example) with probability full_search_share, else a fast search
    # of fast_simulations (no root noise, not recorded): more games, so more value targets, per hour.
    fast_simulations: int | None = None
    full_search_share: float = 0.25
    # value target = (1 - w) * the game's result + w * the search's root value (KataGo-style mixing:
    # the result alone is a noisy target, the search's value a biased one)
    search_value_weight: float = 0.0
    # random openings: a share random_opening_share of the games begin with 1..random_opening_plies
    # uniformly random moves (played, not learned from), so the network also sees the unbalanced and
    # odd positions a self-play game of its own never reaches (the test positions of a perfect-play
    # benchmark come from such games, too); every example's value target is then still the result of
    # searched play from its position on
    random_opening_share: float = 0.0
    random_opening_plies: int = 0
    # adjudicator(state, plies) -> ((return_0, return_1), reason) ends the game early, or None plays on
    # (the expert-iteration trainer's Stockfish resignation rule)
    adjudicator: Callable[[Any, int], tuple[tuple[float, float], str] | None] | None = None
    # exact endings (Leela's tablebase rescoring, for the positions the games stop before): when the
    # adjudicator ends a game, up to exact_plies plies of perfect play from there become examples too, each
    # position's policy target the moves perfect_moves(state) gives (those that keep its exact result), its
    # value the adjudicated result; perfect_moves returns None where it knows no answer (the tail stops)
    exact_plies: int = 0
    perfect_moves: Callable[[Any], list | None] | None = None


class SelfPlayGame:
    """One self-play game with ``search`` (its root noise on) choosing both sides' moves.

    Every position where a move was chosen gives one example: a copy of its
    observation, the search's policy target there (PUCT: the visit
    distribution; Gumbel: the improved policy), and - once the game is over -
    the result for the player who was to move there.

    Use: ``while game.next_search(): <search.run(settings.simulations)>; game.play_searched_move()``,
    then :meth:`result`.
    """

    def __init__(self, game: Game, search: PUCTSearch, rng: np.random.Generator, settings: SelfPlaySettings,
                 *, names: tuple[str, str] = ("self-play", "self-play"), tags: dict | None = None) -> None:
        self.game, self.search, self.rng, self.settings = game, search, rng, settings
        self.state = game.new_initial_state()
        search.new_game()
        self.record = GameRecord(game=game.name, players=names, start=self.state.to_text(), tags=dict(tags or {}))
        self.steps: list[Step] = []
        self.returns: tuple[float, float] | None = None
        self.full_search = True          # is the current move's search a full one (see SelfPlaySettings)
        self._noise = search.dirichlet_epsilon
        self._random_opening()

    def _random_opening(self) -> None:
        settings, rng = self.settings, self.rng
        if settings.random_opening_plies < 1 or settings.random_opening_share <= 0:
            return
        if rng.random() >= settings.random_opening_share:
            return
        plies = int(rng.integers(1, settings.random_opening_plies + 1))
        for _ in range(plies):
            if self.state.is_terminal():
                break
            legal = self.state.legal_moves()
            self._play(legal[int(rng.integers(len(legal)))])
        self.record.tags["RandomOpening"] = str(len(self.record.moves))

    @property
    def finished(self) -> bool:
        return self.returns is not None

    def next_search(self) -> bool:
        """Play forced moves until a position needs a search (True: the search's root is set there)
        or the game is over (False)."""
        state, record, settings = self.state, self.record, self.settings
        while True:
            if state.is_terminal():
                self.returns = tuple(float(r) for r in state.returns())
                record.reason = state.outcome_reason()
                return False
            if settings.max_plies is not None and len(record.moves) >= settings.max_plies:
                self.returns = (0.0, 0.0)
                record.reason = f"ply cap ({settings.max_plies} plies)"
                return False
            if settings.adjudicator is not None:
                verdict = settings.adjudicator(state, len(record.moves))
                if verdict is not None:
                    returns, record.reason = verdict
                    self.returns = (float(returns[0]), float(returns[1]))
                    self._exact_tail()
                    return False
            legal = state.legal_moves()
            if len(legal) > 1:
                self.full_search = (settings.fast_simulations is None
                                    or self.rng.random() < settings.full_search_share)
                # a fast search explores without root noise: its move is played, not learned from
                self.search.dirichlet_epsilon = self._noise if self.full_search else 0.0
                self.search.set_root(state, reuse=True, temperature=self._temperature())
                return True
            self.steps.append(make_step(state, legal, [1.0]))
            self._play(legal[0])

    def _exact_tail(self) -> None:
        """The examples of perfect play on from an adjudicated position (see ``SelfPlaySettings.exact_plies``):
        the moves drawn among the perfect ones, played on a copy (the record ends where the game was
        adjudicated)."""
        settings = self.settings
        if settings.exact_plies < 1 or settings.perfect_moves is None:
            return
        state = self.state.clone()
        for _ in range(settings.exact_plies):
            if state.is_terminal():
                return
            perfect = settings.perfect_moves(state)
            if not perfect:
                return
            if len(state.legal_moves()) > 1:
                self.steps.append(make_step(state, perfect, [1.0] * len(perfect),
                                            self.returns[state.current_player()]))
            state.apply(perfect[int(self.rng.integers(len(perfect)))])

    @property
    def simulations(self) -> int:
        """The simulations the current move's search gets (full or fast)."""
        if self.full_search or self.settings.fast_simulations is None:
            return self.settings.simulations
        return self.settings.fast_simulations

    def play_searched_move(self) -> None:
        """Record the search's policy target (a full search's only) and play its choice."""
        if self.full_search:
            moves, weights = self.search.policy_target()
            self.steps.append(make_step(self.state, moves, weights, self.search.root_value()))
        self._play(self.search.choose_move(self._temperature(), self.rng))

    def _temperature(self) -> float:
        """tau = 1 for the first ``temperature_plies`` plies, then 0."""
        return 1.0 if len(self.record.moves) < self.settings.temperature_plies else 0.0

    def _play(self, move) -> None:
        self.search.note_position(self.state)
        self.search.advance(self.state, move)
        self.record.moves.append(self.state.move_to_text(move))
        self.state.apply(move)

    def result(self) -> tuple[Examples, GameRecord]:
        """The examples and the record of the finished game."""
        if self.returns is None:
            raise RuntimeError("the self-play game is not finished")
        record = self.record
        record.returns = (float(self.returns[0]), float(self.returns[1]))
        record.tags.setdefault("PlyCount", str(len(record.moves)))
        examples = Examples.from_steps(self.steps, record.returns, tuple(self.game.observation_shape),
                                       search_value_weight=self.settings.search_value_weight)
        return examples, record


def play_selfplay_game(game: Game, search: PUCTSearch, rng: np.random.Generator, settings: SelfPlaySettings,
                       *, names: tuple[str, str] = ("self-play", "self-play"),
                       tags: dict | None = None) -> tuple[Examples, GameRecord]:
    """Play one game with ``search`` choosing both sides' moves (see :class:`SelfPlayGame`)."""
    selfplay = SelfPlayGame(game, search, rng, settings, names=names, tags=tags)
    while selfplay.next_search():
        search.run(selfplay.simulations)
        selfplay.play_searched_move()
    return selfplay.result()
