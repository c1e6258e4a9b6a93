"""How an AlphaZero search is set up, declared once for the player and the trainer.

:data:`SEARCH_OPTIONS` are the options of the search (the ``alphazero``
player's defaults); :func:`trainer_search_options` are the same options with
the trainer's defaults (more root noise, fewer simulations, a smaller Gumbel
``c_scale``).  Both plugins turn their resolved options into one
:class:`SearchSettings`, and every search tree - a player's, a self-play
game's, a comparison game's, a worker's - is built from one by
:meth:`SearchSettings.build`.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from plyground.capabilities import ENDGAME_OPTION, endgame_oracle, parse_endgame
from plyground.options import MAX_SIMULATIONS, Option

from .gumbel import SEARCH_KIND_OPTIONS, build_search
from .search import Evaluate, PUCTSearch

#: The search options, with the player's defaults.
SEARCH_OPTIONS = (
    Option("simulations", int, 200, "simulations per move (the match budget overrides it)", min=1, max=MAX_SIMULATIONS),
    Option("c_puct", float, 1.5, "PUCT exploration constant", min=0.0, max=100.0),
    Option("fpu", float, 0.2, "first-play urgency: an unvisited move is valued at its parent's value "
           "minus this", min=-2.0, max=2.0),
    Option("leaf_batch", int, 8, "leaves evaluated per network call (virtual loss spreads them)", min=1, max=1024),
    Option("dirichlet_alpha", float, 0.3, "Dirichlet noise concentration at the root", min=1e-6, max=100.0),
    Option("cache_size", int, 100_000, "network evaluations remembered by position (0: no cache)", min=0),
    Option("repetition_draws", bool, True, "the search values a return to a position of the game (or of "
           "the line searched) as a draw, so a side that is ahead does not go round in circles"),
    Option("pass_forced", bool, True, "a position with one legal move (a forced capture) costs no network "
           "evaluation: the simulation goes on to the position after it, so the search sees past forced moves"),
    ENDGAME_OPTION,
    Option("compiled", bool, True, "run the search in compiled code where the game's kernels allow it (checkers, "
           "tic-tac-toe, connect four); false: the Python State-API loop, which grows the same tree more slowly"),
)

#: Root noise weight (self-play uses it; 0 for play).
DIRICHLET_EPSILON = Option("dirichlet_epsilon", float, 0.0, "weight of Dirichlet noise in the root priors "
                           "(self-play uses it; 0 for play)", min=0.0, max=1.0)

_BY_NAME = {o.name: o for o in (*SEARCH_OPTIONS, DIRICHLET_EPSILON, *SEARCH_KIND_OPTIONS)}

#: What the trainer changes in each search option: its default, limits and help, for self-play.
_TRAINER_CHANGES: dict[str, dict[str, Any]] = {
    "simulations": dict(default=100, min=2, max=10**7, help="MCTS simulations per self-play move"),
    "fpu": dict(help="first-play urgency: unvisited moves are valued at the parent's value minus this"),
    "leaf_batch": dict(help="leaves evaluated per network call"),
    "dirichlet_alpha": dict(default=1.0, help="Dirichlet noise concentration at the self-play root"),
    "dirichlet_epsilon": dict(default=0.25, help="weight of the Dirichlet noise at the self-play root"),
    "cache_size": dict(help="network evaluations remembered by position during a phase"),
    "repetition_draws": dict(help="searches value a return to an earlier position of the game or line as a "
                                  "draw (no aimless cycling when ahead)"),
    "gumbel_c_scale": dict(default=0.1),
    "endgame": dict(default="off", help="the game's endgame database for self-play (checkers has them): its "
                    "positions end the searches and the games with their exact result, which becomes the value "
                    "target of every earlier position (as Leela Chess Zero rescores with tablebases): 'off', "
                    "'auto' or a number of pieces"),
}


def trainer_search_option(name: str) -> Option:
    """The search option ``name`` as the trainer declares it (same name, type and meaning)."""
    return dataclasses.replace(_BY_NAME[name], **_TRAINER_CHANGES.get(name, {}))


def trainer_search_options(*names: str) -> tuple[Option, ...]:
    return tuple(trainer_search_option(name) for name in names)


@dataclass(frozen=True)
class SearchSettings:
    """One search's settings: budget, exploration, root noise and the kind of root search."""

    simulations: int
    c_puct: float = 1.5
    fpu: float = 0.2
    leaf_batch: int = 8
    cache_size: int = 100_000
    repetition_draws: bool = True
    pass_forced: bool = True
    dirichlet_alpha: float = 0.3
    dirichlet_epsilon: float = 0.0
    search: str = "puct"
    gumbel_actions: int = 16
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 1.0
    gumbel_scale: float | None = None
    endgame: str = "auto"
    compiled: bool = True

    @classmethod
    def from_options(cls, options: Mapping[str, Any], **overrides: Any) -> "SearchSettings":
        """The settings in a player's or trainer's resolved ``options`` (``overrides`` win)."""
        fields = {f.name for f in dataclasses.fields(cls)}
        values = {name: options[name] for name in fields if name in options}
        return cls(**{**values, **overrides})

    def replace(self, **changes: Any) -> "SearchSettings":
        return dataclasses.replace(self, **changes)

    def options(self) -> dict[str, Any]:
        """These settings as ``alphazero`` player options."""
        return dataclasses.asdict(self)

    def build(self, evaluate: Evaluate, rng: np.random.Generator | None = None, game=None) -> PUCTSearch:
        """A fresh search tree with these settings over the network ``evaluate``; for ``game`` (one with
        endgame databases: checkers), the positions of the ``endgame`` database are terminal with their
        exact result."""
        parse_endgame(self.endgame, game)
        search = build_search(evaluate, dataclasses.asdict(self), simulations=self.simulations,
                              dirichlet_epsilon=self.dirichlet_epsilon, rng=rng, game=game)
        search.oracle = None if game is None else endgame_oracle(game, self.endgame)
        return search
