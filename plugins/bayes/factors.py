"""The four factors of the ranking models, as readable message-passing objects.

Every variable keeps its marginal and the last message each neighbouring
factor sent it.  A factor update follows the same five steps for each
variable X it informs (thesis 004, section 3.3):

1. the message X sends the factor is ``marginal(X) / message(factor -> X)``;
2. the factor combines the messages of its *other* variables into a new
   message to X (the rule specific to the factor);
3. ``marginal(X)`` becomes ``marginal(X) / old message * new message``;
4. the new message is stored;
5. the update returns how far the marginal moved (for convergence checks).

These classes are the reference: :func:`rank_update` runs the thesis's
schedule with them, and the tests check the compiled loop in
:mod:`.engine` against it.  They are not used for bulk training.

Factors (``N`` a Gaussian density, ``delta`` Dirac's, ``I`` an indicator):

* :class:`PriorFactor`         f(x) = N(x; m, s^2)
* :class:`GaussianMeanFactor`  f(x, y) = N(y; x, beta^2)       (y is x plus noise)
* :class:`WeightedSumFactor`   f(y, x_1..x_n) = delta(y - sum_i a_i x_i)   (a difference is a = (1, -1))
* :class:`GreaterThanFactor`   f(x) = I(x > 0), approximated by moment matching (:mod:`.vw`)
"""
from __future__ import annotations

import math
from typing import Hashable, Iterable, Mapping, Sequence

from .gaussian import Gaussian
from .vw import vw_scalar


class Variable:
    """A Gaussian variable: its marginal and the message each factor last sent it."""

    def __init__(self, name: str = "") -> None:
        self.name = name
        self.marginal = Gaussian.uniform()
        self._from: dict["Factor", Gaussian] = {}   # keyed by the factor itself (ids of dead objects repeat)

    def message_from(self, factor: "Factor") -> Gaussian:
        return self._from.get(factor, Gaussian.uniform())

    def message_to(self, factor: "Factor") -> Gaussian:
        """What this variable tells ``factor``: everything it knows except what ``factor`` said."""
        return self.marginal / self.message_from(factor)

    def receive(self, factor: "Factor", message: Gaussian) -> float:
        """Replace ``factor``'s message; returns how far the marginal moved."""
        old = self.marginal
        self.marginal = self.message_to(factor) * message
        self._from[factor] = message
        return old.distance(self.marginal)

    def __repr__(self) -> str:
        return f"Variable({self.name!r}, {self.marginal!r})"


class Factor:
    variables: tuple[Variable, ...] = ()


class PriorFactor(Factor):
    """f(x) = N(x; mean, variance): a belief (or an observation with known noise) about x."""

    def __init__(self, x: Variable, prior: Gaussian) -> None:
        self.x, self.prior = x, prior
        self.variables = (x,)

    def update(self) -> float:
        return self.x.receive(self, self.prior)


class GaussianMeanFactor(Factor):
    """f(x, y) = N(y; x, beta^2): y is a noisy copy of x.

    Message to y: N(mean_x, var_x + beta^2), in natural parameters
    (tau / (1 + beta^2 rho), rho / (1 + beta^2 rho)), which is also right for
    a uniform incoming message.  Symmetric for x.
    """

    def __init__(self, x: Variable, y: Variable, beta: float) -> None:
        if not beta > 0:
            raise ValueError(f"beta must be positive, not {beta!r}")
        self.x, self.y, self.beta2 = x, y, beta * beta
        self.variables = (x, y)

    def _through(self, incoming: Gaussian) -> Gaussian:
        c = 1.0 / (1.0 + self.beta2 * incoming.rho)
        return Gaussian(c * incoming.tau, c * incoming.rho)

    def update_to_y(self) -> float:
        return self.y.receive(self, self._through(self.x.message_to(self)))

    def update_to_x(self) -> float:
        return self.x.receive(self, self._through(self.y.message_to(self)))


class WeightedSumFactor(Factor):
    """f(y, x_1..x_n) = delta(y - sum_i a_i x_i) with fixed non-zero weights a_i.

    To y:   N(sum_i a_i mu_i, sum_i a_i^2 s_i^2)
    To x_j: N((mu_y - sum_{i != j} a_i mu_i) / a_j, (s_y^2 + sum_{i != j} a_i^2 s_i^2) / a_j^2)
    where (mu_i, s_i^2) are the messages the variables send the factor.  A
    uniform message among the inputs makes the output uniform.
    """

    def __init__(self, y: Variable, xs: Sequence[Variable], weights: Sequence[float]) -> None:
        if len(xs) != len(weights) or not xs:
            raise ValueError("a weighted sum needs one weight per summand and at least one summand")
        if any(a == 0 for a in weights):
            raise ValueError("weights of a weighted sum must be non-zero")
        self.y, self.xs, self.weights = y, tuple(xs), tuple(float(a) for a in weights)
        self.variables = (y, *self.xs)

    def update_to_sum(self) -> float:
        incoming = [x.message_to(self) for x in self.xs]
        if any(m.is_uniform for m in incoming):
            return self.y.receive(self, Gaussian.uniform())
        mean = sum(a * m.mean for a, m in zip(self.weights, incoming))
        var = sum(a * a * m.variance for a, m in zip(self.weights, incoming))
        return self.y.receive(self, _from_mean_variance(mean, var))

    def summand_messages(self) -> list[Gaussian]:
        """The new message to every summand, all computed from the current state (a parallel update)."""
        from_y = self.y.message_to(self)
        incoming = [x.message_to(self) for x in self.xs]
        out = []
        for j, a_j in enumerate(self.weights):
            others = [(a, m) for i, (a, m) in enumerate(zip(self.weights, incoming)) if i != j]
            if from_y.is_uniform or any(m.is_uniform for _, m in others):
                out.append(Gaussian.uniform())
                continue
            mean = (from_y.mean - sum(a * m.mean for a, m in others)) / a_j
            var = (from_y.variance + sum(a * a * m.variance for a, m in others)) / (a_j * a_j)
            out.append(_from_mean_variance(mean, var))
        return out

    def update_to_summand(self, j: int) -> float:
        return self.xs[j].receive(self, self.summand_messages()[j])

    def set_summand_messages(self, messages: Sequence[Gaussian]) -> float:
        return max((x.receive(self, m) for x, m in zip(self.xs, messages)), default=0.0)


