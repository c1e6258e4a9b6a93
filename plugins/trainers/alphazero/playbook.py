"""How a training run's games are played: the role every game-playing process builds from plain data.

A :class:`Playbook` is made from the game and the trainer's resolved
options - nothing else - so the trainer's own process and every worker
(local process or Ray actor) build the same one: the search of a self-play
game, how self-play games are played and cut short, the players of a
comparison or evaluation game and who adjudicates those games.  A
playbook may hold something a process owns (expert iteration: a Stockfish
judge); it is that process's own, released by :meth:`Playbook.close`, and
never sent anywhere.
"""
from __future__ import annotations

import importlib
from typing import Any, Mapping

from plyground.capabilities import endgame_oracle
from plyground.options import option_values
from plyground.protocols import Game
from plyground.players.alphazero.player import AlphaZeroPlayer
from plyground.players.alphazero.settings import build_search
from plyground.players.search.evaluators import Evaluate
from plyground.players.search.puct import PUCTSearch

from .selfplay import SelfPlaySettings
from .settings import AlphaZeroSettings


class Playbook:
    """AlphaZero's games: noisy PUCT (or Gumbel) self-play, noiseless match players, no adjudicator."""

    def __init__(self, game: Game, config: Mapping[str, Any]) -> None:
        #: the trainer's resolved options (a subclass's own among them: expert iteration's judge)
        self.game, self.config = game, dict(config)
        #: the run's settings
        self.settings = AlphaZeroSettings.from_options(self.config)
        #: the self-play search (root noise on)
        self.search = self.settings.search_settings()
        #: the comparison and evaluation players' search (no root noise)
        self.match_search = self.settings.match_search_settings()

    def selfplay_search(self, evaluate: Evaluate) -> PUCTSearch:
        """The search tree of one self-play game."""
        return build_search(self.search, evaluate, game=self.game)

    def selfplay_settings(self) -> SelfPlaySettings:
        """How self-play games are played and when they end."""
        settings = self.settings
        exact_plies = settings.endgame_examples
        oracle = endgame_oracle(self.game, self.search.endgame) if exact_plies else None
        return SelfPlaySettings(settings.simulations, settings.temperature_plies, settings.max_plies,
                                adjudicator=self.selfplay_adjudicator(),
                                exact_plies=exact_plies if oracle is not None else 0,
                                perfect_moves=oracle.perfect_moves if oracle is not None else None,
                                fast_simulations=settings.fast_simulations,
                                full_search_share=settings.full_search_share,
                                search_value_weight=settings.search_value_weight,
                                random_opening_share=settings.random_opening_share,
                                random_opening_plies=settings.random_opening_plies)

    def selfplay_adjudicator(self):
        """``adjudicator(state, plies)`` ending self-play games early, or None (played out): with an
        ``endgame`` database, a game ends at its first position the database holds, with the result
        perfect play reaches from there (the value target of every position before it)."""
        oracle = endgame_oracle(self.game, self.search.endgame)
        if oracle is None:
            return None

        def adjudicate(state, plies):
            returns = oracle.returns(state)
            if returns is None:
                return None
            return returns, f"endgame database ({oracle.words(state)} for the side to move)"
        return adjudicate

    def match_player(self, network, temperature_plies: int) -> AlphaZeroPlayer:
        """A comparison or evaluation player on ``network``; moves of the first ``temperature_plies`` plies
        are drawn from the visit counts, so that games differ."""
        return AlphaZeroPlayer(self.game, network=network, **option_values(self.match_search),
                               temperature=1.0 if temperature_plies else 0.0, temperature_plies=temperature_plies,
                               seed=None)

    def probe_player(self, network, simulations: int) -> AlphaZeroPlayer:
        """The player whose moves the ladder scores against perfect play: the match search at
        ``simulations``, always its most visited move."""
        return AlphaZeroPlayer(self.game, network=network,
                               **{**option_values(self.match_search), "simulations": simulations},
                               temperature=0.0, seed=None)

    def match_adjudicator(self):
        """``play_game``'s adjudicator for comparison and evaluation games, or None (played out)."""
        return None

    def close(self) -> None:
        """Release what this playbook holds (nothing here)."""


def class_path(cls: type) -> str:
    """``module:Class``, from which another process imports ``cls``."""
    return f"{cls.__module__}:{cls.__qualname__}"


def import_class(path: str) -> type:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)
