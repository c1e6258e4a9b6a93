"""How an AlphaZero search is set up, declared once for the player and the trainer.

:data:`SEARCH_OPTIONS` and :data:`SEARCH_KIND_OPTIONS` are the options of
the search (the ``alphazero`` player's defaults, which the search core's
constructors declare: ``PUCTSearch`` and ``GumbelRoot``);
:func:`trainer_search_options` are the same options with the trainer's
defaults (:data:`_TRAINER_CHANGES`: more root noise, fewer simulations, a
smaller Gumbel ``c_scale``).  Both plugins turn their resolved options into
one :class:`SearchSettings`, whose defaults are the options', and every
search tree - a player's, a self-play game's, a comparison game's, a
worker's - is built from one by :meth:`SearchSettings.build`
(PUCT or Gumbel, compiled or over the State API).  The settings' fields are the options themselves
(:data:`SearchSettings` is made from them), so each setting is declared once.
"""
from __future__ import annotations

import dataclasses
import inspect
from typing import Any, Mapping

import numpy as np

from plyground.capabilities import ENDGAME_OPTION, endgame_oracle, parse_endgame
from plyground.errors import UsageError
from plyground.options import MAX_SIMULATIONS, PAGE_SIMULATIONS, Option

from ..search.compiled import CompiledGumbelSearch, CompiledPUCTSearch, compiled_kernels
from ..search.gumbel import GumbelRoot, GumbelSearch
from ..search.evaluators import Evaluate
from ..search.puct import PUCTSearch

#: The Gumbel search's constructor parameters (:class:`GumbelRoot`) by option name.
GUMBEL_PARAMETERS = {"simulations": "simulations", "gumbel_actions": "max_considered", "gumbel_c_visit": "c_visit",
                     "gumbel_c_scale": "c_scale", "gumbel_scale": "gumbel_scale"}


def _search_default(option: str) -> Any:
    """The default of the search option ``option``, as the search core's constructor declares it (the one place
    it is written): :class:`GumbelRoot`'s for the budget and the ``gumbel_`` options, else :class:`PUCTSearch`'s."""
    cls, parameter = (GumbelRoot, GUMBEL_PARAMETERS[option]) if option in GUMBEL_PARAMETERS else (PUCTSearch, option)
    return inspect.signature(cls.__init__).parameters[parameter].default


#: The search options, with the player's defaults.
SEARCH_OPTIONS = (
    Option("simulations", int, _search_default("simulations"), "simulations per move (the match budget overrides "
           "it)", min=1, max=MAX_SIMULATIONS, remote=(1, PAGE_SIMULATIONS)),
    Option("c_puct", float, _search_default("c_puct"), "PUCT exploration constant", min=0.0, max=100.0, remote=True),
    Option("fpu", float, _search_default("fpu"), "first-play urgency: an unvisited move is valued at its parent's "
           "value minus this", min=-2.0, max=2.0, remote=True),
    Option("leaf_batch", int, _search_default("leaf_batch"), "leaves evaluated per network call (virtual loss "
           "spreads them)", min=1, max=1024, remote=True),
    Option("dirichlet_alpha", float, _search_default("dirichlet_alpha"), "Dirichlet noise concentration at the "
           "root", min=1e-6, max=100.0, remote=True),
    Option("cache_size", int, _search_default("cache_size"), "network evaluations remembered by position (0: no "
           "cache)", min=0),
    Option("repetition_draws", bool, _search_default("repetition_draws"), "the search values a return to a "
           "position of the game (or of the line searched) as a draw, so a side that is ahead does not go round "
           "in circles", remote=True),
    Option("pass_forced", bool, _search_default("pass_forced"), "a position with one legal move (a forced "
           "capture) costs no network "
           "evaluation: the simulation goes on to the position after it, so the search sees past forced moves", remote=True),
    Option("policy_temperature", float, _search_default("policy_temperature"), "softmax temperature of the "
           "network's move priors in the search: above 1 flattens them, so the search looks at more moves (Leela "
           "Chess Zero's policy softmax temperature); the analysis shows these priors, and the gumbel search also "
           "picks its root moves and final move by them", min=0.1, max=10.0, remote=True),
    ENDGAME_OPTION,
    Option("compiled", bool, True, "run the search in compiled code where the game's kernels allow it (checkers, "
           "tic-tac-toe, connect four); false: the Python State-API loop, which grows the same tree more slowly", remote=True),
)

