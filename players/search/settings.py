"""The settings of a PUCT or Gumbel search: one dataclass, which the searches take as they are.

:class:`SearchSettings` is where every default is written: :class:`~.puct.PUCTSearch`,
:class:`~.gumbel.GumbelRoot` and their compiled kinds read their settings from one, the ``alphazero``
player's search options are its fields (same names, :func:`plyground.options.options_of`), and the
AlphaZero trainer declares the same fields with its own defaults for self-play.  Two fields are no
option: ``virtual_loss`` and ``q_normalisation`` (a test or a benchmark may change them).
"""
from __future__ import annotations

from dataclasses import dataclass

from plyground.capabilities import ENDGAME_OPTION
from plyground.options import MAX_SIMULATIONS, PAGE_SIMULATIONS, setting, setting_like

#: The root searches: PUCT (moves by visit counts) or Gumbel (sequential halving, :mod:`.gumbel`).
SEARCH_KINDS = ("puct", "gumbel")
#: How the Gumbel root normalises a child's value for sigma(q) (:mod:`.gumbel`).
Q_NORMALISATIONS = ("range", "minmax")


@dataclass(frozen=True)
class SearchSettings:
    """One search's budget, exploration, root noise and kind of root search; the defaults are the
    ``alphazero`` player's."""

    simulations: int = setting(200, "simulations per move (the match budget overrides it)", min=1,
                               max=MAX_SIMULATIONS, remote=(1, PAGE_SIMULATIONS))
    c_puct: float = setting(1.5, "PUCT exploration constant", min=0.0, max=100.0, remote=True)
    fpu: float = setting(0.2, "first-play urgency: an unvisited move is valued at its parent's value minus this",
                         min=-2.0, max=2.0, remote=True)
    leaf_batch: int = setting(8, "leaves evaluated per network call (virtual loss spreads them)", min=1, max=1024,
                              remote=True)
    dirichlet_alpha: float = setting(0.3, "Dirichlet noise concentration at the root", min=1e-6, max=100.0,
                                     remote=True)
    cache_size: int = setting(100_000, "network evaluations remembered by position (0: no cache)", min=0)
    repetition_draws: bool = setting(True, "the search values a return to a position of the game (or of the line "
                                     "searched) as a draw, so a side that is ahead does not go round in circles",
                                     remote=True)
    pass_forced: bool = setting(True, "a position with one legal move (a forced capture) costs no network "
                                "evaluation: the simulation goes on to the position after it, so the search sees "
                                "past forced moves", remote=True)
    policy_temperature: float = setting(1.0, "softmax temperature of the network's move priors in the search: "
                                        "above 1 flattens them, so the search looks at more moves (Leela Chess "
                                        "Zero's policy softmax temperature); the analysis shows these priors, and "
                                        "the gumbel search also picks its root moves and final move by them",
                                        min=0.1, max=10.0, remote=True)
    endgame: str = setting_like(ENDGAME_OPTION)
    compiled: bool = setting(True, "run the search in compiled code where the game's kernels allow it (checkers, "
                             "tic-tac-toe, connect four); false: the Python State-API loop, which grows the same "
                             "tree more slowly", remote=True)
    dirichlet_epsilon: float = setting(0.0, "weight of Dirichlet noise in the root priors (self-play uses it; 0 for "
                                       "play)", min=0.0, max=1.0, remote=True)
    search: str = setting("puct", "root search: puct (moves by visit counts) or gumbel (Gumbel top-k with "
                          "sequential halving and completed-Q policy targets; for small simulation budgets)",
                          choices=SEARCH_KINDS, remote=True)
    gumbel_actions: int = setting(16, "gumbel: moves considered at the root (m)", min=1, max=4096, remote=True)
    gumbel_c_visit: float = setting(50.0, "gumbel: c_visit in sigma(q) = (c_visit + max visits) * c_scale * q",
                                    min=0.0, max=1e6, remote=True)
    gumbel_c_scale: float = setting(1.0, "gumbel: c_scale in sigma(q) = (c_visit + max visits) * c_scale * q",
                                    min=0.0, max=1e6, remote=True)
    gumbel_scale: float | None = setting(None, "gumbel: scale of the Gumbel noise at the root; none: 1 for moves "
                                         "chosen with a temperature (self-play), 0 otherwise", min=0.0, max=100.0,
                                         remote=True)
    #: how far a pending leaf pushes later descents of the same batch away (PUCT's virtual loss)
    virtual_loss: float = 1.0
    #: gumbel: the normalisation of q in sigma(q): the value range mapped linearly, or min-max over the root
    q_normalisation: str = "range"


__all__ = ["SearchSettings", "SEARCH_KINDS", "Q_NORMALISATIONS"]
