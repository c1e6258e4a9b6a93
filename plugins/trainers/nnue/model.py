"""An NNUE (plyground.negamax.nnue) as a network of our autograd, for training; any game's.

The same function as the shared float reference
(:func:`~plyground.negamax.nnue.float_output`): one first layer (a
:func:`sparse_linear` over the game's inputs) shared by both perspectives,
the mover's accumulator first, clipped ReLUs, two dense layers per bucket, the
output in the game's unit (a man).  It takes a batch as the game's
``batch_features`` gives it: the active inputs seen from the mover and from
the other side, padded with -1; their count is the position's pieces, which
choose its bucket (:func:`~plyground.negamax.nnue.bucket`).  Every bucket's
dense layers are computed for every position and a one-hot mask keeps the
position's own: B times the dense layers' work, which is small beside the
first layer's.
:meth:`NnueModel.network` hands the weights back as a
:class:`~plyground.negamax.nnue.Network` (W2 and W3 transposed from
autograd's (out, in) to the evaluation's (in, out)); the constructor takes
one, so a run resumes from a model file.  :meth:`NnueModel.clip_first_layer`
keeps the first layer within what the int16 accumulators hold (the game's
limit); call it after each optimiser step.
"""
from __future__ import annotations

import numpy as np

from plyground.negamax.nnue import Network, bucket
from plyground.plugins.autograd import Tensor, cat
from plyground.plugins.autograd import functional as F
from plyground.plugins.autograd.backend import array_module
from plyground.plugins.autograd.nn import Module, Parameter


class NnueModel(Module):
    """``forward(mover_indices, other_indices) -> (N,)`` values in men (a man = 1.0)."""

    def __init__(self, net: Network, w1_limit: float, max_active: int, dtype=np.float32) -> None:
        super().__init__()
        self.w1_limit = float(w1_limit)
        self.max_active = int(max_active)
        self.buckets, self.dense = net.buckets, net.dense
        self.w1 = Parameter(np.asarray(net.w1, dtype))                 # (INPUTS, H): a row per input
        self.b1 = Parameter(np.asarray(net.b1, dtype))
        # the buckets' second layers side by side: (B K, 2H), bucket b's units at rows b K .. b K + K - 1
        self.w2 = Parameter(np.ascontiguousarray(np.asarray(net.w2, dtype).transpose(0, 2, 1).reshape(-1, 2 * net.hidden)))
        self.b2 = Parameter(np.asarray(net.b2, dtype).reshape(-1))
        self.w3 = Parameter(np.asarray(net.w3, dtype))                 # (B, K)
        self.b3 = Parameter(np.asarray(net.b3, dtype))                 # (B,)

    def forward(self, mover_indices: np.ndarray, other_indices: np.ndarray) -> Tensor:
        mover = F.clip(F.sparse_linear(mover_indices, self.w1, self.b1), 0.0, 1.0)
        other = F.clip(F.sparse_linear(other_indices, self.w1, self.b1), 0.0, 1.0)
        hidden = F.clip(F.linear(cat([mover, other], axis=1), self.w2, self.b2), 0.0, 1.0)
        n = len(mover_indices)
        outputs = (hidden.reshape(n, self.buckets, self.dense) * self.w3).sum(axis=2) + self.b3    # (N, B)
        if self.buckets == 1:
            return outputs.reshape(-1)
        return (outputs * Tensor(self.bucket_mask(mover_indices, outputs.dtype))).sum(axis=1)

    def bucket_mask(self, mover_indices: np.ndarray, dtype) -> np.ndarray:
        """(N, B) one-hot: each position's bucket, by its active inputs (the rows' entries other than -1)."""
        active = (np.asarray(mover_indices) >= 0).sum(axis=1).astype(np.int64)
        return np.eye(self.buckets, dtype=dtype)[bucket(active, self.buckets, self.max_active)]

    def network(self) -> Network:
        """The weights as the game's evaluation takes them (float64)."""
        def host(p):
            return np.asarray(p.numpy(), np.float64)
        w2 = host(self.w2).reshape(self.buckets, self.dense, -1).transpose(0, 2, 1)
        return Network(w1=host(self.w1), b1=host(self.b1), w2=np.ascontiguousarray(w2),
                       b2=host(self.b2).reshape(self.buckets, self.dense), w3=host(self.w3), b3=host(self.b3))

    def clip_first_layer(self) -> None:
        """Keep the first layer's weights and bias within the limit (so that it quantizes)."""
        limit = self.w1_limit
        for p in (self.w1, self.b1):
            array_module(p.data).clip(p.data, -limit, limit, out=p.data)
