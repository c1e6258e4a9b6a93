"""Checkers move keys and board features for the Bayesian move predictor.

Everything is seen from the side to move (for keys) or the side that just
moved (for features), with the board turned half a turn for White (0-based
square s becomes 31 - s, as in the learner encodings of docs/checkers.md).
So White's 22-18 and Black's 11-15 are the same key, and both colours teach
one set of beliefs.  Descriptions use Black's square numbers.

Move keys (Urgency model): from (32) x to (32) x piece kind (man, king) x
move type, the type being one of

    0 quiet, 1 capture, 2 promotion (a quiet move that crowns), 3 capture-promotion

Key sets: ``hybrid`` from x to x kind x type (8,192 ids), ``piece`` from x
to x kind (2,048), ``type`` from x to x type (4,096), ``fromto`` (1,024), and
``hybrid-reply`` (the default, 16,384): hybrid x whether the opponent must
capture after the move (captures are compulsory, so this separates offered
exchanges and sacrifices from safe moves; a refinement of the move type in
the spirit of the thesis's "subtype quiet moves by context").  Measured on
the ACF archive, plain ``hybrid`` keys reach 1.96x the random top-1 and
``hybrid-reply`` 2.5x (docs/bayes.md).

Board features (BoardVal model), of the position after the move, from the
mover's view: ``pp`` piece-on-square: owner (mover, opponent) x kind x square
(ids 0-127); ``ms`` the legal-move set of the position: every move the
opponent can then play, as a hybrid key in the opponent's own frame (ids
128 + key, 8,192 of them); ``hybrid`` both.  The id space (8,320) is the same
for every feature set, so a feature has one id whichever set uses it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np
from numba import njit

from plyground.learning.movekeys import Encoded, GameSample, GameSet, SquareMoveAdapter

from . import kernels
from .board import square_to_rowcol
from .kernels import MAX_MOVES, SIDE

MOVE_TYPES = ("quiet", "capture", "promotion", "capture-promotion")
KEY_SETS = {
    "hybrid-reply": "from x to x piece kind x move type x whether the opponent must capture next (16,384 keys)",
    "hybrid": "from x to x piece kind x move type (8,192 keys)",
    "piece": "from x to x piece kind (2,048 keys)",
    "type": "from x to x move type (4,096 keys)",
    "fromto": "from x to (1,024 keys)",
}
_KEY_SET_CODE = {"hybrid": 0, "piece": 1, "type": 2, "fromto": 3, "hybrid-reply": 4}
_KEY_SPACE = {"hybrid": 8192, "piece": 2048, "type": 4096, "fromto": 1024, "hybrid-reply": 16384}
FEATURE_SETS = {
    "hybrid": "piece-on-square and the opponent's legal-move set after the move",
    "pp": "piece-on-square: mover/opponent x man/king x square (128 features)",
    "ms": "the opponent's legal moves after the move, as hybrid keys (8,192 features)",
}
_FEATURE_SET_CODE = {"pp": 1, "ms": 2, "hybrid": 3}
PP_SIZE = 128
FEATURE_SPACE = PP_SIZE + 8192
_KINDS = ("man", "king")


@njit(cache=True, inline="always")
def _frame(square, side):
    return square if side == 0 else 31 - square


@njit(cache=True)
def allows_capture(pos, code, child, buf):
    """Whether the opponent must capture after move ``code`` (``child``, ``buf``: scratch)."""
    child[:] = pos
    kernels.apply_move(child, code)
    n = kernels.gen_moves(child, buf)
    return n > 0 and (buf[0] >> 10) != 0


@njit(cache=True)
def move_key(pos, code, key_set, reply):
    """(key id, move type) of move ``code`` in ``pos``, in the mover's frame.

    ``reply``: whether the opponent must capture after the move (used by key set 4 only).
    """
    side = pos[SIDE]
    frm = code & 31
    to = (code >> 5) & 31
    kings = pos[1] if side == 0 else pos[3]
    kind = 1 if (kings >> frm) & 1 else 0
    promotion = kind == 0 and ((side == 0 and to >= 28) or (side == 1 and to <= 3))
    mtype = (1 if (code >> 10) != 0 else 0) + (2 if promotion else 0)
    f = _frame(frm, side)
    t = _frame(to, side)
    if key_set == 0 or key_set == 4:
        key = ((mtype * 2 + kind) * 32 + f) * 32 + t
        if key_set == 4 and reply:
            key += 8192
    elif key_set == 1:
        key = (kind * 32 + f) * 32 + t
    elif key_set == 2:
        key = (mtype * 32 + f) * 32 + t
    else:
        key = f * 32 + t
    return key, mtype


@njit(cache=True)
def _reserve(out, n, extra):
    """``out`` with room for ``extra`` more entries after ``n`` (grown outside the hot loops: an array
    variable reassigned inside a loop costs numba a reference count update per iteration)."""
    if n + extra <= out.shape[0]:
        return out
    grown = np.empty(max(2 * out.shape[0], n + extra), dtype=np.int64)
    grown[:n] = out[:n]
    return grown


@njit(cache=True)
def _board_features(child, mover, features, out, n, buf):
    """Append the feature ids of ``child`` (the position after ``mover``'s move) to ``out[n:]``."""
    if features & 1:
        out = _reserve(out, n, 32)                          # at most 24 pieces
        for plane in range(4):                              # black men, kings, white men, kings
            base = ((0 if (plane // 2) == mover else 1) * 2 + plane % 2) * 32
            b = child[plane]
            for sq in range(32):
                if (b >> sq) & 1:
                    out[n] = base + _frame(sq, mover)
                    n += 1
    if features & 2:
        m = kernels.gen_moves(child, buf)
        out = _reserve(out, n, m)
        for i in range(m):
            key, _ = move_key(child, buf[i], 0, False)
            out[n] = PP_SIZE + key
            n += 1
    return out, n


@njit(cache=True)
def encode_chunk(starts, code_start, codes, key_set, features):
    """Every position of a chunk of games (see :class:`.adapter.Encoded`), the expert's move first.

    ``starts`` (G, 7): start positions; game g's moves are
    ``codes[code_start[g]:code_start[g+1]]``.  A game whose move is not
    legal stops there and is counted in the last return value.
    """
    n_games = starts.shape[0]
    n_plies = codes.shape[0]
    pos_start = np.empty(n_plies + 1, dtype=np.int64)
    game = np.empty(n_plies, dtype=np.int32)
    ply = np.empty(n_plies, dtype=np.int32)
    n_legal = np.empty(n_plies, dtype=np.int32)
    cap = 8 * n_plies + MAX_MOVES
    key = np.empty(cap, dtype=np.int64)
    mtype = np.empty(cap, dtype=np.int8)
    feat_start = np.empty(cap + 1, dtype=np.int64)
    feat_id = np.empty(max(64, cap * (24 if features & 1 else 0) + cap * (8 if features & 2 else 0)),
                       dtype=np.int64)
    buf = np.empty(MAX_MOVES, dtype=np.int64)
    buf2 = np.empty(MAX_MOVES, dtype=np.int64)
    pos = np.empty(7, dtype=np.int64)
    child = np.empty(7, dtype=np.int64)
    np_ = 0
    nc = 0
    nf = 0
    bad = 0
    pos_start[0] = 0
    feat_start[0] = 0
    for g in range(n_games):
        pos[:] = starts[g]
        for i in range(code_start[g], code_start[g + 1]):
            code = codes[i]
            n = kernels.gen_moves(pos, buf)
            expert = -1
            for j in range(n):
                if buf[j] == code:
                    expert = j
            if expert < 0:
                bad += 1
                break
            if nc + n > key.shape[0]:
                new_cap = 2 * (nc + n)
                k2 = np.empty(new_cap, dtype=np.int64)
                k2[:nc] = key[:nc]
                key = k2
                t2 = np.empty(new_cap, dtype=np.int8)
                t2[:nc] = mtype[:nc]
                mtype = t2
                f2 = np.empty(new_cap + 1, dtype=np.int64)
                f2[:nc + 1] = feat_start[:nc + 1]
                feat_start = f2
            side = pos[SIDE]
            for jj in range(n):
                j = expert if jj == 0 else (jj - 1 if jj <= expert else jj)
                move = buf[j]
                reply = key_set == 4 and allows_capture(pos, move, child, buf2)
                key[nc], mtype[nc] = move_key(pos, move, key_set, reply)
                if features:
                    child[:] = pos
                    kernels.apply_move(child, move)
                    feat_id, nf = _board_features(child, side, features, feat_id, nf, buf2)
                nc += 1
                feat_start[nc] = nf
            game[np_] = g
            ply[np_] = i - code_start[g]
            n_legal[np_] = n
            np_ += 1
            pos_start[np_] = nc
            kernels.apply_move(pos, code)
    return (pos_start[:np_ + 1].copy(), key[:nc].copy(), mtype[:nc].copy(), feat_start[:nc + 1].copy(),
            feat_id[:nf].copy(), game[:np_].copy(), ply[:np_].copy(), n_legal[:np_].copy(), bad)


@njit(cache=True)
def candidates_of(pos, moves, key_set, features):
    """Keys, move types and board features (CSR) of ``moves`` in one position (for players)."""
    n = moves.shape[0]
    key = np.empty(n, dtype=np.int64)
    mtype = np.empty(n, dtype=np.int8)
    feat_start = np.empty(n + 1, dtype=np.int64)
    feat_id = np.empty(64, dtype=np.int64)
    buf = np.empty(MAX_MOVES, dtype=np.int64)
    child = np.empty(7, dtype=np.int64)
    side = pos[SIDE]
    nf = 0
    feat_start[0] = 0
    for j in range(n):
        reply = key_set == 4 and allows_capture(pos, moves[j], child, buf)
        key[j], mtype[j] = move_key(pos, moves[j], key_set, reply)
        if features:
            child[:] = pos
            kernels.apply_move(child, moves[j])
            feat_id, nf = _board_features(child, side, features, feat_id, nf, buf)
        feat_start[j + 1] = nf
    return key, mtype, feat_start, feat_id[:nf].copy()


class CheckersAdapter(SquareMoveAdapter):
    """Move keys and board features for English checkers (see the module docstring)."""

    game = "checkers"
    version = "checkers-1"
    key_sets = KEY_SETS
    feature_sets = FEATURE_SETS
    default_key_set = "hybrid-reply"
    default_feature_set = "hybrid"
    move_type_names = MOVE_TYPES
    piece_kinds = _KINDS
    squares = 32
    key_space_sizes = _KEY_SPACE
    feature_space_size = FEATURE_SPACE

    # --- per position -----------------------------------------------------------
    def move_keys(self, state, moves, key_set):
        keys, _, _, _ = self.candidates(state, moves, key_set, None)
        return keys.tolist()

    def move_type(self, state, move) -> int:
        return int(move_key(kernels.state_to_pos(state), int(move), 0, False)[1])

    def board_features(self, state_after, mover, feature_set):
        code = _FEATURE_SET_CODE[self.check_feature_set(feature_set)]
        out, n = _board_features(kernels.state_to_pos(state_after), mover, code,
                                 np.empty(64, dtype=np.int64), 0, np.empty(MAX_MOVES, dtype=np.int64))
        return out[:n].tolist()

    def candidates(self, state, moves: Sequence[int], key_set: str, feature_set: str | None):
        """Compiled: (keys, move types, feat_start, feat_id) of ``moves`` in ``state``."""
        features = 0 if feature_set is None else _FEATURE_SET_CODE[self.check_feature_set(feature_set)]
        return candidates_of(kernels.state_to_pos(state), np.array(moves, dtype=np.int64),
                             _KEY_SET_CODE[self.check_key_set(key_set)], features)

    def candidate_features(self, state, moves, feature_set):
        _, _, start, ids = self.candidates(state, moves, "hybrid", feature_set)
        return [ids[start[j]:start[j + 1]].tolist() for j in range(len(moves))]

    # --- words ------------------------------------------------------------------
    def square_name(self, square: int) -> str:
        return str(square + 1)

    def square_cell(self, square: int) -> tuple[int, int]:
        return square_to_rowcol(square)

    def is_capture_type(self, move_type: int) -> bool:
        return move_type in (1, 3)

    def describe_key(self, key_set: str, key: int) -> str:
        if self.check_key_set(key_set) != "hybrid-reply":
            return super().describe_key(key_set, key)
        key = int(key)   # a hybrid key, plus 8192 when the reply must capture
        reply = key >= _KEY_SPACE["hybrid"]
        return self.key_words("hybrid", key % _KEY_SPACE["hybrid"], ", allows a capture" if reply else "")

    def key_heatmaps(self, key_set: str):
        """Mean urgency of a man's one-step move, drawn on its origin square (hybrid key sets)."""
        if self.check_key_set(key_set) not in ("hybrid", "hybrid-reply"):
            return []
        from .board import DOWN_LEFT, DOWN_RIGHT, STEP
        maps = []
        for reply in ((False, True) if key_set == "hybrid-reply" else (False,)):
            for direction, name in ((DOWN_LEFT, "towards the a-file"), (DOWN_RIGHT, "towards the h-file")):
                cells = []
                for s in range(32):
                    t = int(STEP[direction, s])
                    if t < 0:
                        continue
                    mtype = 2 if t >= 28 else 0
                    key = (mtype * 2 * 32 + s) * 32 + t + (8192 if reply else 0)
                    cells.append((key, *square_to_rowcol(s)))
                maps.append((f"man steps {name}" + ("\n(allows a capture)" if reply else ""), (8, 8), cells))
        return maps

    # --- data -------------------------------------------------------------------
    def read_games(self, path: Path, progress=None) -> GameSet:
        """The games of a PDN file; unreadable or illegal games are skipped and their errors kept
        (a few seconds for the ACF archive: no progress reported)."""
        from .pdn import read_pdn
        reader = read_pdn(Path(path), strict=False)
        games = [GameSample(g.start_state(), list(g.codes), f"game {g.number}") for g in reader]
        return GameSet(games, [str(e) for e in reader.errors], str(path))

    def encode_games(self, games: Sequence[GameSample], key_set: str, feature_set: str | None) -> Encoded:
        starts = np.array([kernels.state_to_pos(g.start) for g in games], dtype=np.int64).reshape(-1, 7)
        code_start = np.zeros(len(games) + 1, dtype=np.int64)
        code_start[1:] = np.cumsum([len(g.moves) for g in games])
        codes = np.array([c for g in games for c in g.moves], dtype=np.int64)
        features = 0 if feature_set is None else _FEATURE_SET_CODE[self.check_feature_set(feature_set)]
        out = encode_chunk(starts, code_start, codes, _KEY_SET_CODE[self.check_key_set(key_set)], features)
        return Encoded(*out[:8], bad_games=int(out[8]))