class GreaterThanFactor(Factor):
    """f(x) = I(x > 0).  The true posterior is a truncated Gaussian; it is replaced by the
    Gaussian with the same mean and variance, and the message is that divided by what x sent."""

    def __init__(self, x: Variable) -> None:
        self.x = x
        self.variables = (x,)

    def update(self) -> float:
        incoming = self.x.message_to(self)
        if incoming.is_uniform:
            raise ValueError("the greater-than factor needs a proper incoming message")
        mean, var = incoming.mean, incoming.variance
        sigma = math.sqrt(var)
        v, _, one_minus_w = vw_scalar(mean / sigma)
        posterior = _from_mean_variance(mean + sigma * v, var * one_minus_w)
        return self.x.receive(self, posterior / incoming)


def _from_mean_variance(mean: float, variance: float) -> Gaussian:
    return Gaussian(mean / variance, 1.0 / variance)


# --------------------------------------------------------------- the schedule

def rank_update(priors: Mapping[Hashable, Gaussian],
                boards: Sequence[Mapping[Hashable, float] | Iterable[Hashable]],
                beta: float, threshold: float = 1e-3, max_iterations: int = 100
                ) -> tuple[dict[Hashable, Gaussian], int]:
    """One observation: the expert chose candidate 0 of ``boards``.  Returns the posteriors of the
    features (or move keys) that occur, and the number of inner sweeps.

    ``boards[j]`` maps feature -> weight (an iterable means weight 1 each); a
    candidate's value is the weighted sum of its features' values.  The
    Urgency model is the case of one feature (the move key) per candidate.
    A candidate with no features has value exactly 0 (used when features
    shared with the expert's board are cancelled).

    Schedule (thesis 004, section 3.2.3): priors down to the latent values;
    then sweep over the differences d_k = latent_0 - latent_k (message to
    d_k, greater-than, messages back to both latents) until no d_k's marginal
    moves by ``threshold`` or more in a sweep; then up to the features, every
    board's messages computed from the same state.
    """
    rows = [dict(b) if isinstance(b, Mapping) else {f: 1.0 for f in b} for b in boards]
    features = {f: Variable(f"v[{f}]") for row in rows for f in row}
    for f, var in features.items():
        PriorFactor(var, priors[f]).update()
    latents, means, sums = [], [], []
    for j, row in enumerate(rows):
        latent = Variable(f"latent[{j}]")
        if row:
            board = Variable(f"board[{j}]")
            total = WeightedSumFactor(board, [features[f] for f in row], list(row.values()))
            total.update_to_sum()
            mean_factor = GaussianMeanFactor(board, latent, beta)
            mean_factor.update_to_y()
        else:                       # value exactly 0: the latent is pure noise N(0, beta^2)
            total = mean_factor = None
            PriorFactor(latent, Gaussian.from_mean_variance(0.0, beta * beta)).update()
        latents.append(latent)
        sums.append(total)
        means.append(mean_factor)
    diffs = []
    for k in range(1, len(rows)):
        d = Variable(f"d[{k}]")
        diffs.append((d, WeightedSumFactor(d, [latents[0], latents[k]], [1.0, -1.0]), GreaterThanFactor(d)))
    previous = [Gaussian.uniform() for _ in diffs]
    sweeps = 0
    while diffs and sweeps < max_iterations:
        sweeps += 1
        delta = 0.0
        for i, (d, difference, greater) in enumerate(diffs):
            difference.update_to_sum()
            greater.update()
            delta = max(delta, previous[i].distance(d.marginal))
            previous[i] = d.marginal
            difference.update_to_summand(0)
            difference.update_to_summand(1)
        if delta < threshold:
            break
    for mean_factor in means:
        if mean_factor is not None:
            mean_factor.update_to_x()
    pending = [(s, s.summand_messages()) for s in sums if s is not None]
    for s, messages in pending:
        s.set_summand_messages(messages)
    return {f: var.marginal for f, var in features.items()}, sweeps
