"""Elo ratings from game results: a Bradley–Terry fit with draws as half points.

The model: a game between players rated ``r_i`` and ``r_j`` (in Elo) gives
``i`` an expected score ``E = 1 / (1 + 10 ** ((r_j - r_i) / 400))``.  Each game
contributes ``s * log(E) + (1 - s) * log(1 - E)`` to the log-likelihood, where
``s`` is 1, 0.5 or 0: a draw counts as half a win and half a loss.  Only
differences are identified, so one player (the *anchor*) is fixed at 0.

**Perfect scores.**  A player who wins every game has no finite maximum
likelihood rating.  Every pairing that played at least one game therefore also
gets ``prior_draws`` *virtual draws* (default 1), as in BayesElo: 20 wins out
of 20 are rated as 20.5 points out of 21 (+643 Elo), not +infinity.  The prior
pulls every difference slightly towards 0; with more games its effect fades.

**Intervals** are 95% intervals.  By default (``relative_to="pool"``, as in
Ordo) they measure how precisely each player is placed *relative to the
average of the pool*: the anchor only fixes where 0 is, and has an interval
like everyone else.  That is the right reading for comparing players with
each other: with ``relative_to="anchor"`` each interval is that of the
difference to the anchor (whose interval is [0, 0]), so the anchor's own
uncertainty is loaded onto everyone — two strong players who both beat a
weak anchor in every game get wide, overlapping intervals even when their
head-to-head games separate them clearly.  Either way they come from:

* ``"curvature"`` (default): the Laplace approximation at the fit — the
  inverse of the negative Hessian of the log-likelihood, "sandwiched" with the
  observed spread of the scores (Huber–White) so that draws, which make a
  score less variable than a win-or-loss coin, narrow the interval as they
  should.  The virtual draws take part in both, so perfect scores give wide
  but finite intervals.
* ``"bootstrap"``: games are resampled with replacement within each pairing
  (``bootstrap`` resamples, seeded) and refitted; the interval is the 2.5 and
  97.5 percentiles.  Games are drawn from each pairing's outcome frequencies
  smoothed by its virtual draws, so a perfect score does not resample to
  itself (zero width); even so, pairings with few games give narrower
  bootstrap intervals than they deserve, so curvature is the default.

The **likelihood of superiority** (LOS) of a player over the next one down the
table is the probability that its true rating is higher: ``Φ(Δ / sd(Δ))`` from
the same covariance, or the fraction of bootstrap fits in which it is higher.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from ..errors import UsageError
from .stats import Z95

#: Elo per natural-log unit of odds: E = sigmoid(C * (r_i - r_j)).
C = math.log(10.0) / 400.0
#: Largest move of any rating in one Newton step (keeps flat likelihoods stable).
_MAX_STEP = 400.0
INTERVAL_METHODS = ("curvature", "bootstrap")
INTERVAL_REFERENCES = ("pool", "anchor")


@dataclass
class Results:
    """Win/draw/loss counts between every pair of ``names``.

    ``wins[i, j]`` is how many games ``i`` won against ``j``; ``draws`` is
    symmetric.  Colours are not modelled: tournaments balance them.
    """

    names: list[str]
    wins: np.ndarray = None
    draws: np.ndarray = None

    def __post_init__(self) -> None:
        if len(set(self.names)) != len(self.names):
            raise UsageError(f"player names must be distinct: {self.names}")
        n = len(self.names)
        if self.wins is None:
            self.wins = np.zeros((n, n), dtype=np.int64)
        if self.draws is None:
            self.draws = np.zeros((n, n), dtype=np.int64)
        self._index = {name: i for i, name in enumerate(self.names)}

    def index(self, name: str) -> int:
        try:
            return self._index[name]
        except KeyError:
            raise UsageError(f"unknown player '{name}'; players: {', '.join(self.names)}") from None

    def add(self, a: str, b: str, score_a: float, count: int = 1) -> None:
        """Record ``count`` games in which ``a`` scored ``score_a`` (1, 0.5 or 0) against ``b``."""
        i, j = self.index(a), self.index(b)
        if i == j:
            raise UsageError(f"a player cannot be rated against itself ({a})")
        if score_a == 1.0:
            self.wins[i, j] += count
        elif score_a == 0.0:
            self.wins[j, i] += count
        elif score_a == 0.5:
            self.draws[i, j] += count
            self.draws[j, i] += count
        else:
            raise ValueError(f"a game score must be 1, 0.5 or 0, not {score_a!r}")

    @classmethod
    def from_games(cls, names: Sequence[str], games: Iterable[tuple[str, str, float]]) -> "Results":
        results = cls(list(names))
        for a, b, score in games:
            results.add(a, b, score)
        return results

    @property
    def games(self) -> np.ndarray:
        """Games played between each pair (symmetric)."""
        return self.wins + self.wins.T + self.draws

    @property
    def points(self) -> np.ndarray:
        """Points ``i`` scored against ``j``."""
        return self.wins + 0.5 * self.draws


@dataclass
class PlayerRating:
    name: str
    elo: float | None                 # None: not connected to the anchor by games
    lower: float | None
    upper: float | None
    games: int
    points: float
    los_next: float | None = None     # P(stronger than the next player down the table)

    @property
    def score(self) -> float | None:
        return self.points / self.games if self.games else None

    def to_json(self) -> dict:
        return {"name": self.name, "elo": _round(self.elo), "lower": _round(self.lower),
                "upper": _round(self.upper), "games": self.games, "points": self.points,
                "score": None if self.score is None else round(self.score, 4),
                "los_next": None if self.los_next is None else round(self.los_next, 4)}


def _round(x: float | None) -> float | None:
    return None if x is None else round(float(x), 1)


@dataclass
class Ratings:
    """A fit: players best first (unrated ones last), with the settings that produced it."""

    players: list[PlayerRating]
    anchor: str
    method: str
    prior_draws: float
    relative_to: str = "pool"
    covariance: np.ndarray | None = field(default=None, repr=False)   # of the ratings relative to the anchor

    def by_name(self) -> dict[str, PlayerRating]:
        return {p.name: p for p in self.players}

    def to_json(self) -> dict:
        return {"anchor": self.anchor, "interval_method": self.method, "intervals_relative_to": self.relative_to,
                "confidence": 0.95, "prior_draws": self.prior_draws,
                "players": [p.to_json() for p in self.players]}


# ------------------------------------------------------------------ fitting

def fit_ratings(results: Results, anchor: str | None = None, *, prior_draws: float = 1.0,
                method: str = "curvature", relative_to: str = "pool", bootstrap: int = 1000,
                seed: int = 0) -> Ratings:
    """Maximum-likelihood Elo of every player connected to ``anchor`` (default: the first name)."""
    if method not in INTERVAL_METHODS:
        raise UsageError(f"unknown interval method '{method}'; valid: {', '.join(INTERVAL_METHODS)}")
    if relative_to not in INTERVAL_REFERENCES:
        raise UsageError(f"unknown interval reference '{relative_to}'; valid: {', '.join(INTERVAL_REFERENCES)}")
    if prior_draws < 0:
        raise UsageError(f"prior_draws must be >= 0, not {prior_draws}")
    names = results.names
    anchor = anchor if anchor is not None else names[0]
    a = results.index(anchor)
    games = results.games
    member = _component(games, a)
    idx = np.flatnonzero(member)                     # rated players; the anchor among them
    sub = np.ix_(idx, idx)
    wins, draws = results.wins[sub].astype(float), results.draws[sub].astype(float)
    anchor_pos = int(np.flatnonzero(idx == a)[0])

    if prior_draws == 0:
        _require_finite_maximum(wins, draws, [names[i] for i in idx])
    elo = _newton(wins[None], draws[None], anchor_pos, prior_draws)[0]
    cov = np.zeros((len(idx), len(idx)))
    if len(idx) > 1:
        cov = _sandwich_covariance(elo, wins, draws, anchor_pos, prior_draws)
    if method == "bootstrap" and len(idx) > 1:
        samples = _bootstrap(wins, draws, anchor_pos, prior_draws, bootstrap, seed)
        spread = samples
        if relative_to == "pool":
            spread = samples - samples.mean(axis=1, keepdims=True) + elo.mean()
        lower, upper = np.percentile(spread, [2.5, 97.5], axis=0)
    else:
        samples = None
        spread = cov
        if relative_to == "pool":
            centre = np.eye(len(idx)) - 1.0 / len(idx)      # covariance of r - mean(r)
            spread = centre @ cov @ centre
        half = Z95 * np.sqrt(np.maximum(np.diag(spread), 0.0))
        lower, upper = elo - half, elo + half

    rated = {int(i): k for k, i in enumerate(idx)}
    all_games, all_points = games.sum(axis=1), results.points.sum(axis=1)
    players = []
    for i, name in enumerate(names):
        k = rated.get(i)
        players.append(PlayerRating(name, None if k is None else float(elo[k]),
                                    None if k is None else float(lower[k]),
                                    None if k is None else float(upper[k]),
                                    int(all_games[i]), float(all_points[i])))
    order = sorted(range(len(names)), key=lambda i: (players[i].elo is None, -(players[i].elo or 0.0), i))
    for above, below in zip(order, order[1:]):
        ka, kb = rated.get(above), rated.get(below)
        if ka is None or kb is None:
            continue
        if samples is not None:
            players[above].los_next = float(np.mean(samples[:, ka] > samples[:, kb])
                                            + 0.5 * np.mean(samples[:, ka] == samples[:, kb]))
        else:
            var = cov[ka, ka] + cov[kb, kb] - 2 * cov[ka, kb]
            diff = elo[ka] - elo[kb]
            players[above].los_next = _phi(diff / math.sqrt(var)) if var > 0 else (0.5 if diff == 0 else 1.0)
    full_cov = np.full((len(names), len(names)), np.nan)
    full_cov[np.ix_(idx, idx)] = cov
    return Ratings([players[i] for i in order], anchor, method, prior_draws, relative_to, full_cov)


def _component(games: np.ndarray, start: int) -> np.ndarray:
    """Players linked to ``start`` by a chain of games (ratings elsewhere are not identified)."""
    seen = np.zeros(len(games), dtype=bool)
    seen[start] = True
    frontier = [start]
    while frontier:
        i = frontier.pop()
        for j in np.flatnonzero((games[i] > 0) & ~seen):
            seen[j] = True
            frontier.append(int(j))
    return seen


def _require_finite_maximum(wins: np.ndarray, draws: np.ndarray, names: list[str]) -> None:
    """Without a prior the likelihood has a finite maximum only if every group of players took
    points from the rest (the "scored against" graph is strongly connected)."""
    took = (wins + draws) > 0                    # took[i, j]: i scored against j
    for start in range(len(names)):
        reach = _component(took, start)          # players start scored against, directly or by a chain
        if not reach.all():
            lost = names[start]
            raise UsageError(f"with no prior draws the ratings have no finite maximum: {lost} and the players "
                             f"it scored against never took a point from "
                             f"{', '.join(n for n, r in zip(names, reach) if not r)}; use prior draws > 0")


def _with_prior(wins: np.ndarray, draws: np.ndarray, prior_draws: float) -> tuple[np.ndarray, np.ndarray]:
    """Points and games per pair, the virtual draws of every pairing that played included."""
    games = wins + np.swapaxes(wins, -1, -2) + draws
    virtual = prior_draws * (games > 0)
    return wins + 0.5 * (draws + virtual), games + virtual


def _newton(wins: np.ndarray, draws: np.ndarray, anchor: int, prior_draws: float,
            tol: float = 1e-7, max_iter: int = 100) -> np.ndarray:
    """Batched maximum-likelihood fit: ``wins``/``draws`` of shape (B, P, P) -> Elo of shape (B, P)."""
    batch, n = wins.shape[0], wins.shape[1]
    points, games = _with_prior(wins, draws, prior_draws)
    elo = np.zeros((batch, n))
    if n == 1:
        return elo
    free = np.array([i for i in range(n) if i != anchor])
    for _ in range(max_iter):
        p = _expected(elo)
        grad = C * (points - games * p).sum(axis=2)
        weight = C * C * games * p * (1.0 - p)
        # A whisker of ridge keeps a flat direction (a resample in which one side scored nothing,
        # with no prior) solvable; that rating then walks off by _MAX_STEP a step, as it should.
        h = _hessian(weight)[:, free][:, :, free] - 1e-12 * np.eye(n - 1)
        g = grad[:, free]
        step = -np.linalg.solve(h, g[:, :, None])[:, :, 0]
        biggest = np.abs(step).max(axis=1, keepdims=True)
        step *= np.minimum(1.0, _MAX_STEP / np.maximum(biggest, 1e-300))
        elo[:, free] += step
        if biggest.max() < tol:
            break
    return elo


def _hessian(weight: np.ndarray) -> np.ndarray:
    """Hessian of the log-likelihood from the pair weights ``C² n p (1-p)``: w_ij off the diagonal, -Σ_j w_ij on it."""
    hess = weight.copy()
    diag = weight.sum(axis=-1)
    n = weight.shape[-1]
    hess[..., np.arange(n), np.arange(n)] = -diag
    return hess


def _expected(elo: np.ndarray) -> np.ndarray:
    """Expected score of i against j for every pair, shape (..., P, P)."""
    diff = elo[..., :, None] - elo[..., None, :]
    return 1.0 / (1.0 + np.exp(-C * diff))


def _sandwich_covariance(elo: np.ndarray, wins: np.ndarray, draws: np.ndarray, anchor: int,
                         prior_draws: float) -> np.ndarray:
    """H⁻¹ J H⁻¹ over the free ratings (anchor row and column zero)."""
    n = len(elo)
    p = _expected(elo)
    _, games = _with_prior(wins, draws, prior_draws)
    virtual = prior_draws * (games > 0)
    hess = _hessian(C * C * games * p * (1.0 - p))
    # Observed squared residuals of the per-game score, virtual draws included.
    residual = wins * (1 - p) ** 2 + wins.T * p ** 2 + (draws + virtual) * (0.5 - p) ** 2
    meat = -_hessian(C * C * residual)           # Σ r² (e_i - e_j)(e_i - e_j)ᵀ over games
    free = np.array([i for i in range(n) if i != anchor])
    h_inv = np.linalg.inv(-hess[np.ix_(free, free)])
    cov = np.zeros((n, n))
    cov[np.ix_(free, free)] = h_inv @ meat[np.ix_(free, free)] @ h_inv
    return cov


def _bootstrap(wins: np.ndarray, draws: np.ndarray, anchor: int, prior_draws: float,
               samples: int, seed: int) -> np.ndarray:
    """Refit ``samples`` resamplings of the games (within each pairing): Elo of shape (samples, P)."""
    rng = np.random.default_rng(seed)
    n = len(wins)
    boot_wins = np.zeros((samples, n, n))
    boot_draws = np.zeros((samples, n, n))
    for i in range(n):
        for j in range(i + 1, n):
            counts = np.array([wins[i, j], draws[i, j], wins[j, i]])
            total = int(counts.sum())
            if total == 0:
                continue
            # Resample from the outcome frequencies smoothed by the virtual draws, each counted as
            # the half win and half loss the likelihood sees: a perfect score then still
            # resamples with the odd loss instead of always to itself.
            smoothed = counts + np.array([prior_draws / 2, 0.0, prior_draws / 2])
            drawn = rng.multinomial(total, smoothed / smoothed.sum(), size=samples)
            boot_wins[:, i, j], boot_draws[:, i, j], boot_wins[:, j, i] = drawn.T
            boot_draws[:, j, i] = drawn[:, 1]
    return _newton(boot_wins, boot_draws, anchor, prior_draws)


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


