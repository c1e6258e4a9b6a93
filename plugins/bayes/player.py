"""The ``bayes`` player: plays the move its learned beliefs rate highest, and can say why.

``plyground play --white bayes:model=runs/urgency/model.npz`` (add
``sample=true`` to draw each value from its belief, plus the expert's noise
beta unless ``expert_noise=false``, instead of taking means).

For search, :meth:`BayesPlayer.move_priors` gives normalised move
probabilities (``softmax`` of the means or the probability of being ``best``;
see :mod:`.priors`), in the order of ``state.legal_moves()``::

    from plyground.plugins.bayes.player import BayesPlayer
    bayes = BayesPlayer(game, model="runs/urgency/model.npz")
    moves, p = bayes.move_priors(state)              # p sums to 1
    moves, p = bayes.move_priors(state, method="best")
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from plyground.errors import UsageError
from plyground.options import Option
from plyground.protocols import Budget, Game, Player, State

from . import boardval, priors, urgency
from .adapter import get_adapter, unsupported_reason
from .model import BayesModel

_KINDS = {"urgency": urgency, "boardval": boardval}


class BayesPlayer(Player):
    name = "bayes"
    description = "Plays the move a Bayesian move-prediction model (bayes trainer) rates highest; explains why."
    options = (
        Option("model", Path, None, "model file written by the bayes trainer (RUN/model.npz)", optional=True),
        Option("sample", bool, False, "draw every value from its belief and play the highest draw "
                                      "(instead of the highest mean)", remote=True),
        Option("expert_noise", bool, True, "when sampling, add the expert's noise beta to each move's draw, "
                                           "so a move is played as often as the model expects an expert to "
                                           "play it (false: the beliefs' own uncertainty only)", remote=True),
        Option("seed", int, None, "random seed for sample=true (default: the match's seed)", optional=True),
        Option("priors", str, "softmax", "how move_priors turns beliefs into probabilities: softmax of the "
                                         "means, or the probability of being best", choices=priors.METHODS, remote=True),
        Option("temperature", float, 1.0, "softmax temperature of move_priors", min=1e-6),
    )

    def __init__(self, game: Game, **options) -> None:
        super().__init__(game, **options)
        options = self.config
        if options["model"] is None:
            raise UsageError("player bayes needs option model=PATH: a model written by the bayes trainer, "
                             "e.g. bayes:model=runs/urgency/model.npz")
        self.adapter = get_adapter(game)
        self.model = BayesModel.load(options["model"], game=game.name, adapter=self.adapter)
        self.kind = _KINDS[self.model.kind]
        self._means = self.model.means()
        self._vars = np.where(self.model.rho > 0, 1.0 / np.maximum(self.model.rho, 1e-300), np.nan)
        self.rng = np.random.default_rng(options["seed"])
        self._last: dict | None = None

    @classmethod
    def unsupported_reason(cls, game: Game) -> str | None:
        return unsupported_reason(game)

    @classmethod
    def defaults_reason(cls, game: Game) -> str | None:
        return cls.unsupported_reason(game) or "it needs a model written by the bayes trainer (model=PATH)"

    def reset(self, seed: int | None = None) -> None:
        fixed = self.config.get("seed")
        if fixed is not None or seed is not None:
            self.rng = np.random.default_rng(fixed if fixed is not None else seed)

    # ------------------------------------------------------------- beliefs
    def _rows(self, state: State, moves: Sequence) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(start, ids, weights) of each move's row (key, or board features merged into weights)."""
        start, ids = self.kind.state_candidates(self.adapter, state, list(moves), self.model.id_set)
        out_start, out_ids, out_w = [0], [], []
        for j in range(len(moves)):
            u, c = np.unique(ids[start[j]:start[j + 1]], return_counts=True)
            out_ids.append(u)
            out_w.append(c.astype(np.float64))
            out_start.append(out_start[-1] + len(u))
        cat = (lambda parts, dt: np.concatenate(parts) if parts else np.zeros(0, dt))
        return np.array(out_start), cat(out_ids, np.int64), cat(out_w, np.float64)

    def beliefs(self, state: State, moves: Sequence | None = None):
        """(moves, means, variances) of each move's value under the model (variances without beta)."""
        moves = list(state.legal_moves() if moves is None else moves)
        start, ids, w = self._rows(state, moves)
        means = np.zeros(len(moves))
        variances = np.zeros(len(moves))
        prior = float(self.model.params.get("prior_variance", 1.0))
        for j in range(len(moves)):
            sl = slice(start[j], start[j + 1])
            var = self._vars[ids[sl]]
            var = np.where(np.isnan(var), prior / max(start[j + 1] - start[j], 1), var)
            means[j] = float(np.sum(w[sl] * self._means[ids[sl]]))
            variances[j] = float(np.sum(w[sl] ** 2 * var))
        return moves, means, variances

    def move_priors(self, state: State, method: str | None = None, temperature: float | None = None):
        """(legal moves, probabilities summing to 1) from the beliefs, for a search's priors."""
        moves, means, variances = self.beliefs(state)
        if not moves:
            return moves, np.zeros(0)
        method = method or self.config["priors"]
        temperature = temperature or self.config["temperature"]
        return moves, priors.move_priors(means, variances + self.model.beta ** 2, method, temperature)

    def explain(self, state: State, move, versus=None, top: int = 6) -> list[dict]:
        """Why ``move`` rates above (or below) ``versus`` (default: the best other move): the keys or
        features that differ between them, largest contribution first."""
        moves, means, _ = self.beliefs(state)
        if versus is None:
            others = [(m, v) for m, v in zip(moves, means) if m != move]
            if not others:
                return []
            versus = max(others, key=lambda mv: mv[1])[0]
        start, ids, w = self._rows(state, [move, versus])
        weights: dict[int, float] = {}
        for f, a in zip(ids[start[0]:start[1]], w[start[0]:start[1]]):
            weights[int(f)] = weights.get(int(f), 0.0) + a
        for f, a in zip(ids[start[1]:start[2]], w[start[1]:start[2]]):
            weights[int(f)] = weights.get(int(f), 0.0) - a
        describe = self.adapter.describe_key if self.model.kind == "urgency" else self.adapter.describe_feature
        out = []
        for f, a in weights.items():
            if a == 0:
                continue
            var = self._vars[f]
            out.append({"id": f, "what": describe(self.model.id_set, f), "weight": a,
                        "mean": float(self._means[f]), "std": float(np.sqrt(var)) if np.isfinite(var) else None,
                        "contribution": float(a * self._means[f])})
        out.sort(key=lambda d: -abs(d["contribution"]))
        return out[:top]

    # ---------------------------------------------------------------- play
    def choose_move(self, state: State, budget: Budget):
        moves, means, variances = self.beliefs(state)
        if len(moves) == 1:
            self._last = {"moves": [{"move": state.move_to_text(moves[0]), "mean": means[0]}], "forced": True}
            return moves[0]
        if self.config["sample"]:
            start, ids, w = self._rows(state, moves)
            unique = np.unique(ids)
            var = self._vars[unique]
            var = np.where(np.isnan(var), float(self.model.params.get("prior_variance", 1.0)), var)
            draw = dict(zip(unique.tolist(), self._means[unique] + np.sqrt(var) * self.rng.standard_normal(len(unique))))
            values = np.array([sum(w[e] * draw[int(ids[e])] for e in range(start[j], start[j + 1]))
                               for j in range(len(moves))])
            if self.config["expert_noise"]:
                values = values + self.model.beta * self.rng.standard_normal(len(moves))
        else:
            values = means
        best = int(np.argmax(values))
        order = np.argsort(-means, kind="stable")
        self._last = {
            "model": self.model.describe(),
            "moves": [{"move": state.move_to_text(moves[j]), "mean": float(means[j]),
                       "std": float(np.sqrt(variances[j]))} for j in order],
            "chosen": state.move_to_text(moves[best]),
            "why": [f"{d['what']}: {d['weight']:+g} x {d['mean']:+.3f}" for d in self.explain(state, moves[best])],
        }
        return moves[best]

    def analysis(self) -> dict | None:
        return self._last
