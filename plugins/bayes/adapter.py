"""Finding a game's adapter for the Bayesian move predictor: the adapters registered through the bayes
plugin's ``register_bayes_adapters`` hook (what an adapter is: :mod:`plyground.learning.movekeys`)."""
from __future__ import annotations

from plyground.errors import UsageError
from plyground.learning.movekeys import BayesAdapter
from plyground.protocols import Game

from .plugin import ADAPTERS

# ------------------------------------------------------------------ registry

#: The registry kind of adapters (declared by the bayes plugin, registered with ``register_bayes_adapters``).
KIND = ADAPTERS.name


def adapter_names() -> list[str]:
    """The games with an adapter."""
    from plyground.registry import get_registry
    return get_registry().names(KIND)


def get_adapter(game: Game | str) -> BayesAdapter:
    """The adapter for ``game`` (a Game or its name); UsageError naming the games that have one."""
    from plyground.registry import get_registry
    name = game if isinstance(game, str) else game.name
    entry = get_registry().find(KIND, name)
    if entry is None:
        raise UsageError(f"the bayes plugin has no adapter for {name}; games with one: {', '.join(adapter_names())}")
    return entry.cls()


def unsupported_reason(game: Game) -> str | None:
    """Why the bayes player and trainer cannot take ``game`` (no adapter for it), or None."""
    try:
        get_adapter(game)
    except UsageError:
        return f"no bayes adapter for {game.name} (games with one: {', '.join(adapter_names())})"
    return None
