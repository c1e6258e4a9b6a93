"""Held-out evaluation: top-k accuracy against the random baseline, per ply and per move type.

The expert's rank in a position is 1 + the number of other legal moves whose
mean value is >= the expert move's: ties count as wrong, as in the thesis.
A random legal move is in the top k with probability min(k, n) / n for n
legal moves; the baseline is that expectation (exact, no sampling).
Positions with a single legal move are left out.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from . import engine
from plyground.learning.movekeys import Encoded

KMAX = 10


@dataclass
class EvalSet:
    """Positions with every legal move as a row relative to the expert's (so shared ids cancel exactly)."""

    pos_start: np.ndarray
    row_start: np.ndarray
    row_id: np.ndarray
    row_w: np.ndarray
    ply: np.ndarray
    n_legal: np.ndarray
    expert_type: np.ndarray

    @classmethod
    def from_encoded(cls, kind, encoded: Encoded, n_ids: int) -> "EvalSet":
        start, ids = kind.candidate_lists(encoded)
        ps, _, rs, rid, rw, _ = engine.build_rows(encoded.pos_start, start, ids, n_ids, True, False)
        return cls(ps, rs, rid, rw, encoded.ply.copy(), encoded.n_legal.copy(), encoded.expert_type.copy())

    @classmethod
    def concat(cls, parts: list["EvalSet"]) -> "EvalSet":
        if len(parts) == 1:
            return parts[0]
        pos, rows, ids, ws = [np.zeros(1, np.int64)], [np.zeros(1, np.int64)], [], []
        n_rows = n_ids = 0
        for part in parts:
            pos.append(part.pos_start[1:] + n_rows)
            rows.append(part.row_start[1:] + n_ids)
            ids.append(part.row_id)
            ws.append(part.row_w)
            n_rows += len(part.row_start) - 1
            n_ids += len(part.row_id)
        return cls(np.concatenate(pos), np.concatenate(rows), np.concatenate(ids), np.concatenate(ws),
                   np.concatenate([p.ply for p in parts]), np.concatenate([p.n_legal for p in parts]),
                   np.concatenate([p.expert_type for p in parts]))

    @property
    def n_positions(self) -> int:
        return len(self.pos_start) - 1

    def ranks(self, means: np.ndarray) -> np.ndarray:
        out = np.zeros(self.n_positions, dtype=np.int64)
        engine.rank_positions(np.ascontiguousarray(means, dtype=np.float64), self.pos_start, self.row_start,
                              self.row_id, self.row_w, out)
        return out


def topk(ranks: np.ndarray, n_legal: np.ndarray, kmax: int = KMAX) -> tuple[list[float], list[float]]:
    """(model, random) top-k accuracy for k = 1..kmax over the positions with >= 2 legal moves."""
    mask = n_legal >= 2
    r, n = ranks[mask], n_legal[mask].astype(np.float64)
    if len(r) == 0:
        return [0.0] * kmax, [0.0] * kmax
    model = [float(np.mean(r <= k)) for k in range(1, kmax + 1)]
    rand = [float(np.mean(np.minimum(k, n) / n)) for k in range(1, kmax + 1)]
    return model, rand


def summarize(ranks: np.ndarray, data: EvalSet, move_type_names, kmax: int = KMAX) -> dict:
    """Every held-out figure as plain numbers (JSON-ready)."""
    mask = data.n_legal >= 2
    model, rand = topk(ranks, data.n_legal, kmax)
    r, n = ranks[mask], data.n_legal[mask].astype(np.float64)
    hit1 = (r == 1).astype(np.float64)
    rand1 = 1.0 / n
    ply = data.ply[mask]
    per_ply = []
    for p in range(int(ply.max()) + 1 if len(ply) else 0):
        sel = ply == p
        if sel.any():
            per_ply.append({"ply": p, "positions": int(sel.sum()), "top1": float(hit1[sel].mean()),
                            "random_top1": float(rand1[sel].mean())})
    per_ply_band = []
    for lo in range(0, (int(ply.max()) // 10 + 1) * 10 if len(ply) else 0, 10):
        sel = (ply >= lo) & (ply < lo + 10)
        if sel.any():
            per_ply_band.append({"plies": f"{lo}-{lo + 9}", "positions": int(sel.sum()),
                                 "top1": float(hit1[sel].mean()), "random_top1": float(rand1[sel].mean())})
    types = data.expert_type[mask]
    per_type = []
    for t, name in enumerate(move_type_names):
        sel = types == t
        if sel.any():
            per_type.append({"type": name, "positions": int(sel.sum()), "share": float(sel.mean()),
                             "top1": float(hit1[sel].mean()), "top3": float((r[sel] <= 3).mean()),
                             "random_top1": float(rand1[sel].mean())})
    return {"positions": int(mask.sum()), "positions_single_move_excluded": int((~mask).sum()),
            "mean_legal_moves": float(n.mean()) if len(n) else 0.0,
            "topk": model, "random_topk": rand, "per_ply": per_ply, "per_ply_band": per_ply_band,
            "per_move_type": per_type}


def evaluate_streamed(kind, model, games, encode, chunk: int, n_ids: int, move_type_names,
                      encoded: EvalSet | None = None) -> dict:
    """:func:`summarize` over ``encoded`` (positions already encoded, if any) and every position of
    ``games``, encoded ``chunk`` games at a time: only the per-position ranks are kept, so a large
    held-out set never sits in memory as rows."""
    means = model.means()
    ranks, ply, n_legal, types = [], [], [], []
    streamed = (EvalSet.from_encoded(kind, encode(games[i:i + chunk]), n_ids) for i in range(0, len(games), chunk))
    for part in itertools.chain([encoded] if encoded is not None else [], streamed):
        ranks.append(part.ranks(means))
        ply.append(part.ply)
        n_legal.append(part.n_legal)
        types.append(part.expert_type)
    empty = np.zeros(0, np.int64)
    cat = lambda xs: np.concatenate(xs) if xs else empty  # noqa: E731
    light = EvalSet(empty, empty, empty, np.zeros(0), cat(ply), cat(n_legal), cat(types))
    return summarize(cat(ranks), light, move_type_names)
