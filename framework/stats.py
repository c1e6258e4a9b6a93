"""Scores, confidence intervals and Elo differences for match results."""
from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Score:
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        return self.points / self.games if self.games else 0.5

    def interval(self) -> tuple[float, float]:
        """95% Wilson interval for the expected score.

        Treating each game's points as a Bernoulli draw over-states the variance
        when there are draws, so this is conservative; unlike the plain normal
        interval it stays sensible at 0% and 100%.
        """
        n = self.games
        if n == 0:
            return (0.0, 1.0)
        p = self.score
        denom = 1 + Z95 ** 2 / n
        centre = (p + Z95 ** 2 / (2 * n)) / denom
        half = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / denom
        return (max(0.0, centre - half), min(1.0, centre + half))

    def elo(self) -> float:
        return elo_from_score(self.score)

    def elo_interval(self) -> tuple[float, float]:
        lo, hi = self.interval()
        return (elo_from_score(lo), elo_from_score(hi))


def elo_from_score(score: float) -> float:
    """Elo difference implied by an expected score (±inf at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)