#: Root noise weight (self-play uses it; 0 for play).
DIRICHLET_EPSILON = Option("dirichlet_epsilon", float, _search_default("dirichlet_epsilon"), "weight of Dirichlet "
                           "noise in the root priors (self-play uses it; 0 for play)", min=0.0, max=1.0, remote=True)

SEARCH_KINDS = ("puct", "gumbel")

#: Options that pick the root search; shared by the ``alphazero`` player and trainer.
SEARCH_KIND_OPTIONS = (
    Option("search", str, "puct", "root search: puct (moves by visit counts) or gumbel (Gumbel top-k with "
           "sequential halving and completed-Q policy targets; for small simulation budgets)",
           choices=SEARCH_KINDS, remote=True),
    Option("gumbel_actions", int, _search_default("gumbel_actions"), "gumbel: moves considered at the root (m)",
           min=1, max=4096, remote=True),
    Option("gumbel_c_visit", float, _search_default("gumbel_c_visit"), "gumbel: c_visit in sigma(q) = (c_visit + "
           "max visits) * c_scale * q", min=0.0, max=1e6, remote=True),
    Option("gumbel_c_scale", float, _search_default("gumbel_c_scale"), "gumbel: c_scale in sigma(q) = (c_visit + "
           "max visits) * c_scale * q", min=0.0, max=1e6, remote=True),
    Option("gumbel_scale", float, _search_default("gumbel_scale"), "gumbel: scale of the Gumbel noise at the root; "
           "none: 1 for moves chosen with a temperature (self-play), 0 otherwise", min=0.0, max=100.0,
           optional=True, remote=True),
)

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
    # c_scale 0.1 (mctx's default) instead of the paper's 1.0, measured on tic-tac-toe: with 1.0 sigma(q) swamps
    # the Gumbel noise and sharpens the targets, self-play settles into the same drawn games and the networks
    # came out worse (docs/gumbel.md).
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


class _Settings:
    """The methods of :class:`SearchSettings` (its fields are the options')."""

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
        """A fresh search tree with these settings over the network ``evaluate``: PUCT or Gumbel (``search``),
        in compiled code when ``compiled`` and ``game``'s kernels include the learner kernels
        (:mod:`plyground.players.search.compiled`), else through the State API; for ``game`` (one with
        endgame databases: checkers), the positions of the ``endgame`` database are terminal with their exact
        result."""
        parse_endgame(self.endgame, game)
        common = dict(c_puct=self.c_puct, fpu=self.fpu, leaf_batch=self.leaf_batch, cache_size=self.cache_size,
                      repetition_draws=self.repetition_draws, pass_forced=self.pass_forced,
                      policy_temperature=self.policy_temperature, rng=rng)
        kernels = compiled_kernels(game) if game is not None and self.compiled else None
        if kernels is not None:
            common.update(kernels=kernels, observation_shape=tuple(game.observation_shape))
        if self.search == "gumbel":
            cls = GumbelSearch if kernels is None else CompiledGumbelSearch
            gumbel = {parameter: getattr(self, option) for option, parameter in GUMBEL_PARAMETERS.items()}
            search = cls(evaluate, **gumbel, **common)
        elif self.search == "puct":
            cls = PUCTSearch if kernels is None else CompiledPUCTSearch
            search = cls(evaluate, dirichlet_alpha=self.dirichlet_alpha, dirichlet_epsilon=self.dirichlet_epsilon,
                         **common)
        else:
            raise UsageError(f"unknown search {self.search!r}: expected one of {', '.join(SEARCH_KINDS)}")
        search.oracle = None if game is None else endgame_oracle(game, self.endgame)
        return search


#: One search's settings: budget, exploration, root noise and the kind of root search.  Its fields are the
#: options (their names, types and the player's defaults; ``simulations`` has no default), so a setting is
#: declared once, as an option.
SearchSettings = dataclasses.make_dataclass(
    "SearchSettings", [("simulations", int)] + [
        (o.name, (o.type | None) if o.optional else o.type, dataclasses.field(default=o.default))
        for o in _BY_NAME.values() if o.name != "simulations"],
    bases=(_Settings,), frozen=True)
SearchSettings.__module__ = __name__


__all__ = ["SEARCH_OPTIONS", "SEARCH_KIND_OPTIONS", "SEARCH_KINDS", "DIRICHLET_EPSILON", "SearchSettings",
           "trainer_search_option", "trainer_search_options"]
