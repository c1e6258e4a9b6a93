"""How an AlphaZero search is set up, for the player and the trainer.

The settings are one dataclass, :class:`~plyground.players.search.settings.SearchSettings`, whose fields
are the ``alphazero`` player's search options (:data:`SEARCH_OPTIONS`, :data:`DIRICHLET_EPSILON`,
:data:`SEARCH_KIND_OPTIONS`: derived from it, in the player's order); the trainer declares the same
fields with its own defaults (:func:`search_setting`).  Every search tree - a player's, a self-play
game's, a comparison game's, a worker's - is built from one by :func:`build_search` (PUCT or Gumbel,
compiled or over the State API), and takes the settings as they are.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from plyground.capabilities import endgame_oracle, parse_endgame
from plyground.errors import UsageError
from plyground.options import Option, options_of, setting_like

from ..search.compiled import CompiledGumbelSearch, CompiledPUCTSearch, compiled_kernels
from ..search.evaluators import Evaluate
from ..search.gumbel import GumbelSearch
from ..search.puct import PUCTSearch
from ..search.settings import SEARCH_KINDS, SearchSettings

#: The search's options (the fields of :class:`SearchSettings`, with their defaults), by name.
_BY_NAME: dict[str, Option] = {option.name: option for option in options_of(SearchSettings)}

#: The search options, with the player's defaults.
SEARCH_OPTIONS = tuple(_BY_NAME[name] for name in (
    "simulations", "c_puct", "fpu", "leaf_batch", "dirichlet_alpha", "cache_size", "repetition_draws",
    "pass_forced", "policy_temperature", "endgame", "compiled"))
#: Root noise weight (self-play uses it; 0 for play).
DIRICHLET_EPSILON = _BY_NAME["dirichlet_epsilon"]
#: Options that pick the root search; shared by the ``alphazero`` player and trainer.
SEARCH_KIND_OPTIONS = tuple(_BY_NAME[name] for name in (
    "search", "gumbel_actions", "gumbel_c_visit", "gumbel_c_scale", "gumbel_scale"))


def search_setting(name: str, **changes: Any) -> Any:
    """A field of another settings dataclass (the trainer's) that is the search option ``name``: its name,
    type and meaning, with ``changes`` to its default, limits or help."""
    return setting_like(_BY_NAME[name], **changes)


def build_search(settings: SearchSettings, evaluate: Evaluate, rng: np.random.Generator | None = None,
                 game=None) -> PUCTSearch:
    """A fresh search tree with ``settings`` over the network ``evaluate``: PUCT or Gumbel (``search``), in
    compiled code when ``compiled`` and ``game``'s kernels include the learner kernels
    (:mod:`plyground.players.search.compiled`), else through the State API; for ``game`` (one with endgame
    databases: checkers), the positions of the ``endgame`` database are terminal with their exact result."""
    parse_endgame(settings.endgame, game)
    if settings.search not in SEARCH_KINDS:
        raise UsageError(f"unknown search {settings.search!r}: expected one of {', '.join(SEARCH_KINDS)}")
    gumbel = settings.search == "gumbel"
    kernels = compiled_kernels(game) if game is not None and settings.compiled else None
    if kernels is None:
        search = (GumbelSearch if gumbel else PUCTSearch)(evaluate, settings, rng=rng)
    else:
        search = (CompiledGumbelSearch if gumbel else CompiledPUCTSearch)(
            evaluate, settings, rng=rng, kernels=kernels, observation_shape=tuple(game.observation_shape))
    search.oracle = None if game is None else endgame_oracle(game, settings.endgame)
    return search


__all__ = ["SEARCH_OPTIONS", "SEARCH_KIND_OPTIONS", "DIRICHLET_EPSILON", "search_setting", "build_search"]
