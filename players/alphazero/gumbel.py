"""The ``search`` options of the alphazero player and trainer, and :func:`build_search`.

The Gumbel root rule itself is :mod:`plyground.players.search.gumbel` (re-exported here).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping

import numpy as np

from plyground.errors import UsageError
from plyground.options import Option

from ..search.compiled import CompiledGumbelSearch, CompiledPUCTSearch, compiled_kernels
from ..search.gumbel import Q_NORMALISATIONS, GumbelRoot, GumbelSearch, Halving, halving_schedule  # noqa: F401 - re-exported
from .search import Evaluate, PUCTSearch

SEARCH_KINDS = ("puct", "gumbel")

#: Options that pick the root search; shared by the ``alphazero`` player and trainer.
SEARCH_KIND_OPTIONS = (
    Option("search", str, "puct", "root search: puct (moves by visit counts) or gumbel (Gumbel top-k with "
           "sequential halving and completed-Q policy targets; for small simulation budgets)",
           choices=SEARCH_KINDS),
    Option("gumbel_actions", int, 16, "gumbel: moves considered at the root (m)", min=1, max=4096),
    Option("gumbel_c_visit", float, 50.0, "gumbel: c_visit in sigma(q) = (c_visit + max visits) * c_scale * q",
           min=0.0, max=1e6),
    Option("gumbel_c_scale", float, 1.0, "gumbel: c_scale in sigma(q) = (c_visit + max visits) * c_scale * q",
           min=0.0, max=1e6),
    Option("gumbel_scale", float, None, "gumbel: scale of the Gumbel noise at the root; none: 1 for moves "
           "chosen with a temperature (self-play), 0 otherwise", min=0.0, max=100.0, optional=True),
)

#: The trainer's: c_scale 0.1 (mctx's default) instead of the paper's 1.0, measured on tic-tac-toe: with 1.0
#: sigma(q) swamps the Gumbel noise and sharpens the targets, self-play settles into the same drawn games
#: and the networks came out worse (docs/gumbel.md).
TRAINER_SEARCH_KIND_OPTIONS = tuple(dataclasses.replace(o, default=0.1) if o.name == "gumbel_c_scale" else o
                                    for o in SEARCH_KIND_OPTIONS)


def build_search(evaluate: Evaluate, config: Mapping[str, Any], *, simulations: int, dirichlet_epsilon: float,
                 rng: np.random.Generator | None = None, game=None) -> PUCTSearch:
    """The search ``config["search"]`` names, from a player's or trainer's options.

    ``simulations`` is the Gumbel search's budget when a driver calls
    ``gather`` itself (``run`` sets it per call); ``dirichlet_epsilon`` is
    used by PUCT only.  With ``config["compiled"]`` (the default) and a
    ``game`` whose kernels include the learner kernels, the search runs in
    compiled code (:mod:`plyground.players.search.compiled`); otherwise
    through the State API.
    """
    common = dict(c_puct=config["c_puct"], fpu=config["fpu"], leaf_batch=config["leaf_batch"],
                  cache_size=config["cache_size"], repetition_draws=config["repetition_draws"],
                  pass_forced=config["pass_forced"], rng=rng)
    kernels = compiled_kernels(game) if game is not None and config.get("compiled", True) else None
    if kernels is not None:
        common.update(kernels=kernels, observation_shape=tuple(game.observation_shape))
    kind = config.get("search", "puct")
    if kind == "gumbel":
        cls = GumbelSearch if kernels is None else CompiledGumbelSearch
        return cls(evaluate, simulations=simulations, max_considered=config["gumbel_actions"],
                   c_visit=config["gumbel_c_visit"], c_scale=config["gumbel_c_scale"],
                   gumbel_scale=config["gumbel_scale"], **common)
    if kind != "puct":
        raise UsageError(f"unknown search {kind!r}: expected one of {', '.join(SEARCH_KINDS)}")
    cls = PUCTSearch if kernels is None else CompiledPUCTSearch
    return cls(evaluate, dirichlet_alpha=config["dirichlet_alpha"], dirichlet_epsilon=dirichlet_epsilon, **common)
