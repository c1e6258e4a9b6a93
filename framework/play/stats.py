"""Scores, confidence intervals and Elo differences for match results, and the sequential probability ratio
test that decides a match as soon as its games allow (docs/tournaments.md, "Deciding a match: `--sprt`")."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

from ..errors import UsageError, clip

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


def expected_score(elo_difference: float) -> float:
    """Expected score of the player ``elo_difference`` points stronger (the logistic model)."""
    return 1.0 / (1.0 + 10.0 ** (-elo_difference / 400.0))


def elo_from_score(score: float) -> float:
    """Elo difference implied by an expected score (±inf at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


# ------------------------------------------------------------------ the sequential probability ratio test

#: What the test says: accept H1 (the gain is at least ``elo1``), accept H0 (at most ``elo0``), or play on.
H1_ACCEPTED, H0_ACCEPTED, CONTINUE = "H1 accepted", "H0 accepted", "continue"
#: The grammar of a test as typed (``--sprt``, the nnue trainer's ``gate_sprt``).
SPRT_FORM = "elo0=E0,elo1=E1,alpha=A,beta=B"
SPRT_EXAMPLE = "elo0=0,elo1=5,alpha=0.05,beta=0.05"
#: The Elo hypotheses a test takes: beyond these a score is 0 or 1 to within a few parts in a thousand.
MOST_SPRT_ELO = 1000.0
#: What a category no game fell into counts as (fishtest's ``regularize``): the likelihood of a score
#: distribution with an empty category is still defined, and a clean sweep still moves the LLR.
_EMPTY_COUNT = 1e-3


def sprt_llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """The generalized log-likelihood ratio of "the score is that of ``elo1``" against "that of ``elo0``".

    ``counts`` are the results by score, lowest first: three (losses, draws, wins: trinomial) or five
    (game pairs by the points scored in both games, 0, 1/2, 1, 3/2, 2: pentanomial).  This is fishtest's
    ``LLR_logistic`` (server/fishtest/stats/LLRcalc.py): Elo is logistic (``elo_from_score``'s), so
    hypothesis ``H`` says the expected score of a game is ``s = 1 / (1 + 10^(-elo/400))``.  Under each
    hypothesis the outcome probabilities are the most likely ones with that expected score (a multinomial
    maximum-likelihood estimate under one linear constraint), and the LLR is the log of the ratio of the two
    likelihoods of what was observed::

        p_i(s) = q_i / (1 + x (a_i - s)),  x the root of  sum_i q_i (a_i - s) / (1 + x (a_i - s)) = 0
        LLR    = N * sum_i q_i (log p_i(s1) - log p_i(s0))

    where ``a_i`` is category ``i``'s score per game (0, 1/2, 1 or 0, 1/4, ..., 1), ``q_i`` its observed
    frequency and ``N`` the count of games (or pairs).  Nothing is assumed about the draw rate: each
    hypothesis takes the one the results suggest.  An empty category counts 0.001, as in fishtest.
    """
    if len(counts) not in (3, 5):
        raise ValueError(f"SPRT counts are 3 (losses, draws, wins) or 5 (game pairs by points), not {len(counts)}")
    if not any(counts):
        return 0.0
    filled = [c if c > 0 else _EMPTY_COUNT for c in counts]
    n = sum(filled)
    top = len(filled) - 1
    observed = [(i / top, c / n) for i, c in enumerate(filled)]
    log_ratio = 0.0
    for sign, elo in ((1.0, elo1), (-1.0, elo0)):
        s = expected_score(elo)
        x = _secular_root([(a - s, q) for a, q in observed])
        log_ratio += sign * sum(q * math.log(q / (1.0 + x * (a - s))) for a, q in observed)
    return n * log_ratio


def _secular_root(pdf: Sequence[tuple[float, float]]) -> float:
    """The ``x`` with ``sum q a / (1 + x a) = 0`` for values ``a`` on both sides of 0 (fishtest's ``secular``).

    The sum falls from +inf to -inf between the poles ``-1/max a`` and ``-1/min a``, so bisection finds
    its one root; it halves the bracket until the two ends are neighbouring floats."""
    lo, hi = -1.0 / max(a for a, _ in pdf), -1.0 / min(a for a, _ in pdf)
    for _ in range(2000):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if sum(q * a / (1.0 + mid * a) for a, q in pdf) > 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds on the LLR: accept H0 at or below ``ln(beta / (1 - alpha))``, H1 at or above
    ``ln((1 - beta) / alpha)`` (``alpha``: the chance of accepting H1 when H0 holds; ``beta``: of accepting H0
    when H1 holds)."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


@dataclass(frozen=True)
class SprtResult:
    """Where a test stands: its LLR, its bounds and what it says."""

    llr: float
    lower: float
    upper: float
    decision: str       # H1_ACCEPTED, H0_ACCEPTED or CONTINUE

    @property
    def decided(self) -> bool:
        return self.decision != CONTINUE

    def __str__(self) -> str:
        return f"LLR {self.llr:+.2f} ({self.lower:+.2f}, {self.upper:+.2f})"


@dataclass(frozen=True)
class Sprt:
    """A sequential probability ratio test of H0 "the Elo gain is ``elo0``" against H1 "it is ``elo1``"
    (logistic Elo; see :func:`sprt_llr`), with error rates ``alpha`` and ``beta``."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1"):
            value = getattr(self, name)
            if not -MOST_SPRT_ELO <= value <= MOST_SPRT_ELO:
                raise UsageError(f"bad SPRT '{self}': {name}={value:g} is not between {-MOST_SPRT_ELO:g} and "
                                 f"{MOST_SPRT_ELO:g} Elo")
        if self.elo0 >= self.elo1:
            raise UsageError(f"bad SPRT '{self}': elo0 must be less than elo1 (H0: no more than elo0; "
                             f"H1: at least elo1), e.g. {SPRT_EXAMPLE}")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 1.0:
                raise UsageError(f"bad SPRT '{self}': {name}={value:g} is not a probability between 0 and 1 "
                                 f"(exclusive), e.g. {name}=0.05")
        if self.alpha + self.beta >= 1.0:
            raise UsageError(f"bad SPRT '{self}': alpha + beta must be less than 1 (a test that errs that often "
                             f"decides nothing), e.g. alpha=0.05,beta=0.05")

    @classmethod
    def parse(cls, text: str) -> "Sprt":
        """``elo0=0,elo1=5,alpha=0.05,beta=0.05`` (alpha and beta default to 0.05), in any order."""
        def bad(problem: str) -> UsageError:
            return UsageError(f"bad SPRT {clip(text.strip())!r}: {problem}; expected {SPRT_FORM}, "
                              f"e.g. {SPRT_EXAMPLE}")
        valid = ("elo0", "elo1", "alpha", "beta")
        if not text.strip():
            raise bad("it is empty")
        values: dict[str, float] = {}
        for part in text.split(","):
            key, eq, value = (word.strip() for word in part.partition("="))
            if not part.strip():
                raise bad("an empty part (a comma with nothing before or after it)")
            if not eq or not key or not value:
                raise bad(f"{part.strip()!r} is not NAME=VALUE")
            if key not in valid:
                raise bad(f"unknown part '{key}' (valid: {', '.join(valid)})")
            if key in values:
                raise bad(f"{key} is given twice")
            try:
                number = float(value)
            except ValueError:
                raise bad(f"{key}={value!r} is not a number") from None
            if not math.isfinite(number):
                raise bad(f"{key}={value} is not a finite number")
            values[key] = number
        missing = [key for key in ("elo0", "elo1") if key not in values]
        if missing:
            raise bad(f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing")
        return cls(**values)

    def __str__(self) -> str:
        """The test as typed, every number exactly (parsing it gives this test back)."""
        return ",".join(f"{name}={_number(getattr(self, name))}" for name in ("elo0", "elo1", "alpha", "beta"))

    @property
    def bounds(self) -> tuple[float, float]:
        return sprt_bounds(self.alpha, self.beta)

    def result(self, counts: Sequence[float]) -> SprtResult:
        """The test after results ``counts`` (3: trinomial, 5: pentanomial; see :func:`sprt_llr`)."""
        llr = sprt_llr(counts, self.elo0, self.elo1)
        lower, upper = self.bounds
        decision = H1_ACCEPTED if llr >= upper else H0_ACCEPTED if llr <= lower else CONTINUE
        return SprtResult(llr, lower, upper, decision)


def _number(value: float) -> str:
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def pentanomial(pair_points: Iterable[float]) -> list[int]:
    """Counts of game pairs by the points one side scored in both games (0, 1/2, 1, 3/2, 2)."""
    counts = [0] * 5
    for points in pair_points:
        counts[round(2 * points)] += 1
    return counts
