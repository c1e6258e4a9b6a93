"""Gaussians in natural parameters: precision-adjusted mean ``tau = mu / sigma^2`` and precision ``rho = 1 / sigma^2``.

Products and quotients of Gaussian densities are then additions and
subtractions of the parameters, which is all message passing needs: a
variable's marginal is the product of its incoming messages, and the message a
variable sends to a factor is its marginal divided by what the factor sent it.
``rho = 0`` is the uniform "Gaussian" (no information), which needs no
special case in natural parameters; it has no mean or variance.

This is the readable object form used by :mod:`.factors` and the tests; the
compiled training loop (:mod:`.engine`) does the same arithmetic on arrays of
``tau`` and ``rho``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Gaussian:
    """N(x; mu, sigma^2) stored as (tau, rho); ``Gaussian()`` is the uniform (rho = 0)."""

    tau: float = 0.0
    rho: float = 0.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.tau) and math.isfinite(self.rho)) or self.rho < 0:
            raise ValueError(f"invalid Gaussian parameters tau={self.tau!r}, rho={self.rho!r}: "
                             f"both must be finite and rho >= 0")
        if self.rho == 0 and self.tau != 0:
            raise ValueError(f"a uniform Gaussian (rho = 0) must have tau = 0, not {self.tau!r}")

    # ------------------------------------------------------------ constructors
    @classmethod
    def from_mean_variance(cls, mean: float, variance: float) -> "Gaussian":
        if not variance > 0 or not math.isfinite(variance):
            raise ValueError(f"variance must be positive and finite, not {variance!r}")
        return cls(mean / variance, 1.0 / variance)

    @classmethod
    def uniform(cls) -> "Gaussian":
        return cls(0.0, 0.0)

    # -------------------------------------------------------------- moments
    @property
    def is_uniform(self) -> bool:
        return self.rho == 0.0

    @property
    def mean(self) -> float:
        if self.rho == 0.0:
            raise ValueError("a uniform Gaussian has no mean")
        return self.tau / self.rho

    @property
    def variance(self) -> float:
        return math.inf if self.rho == 0.0 else 1.0 / self.rho

    @property
    def std(self) -> float:
        return math.sqrt(self.variance)

    # ----------------------------------------------------------- operations
    def __mul__(self, other: "Gaussian") -> "Gaussian":
        """The (unnormalised) product of two densities."""
        return Gaussian(self.tau + other.tau, self.rho + other.rho)

    def __truediv__(self, other: "Gaussian") -> "Gaussian":
        """The quotient of two densities; defined when the result has rho >= 0."""
        rho = self.rho - other.rho
        tau = self.tau - other.tau
        if rho < 0:
            if rho > -1e-12 * max(self.rho, other.rho):  # rounding: treat as equal precisions
                rho = 0.0
            else:
                raise ValueError(f"dividing {self} by {other} gives a negative precision {rho!r}")
        if rho == 0.0:
            tau = 0.0
        return Gaussian(tau, rho)

    def distance(self, other: "Gaussian") -> float:
        """max(|change of mean|, |change of standard deviation|): the convergence measure."""
        if self.is_uniform or other.is_uniform:
            return 0.0 if self.is_uniform and other.is_uniform else math.inf
        return max(abs(self.mean - other.mean), abs(self.std - other.std))

    def pdf(self, x: float) -> float:
        if self.is_uniform:
            raise ValueError("a uniform Gaussian has no normalised density")
        return math.exp(-0.5 * (x - self.mean) ** 2 * self.rho) * math.sqrt(self.rho / (2 * math.pi))

    def __repr__(self) -> str:
        if self.is_uniform:
            return "Gaussian(uniform)"
        return f"Gaussian(mean={self.mean:.6g}, std={self.std:.6g})"
