"""The random generator behind weight initialisation; ``manual_seed`` makes models reproducible."""
from __future__ import annotations

import numpy as np

_generator = np.random.default_rng()


def manual_seed(seed: int) -> None:
    """Reset the default generator, so models built afterwards get the same initial weights."""
    global _generator
    _generator = np.random.default_rng(seed)


def default_generator() -> np.random.Generator:
    return _generator


class seeded:
    """``with seeded(7):`` — weights initialised inside come from a generator seeded with 7;
    the default generator is restored afterwards, so building a model does not disturb other code."""

    def __init__(self, seed: int | None) -> None:
        self.seed = seed

    def __enter__(self) -> np.random.Generator:
        global _generator
        self._saved = _generator
        if self.seed is not None:
            _generator = np.random.default_rng(self.seed)
        return _generator

    def __exit__(self, *exc) -> None:
        global _generator
        _generator = self._saved
