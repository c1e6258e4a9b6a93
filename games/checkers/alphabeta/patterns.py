"""A pattern evaluation for checkers in the style of Scan: sums of table weights looked up by the pieces on small
regions of the board, plus a few terms, two weight sets blended by the game's phase (docs/patterns.md).

Fabien Letouzey's draughts engine Scan (2.0, 2015) reads the board as overlapping 4x4 blocks: each block's
men, one of three states a square (empty, white man, black man), index a table of weights learned by
logistic regression; kings, material and mobility are a few terms beside them; each weight has an opening
and an endgame value, blended by how much material is left.  Here the same on the 8x8 board:

* **Regions.** The 4x4 blocks of the board whose corners lie on even rows and columns: rows 0-3, 2-5, 4-7
  times columns a-d, c-f, e-h, nine blocks of 8 dark squares that overlap by half, as Scan's sixteen do on
  the 10x10 board.  A block's state is its 8 squares' contents, 3**8 = 6,561 of them: a table per block.
* **States.** Empty, own piece, the other side's piece, in the frame of the side that looks (square ``s``
  for Black, ``31 - s`` for White, as :mod:`.features`).  A king is its side's piece there: Scan reads
  men only (its flying kings are rare and go anywhere), but checkers kings are common (seven in ten of
  the training positions hold one) and block squares as men do; they also have their own terms (below).
  One table serves both colours: each block is read from the side to move (+ its weight) and, turned
  half a turn, from the other side (- its weight), so a position and its colour-reversed twin have the
  same value for their side to move.
* **Terms.** The side to move (a constant: tempo), men and kings (each as own minus other), having a king
  at all, quiet moves (mobility), and a king's square (32 weights, own frame).
* **Phase.** Every feature has two weights, opening and endgame, blended by ``p`` = pieces on the board /
  24: ``value = p * opening + (1 - p) * endgame``, as :mod:`.features` blends a man's square.

The weights are in men (the search multiplies them by 100, its unit); a model file holds them as float64
(:func:`save`, :func:`load`); the search reads them as float32 (:func:`arrays`) and sums them in float64.
The value is computed from the bitboards at each leaf (:data:`PATTERN_EVALUATION`, a stateless
evaluation): nine blocks a side are a few dozen bit operations and table reads, so there is little to
save by updating them move by move (docs/patterns.md, "Speed").

:func:`sparse_features` gives the same value as a sparse feature list (the value is the weights' dot
product with it), which training fits by logistic regression (:mod:`.pattern_fit`); :func:`reference_value`
recomputes it in float64 from the squares' rows and columns, for the tests.
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

from plyground.errors import ModelFileError
from plyground.negamax import core
from plyground.files.storage import METADATA_KEY, MODEL_EXPANSION, check_format, load_npz, pop_metadata, save_npz

from ..bits import lowest_square, popcount, quiet_moves, reverse_board
from ..board import square_to_rowcol
from ..kernels import BLACK_KINGS, BLACK_MEN, SIDE, WHITE_KINGS, WHITE_MEN
from .features import MAN_MATERIAL

FORMAT = "plyground-patterns"
FORMAT_VERSION = 1
#: What a model file must say it was made for.
FEATURES = {"game": "checkers", "feature_set": "checkers-patterns", "feature_set_version": 1}
ADVICE = "give a checkers pattern evaluation file, as benchmarks/patterns_train.py writes"

SQUARES = 32
#: The blocks: ``(first row, first pair)``; block (r, k) holds squares 4i + k and 4i + k + 1 of rows
#: i = r..r+3, which are columns 2k..2k+3 of those rows (board.square_to_rowcol).
BLOCKS = tuple((row, pair) for row in (0, 2, 4) for pair in (0, 1, 2))
#: Each block's lowest square: its squares are bits 0, 1, 4, 5, 8, 9, 12, 13 above it.
_BLOCK_SHIFTS = np.array([4 * row + pair for row, pair in BLOCKS], np.int64)
BLOCK_SQUARES = 8
#: A block's states: 3 per square (empty, own piece, other piece).
STATES = 3 ** BLOCK_SQUARES
#: The ternary number of each 8-bit set of a block's squares (bit i: the block's square i holds the piece).
_TRITS = np.array([sum(3 ** i for i in range(BLOCK_SQUARES) if m >> i & 1) for m in range(1 << BLOCK_SQUARES)],
                  np.int64)

# The features: each has an opening weight (column 0) and an endgame weight (column 1).
TEMPO, MEN, KINGS, ANY_KING, MOBILITY = range(5)
KING_SQUARES = 5
PATTERNS = KING_SQUARES + SQUARES
FEATURE_COUNT = PATTERNS + len(BLOCKS) * STATES
PHASES = 2
#: The most pieces a checkers position has: ``p`` = pieces / 24.
MAX_PIECES = 24
#: The most entries :func:`sparse_features` writes: 5 terms, a king's square per king, two per block.
MAX_ENTRIES = 5 + MAX_PIECES + 2 * len(BLOCKS)
#: The largest weight a model file may hold, in men: no feature is worth a board full of pieces.  Far
#: larger ones would overflow the float32 the search reads them as.
WEIGHT_LIMIT = 100.0
#: The search's score of a weight of 1.0 (one man).
OUTPUT_SCALE = MAN_MATERIAL


class PatternWeights(NamedTuple):
    """A pattern evaluation's weights, in men: (FEATURE_COUNT, 2), the opening's and the endgame's."""

    weights: np.ndarray


def feature_names() -> list[str]:
    """Readable names: squares 1-32 in the side's own frame, blocks by their squares' columns and rows."""
    names = ["tempo", "men", "kings", "any_king", "mobility"] + [f"king[{s + 1}]" for s in range(SQUARES)]
    for row, pair in BLOCKS:
        names += [f"block[{'abcdefgh'[2 * pair]}{8 - row - 3}-{'abcdefgh'[2 * pair + 3]}{8 - row}]:{state}"
                  for state in range(STATES)]
    return names


def initial(seed: int | None = None, scale: float = 0.1) -> PatternWeights:
    """Zero weights but a man's and a king's material (1 and 1.3 men); with a ``seed``, random pattern and
    square weights of about ``scale`` men besides (tests, speed measurements)."""
    weights = np.zeros((FEATURE_COUNT, PHASES))
    weights[MEN] = 1.0
    weights[KINGS] = 1.3
    if seed is not None:
        rng = np.random.default_rng(seed)
        weights[TEMPO:] += rng.normal(0.0, scale, (FEATURE_COUNT, PHASES))
    return PatternWeights(weights)


def arrays(model: PatternWeights) -> tuple:
    """The compiled evaluation's arrays ``E``: the weights in search units, float32 (FEATURE_COUNT, 2)."""
    return (np.ascontiguousarray(np.asarray(model.weights, np.float64) * OUTPUT_SCALE, dtype=np.float32),)


# ------------------------------------------------------------------ compiled

@njit(cache=True, inline="always")
def _block_bits(b, shift):
    """The 8 squares of the block at ``shift`` on board ``b``, as bits 0-7."""
    x = (b >> shift) & 0x3333
    x = (x | (x >> 2)) & 0x0F0F
    return (x | (x >> 4)) & 0xFF


@njit(cache=True, inline="always")
def block_state(own, other, block):
    """The state of ``block`` (0..STATES-1) with ``own`` and ``other`` pieces (boards in the looking side's
    frame): square i's digit in base 3 is 0 empty, 1 own piece, 2 other piece."""
    shift = _BLOCK_SHIFTS[block]
    return _TRITS[_block_bits(own, shift)] + 2 * _TRITS[_block_bits(other, shift)]


@njit(cache=True, inline="always")
def _views(pos):
    """Each side's view in its own frame (the side to move's first, then the other's): its pieces, the other
    side's pieces and its own kings, as boards (White's are Black's turned half a turn)."""
    black, white = pos[BLACK_MEN] | pos[BLACK_KINGS], pos[WHITE_MEN] | pos[WHITE_KINGS]
    turned_black, turned_white = reverse_board(black), reverse_board(white)
    turned_wk = reverse_board(pos[WHITE_KINGS])
    if pos[SIDE] == 0:
        return black, white, pos[BLACK_KINGS], turned_white, turned_black, turned_wk
    return turned_white, turned_black, turned_wk, black, white, pos[BLACK_KINGS]


@njit(cache=True, inline="always")
def _terms(pos):
    """(phase, men, kings, any king, mobility): the phase p and the four counts as own minus other."""
    bm, bk, wm, wk = pos[BLACK_MEN], pos[BLACK_KINGS], pos[WHITE_MEN], pos[WHITE_KINGS]
    occupied = bm | bk | wm | wk
    empty = ~occupied & 0xFFFFFFFF
    phase = min(popcount(occupied), MAX_PIECES) / MAX_PIECES
    men = popcount(bm) - popcount(wm)
    kings = popcount(bk) - popcount(wk)
    any_king = (1 if bk else 0) - (1 if wk else 0)
    mobility = quiet_moves(bm, bk, empty, 0) - quiet_moves(wm, wk, empty, 1)
    sign = 1 if pos[SIDE] == 0 else -1
    return phase, sign * men, sign * kings, sign * any_king, sign * mobility


@njit(cache=True)
def evaluate(pos, W):
    """The value of ``pos`` for its side to move, in ``W``'s units (search units with :func:`arrays`' W):
    ``p * opening + (1 - p) * endgame`` of the features' weights, summed in float64."""
    phase, men, kings, any_king, mobility = _terms(pos)
    opening = W[TEMPO, 0] + men * W[MEN, 0] + kings * W[KINGS, 0] + any_king * W[ANY_KING, 0] \
        + mobility * W[MOBILITY, 0]
    endgame = W[TEMPO, 1] + men * W[MEN, 1] + kings * W[KINGS, 1] + any_king * W[ANY_KING, 1] \
        + mobility * W[MOBILITY, 1]
    own, mine, own_kings, other, theirs, other_kings = _views(pos)
    while own_kings:
        f = KING_SQUARES + lowest_square(own_kings)
        own_kings &= own_kings - 1
        opening += W[f, 0]
        endgame += W[f, 1]
    while other_kings:
        f = KING_SQUARES + lowest_square(other_kings)
        other_kings &= other_kings - 1
        opening -= W[f, 0]
        endgame -= W[f, 1]
    for block in range(_BLOCK_SHIFTS.shape[0]):
        f = PATTERNS + block * STATES + block_state(own, mine, block)
        g = PATTERNS + block * STATES + block_state(other, theirs, block)
        opening += W[f, 0]            # one at a time: float32 weights, summed in float64
        opening -= W[g, 0]
        endgame += W[f, 1]
        endgame -= W[g, 1]
    return phase * opening + (1.0 - phase) * endgame


@njit(cache=True, inline="always")
def _value(pos, ply, E):
    return evaluate(pos, E[0])


#: The pattern evaluation of the compiled search, computed at each leaf; its arrays are :func:`arrays`'.
PATTERN_EVALUATION = core.stateless(_value)


@njit(cache=True)
def sparse_features(pos, idx, val):
    """The features of ``pos`` for its side to move as a sparse list ``idx[:n]``, ``val[:n]`` (an index may
    recur; its values add up); returns (n, phase).  The value is ``sum(val * (phase * W[idx, 0] + (1 - phase)
    * W[idx, 1]))``: :func:`evaluate` up to the order of the sum."""
    phase, men, kings, any_king, mobility = _terms(pos)
    n = 0
    for f, v in ((TEMPO, 1), (MEN, men), (KINGS, kings), (ANY_KING, any_king), (MOBILITY, mobility)):
        if v != 0:
            idx[n] = f
            val[n] = v
            n += 1
    own, mine, own_kings, other, theirs, other_kings = _views(pos)
    for kings, sign in ((own_kings, 1.0), (other_kings, -1.0)):
        while kings:
            idx[n] = KING_SQUARES + lowest_square(kings)
            val[n] = sign
            n += 1
            kings &= kings - 1
    for block in range(_BLOCK_SHIFTS.shape[0]):
        idx[n] = PATTERNS + block * STATES + block_state(own, mine, block)
        idx[n + 1] = PATTERNS + block * STATES + block_state(other, theirs, block)
        val[n] = 1.0
        val[n + 1] = -1.0
        n += 2
    return n, phase


@njit(cache=True)
def batch_values(positions, W, out):
    """``out[r]``: :func:`evaluate` of each row of ``positions`` with weights ``W``."""
    for r in range(positions.shape[0]):
        out[r] = evaluate(positions[r], W)


# ------------------------------------------------------------------ float64 reference

def reference_value(weights: np.ndarray, pos: np.ndarray) -> float:
    """What :func:`evaluate` computes for ``pos`` with ``weights`` (FEATURE_COUNT, 2), in float64 Python from
    the squares' rows and columns (no bit tricks): the tests' check of the compiled value."""
    w = np.asarray(weights, np.float64)
    mover = int(pos[SIDE])
    boards = [int(b) for b in pos[:4]]

    def content(side: int, square: int) -> str:
        """What side ``side`` sees on ``square`` of its own frame: '' empty, 'own'/'other' man or king."""
        s = square if side == 0 else 31 - square
        for board, (colour, kind) in enumerate(((0, "man"), (0, "king"), (1, "man"), (1, "king"))):
            if boards[board] >> s & 1:
                return ("own " if colour == side else "other ") + kind
        return ""

    pieces = sum(bin(b).count("1") for b in boards)
    phase = min(pieces, MAX_PIECES) / MAX_PIECES
    total = np.zeros(PHASES)
    for side, sign in ((mover, 1.0), (1 - mover, -1.0)):
        seen = [content(side, s) for s in range(SQUARES)]
        own_men, own_kings = seen.count("own man"), seen.count("own king")
        total += sign * (own_men * w[MEN] + own_kings * w[KINGS] + (own_kings > 0) * w[ANY_KING])
        total += sign * sum((w[KING_SQUARES + s] for s in range(SQUARES) if seen[s] == "own king"), np.zeros(2))
        for block, (row, pair) in enumerate(BLOCKS):
            squares = sorted(s for s in range(SQUARES) if row <= square_to_rowcol(s)[0] < row + 4
                             and 2 * pair <= square_to_rowcol(s)[1] < 2 * pair + 4)
            state = sum(3 ** i * (0 if not seen[s] else 1 if seen[s].startswith("own") else 2)
                        for i, s in enumerate(squares))
            total += sign * w[PATTERNS + block * STATES + state]
    total += w[TEMPO] + _reference_mobility(boards, mover) * w[MOBILITY]
    return float(phase * total[0] + (1.0 - phase) * total[1])


def _reference_mobility(boards: list[int], mover: int) -> int:
    """The side to move's quiet moves minus the other side's, square by square."""
    occupied = [any(b >> s & 1 for b in boards) for s in range(SQUARES)]
    count = [0, 0]
    for s in range(SQUARES):
        for board, side, king in ((0, 0, False), (1, 0, True), (2, 1, False), (3, 1, True)):
            if not boards[board] >> s & 1:
                continue
            row, col = square_to_rowcol(s)
            for dr in ((1, -1) if king else ((1,) if side == 0 else (-1,))):
                for dc in (1, -1):
                    r, c = row + dr, col + dc
                    if 0 <= r < 8 and 0 <= c < 8 and not occupied[r * 4 + c // 2]:
                        count[side] += 1
    return count[mover] - count[1 - mover]


# ------------------------------------------------------------------ model files

def save(path: Path, model: PatternWeights, metadata: dict | None = None) -> None:
    """Write the weights (float64, men) atomically as ``.npz`` + JSON, with what they were made for."""
    weights = np.asarray(model.weights, np.float64)
    if weights.shape != (FEATURE_COUNT, PHASES):
        raise ValueError(f"pattern weights of shape {weights.shape}; checkers' are ({FEATURE_COUNT}, {PHASES})")
    meta = {**(metadata or {}), "format": FORMAT, "format_version": FORMAT_VERSION, **FEATURES,
            "feature_count": FEATURE_COUNT, "blocks": len(BLOCKS), "states": STATES}
    save_npz(Path(path), {"weights": weights}, meta)


def load(path: Path) -> tuple[PatternWeights, dict]:
    """(weights, metadata) of a file :func:`save` wrote; ModelFileError naming what is wrong otherwise.  The
    metadata and the array's declared shape are checked before it is read; its values once it is."""
    path = Path(path)
    label = f"checkers pattern evaluation file {path}"
    found: dict = {}

    def fits(metadata, declared: dict) -> None:
        try:
            meta = check_format(metadata, str(path), FORMAT, FORMAT_VERSION, "checkers pattern evaluation file")
        except ModelFileError as exc:
            raise ModelFileError(f"{exc}; {ADVICE}") from None
        for key, value in FEATURES.items():
            if meta.get(key) != value:
                raise ModelFileError(f"{path} is a pattern evaluation for {key} {meta.get(key)!r}, not {value!r} "
                                     f"({ADVICE})")
        if "weights" not in declared:
            raise ModelFileError(f"{path}: the pattern evaluation file has no 'weights' array ({ADVICE})")
        shape, dtype = declared["weights"]
        if dtype.kind != "f" or tuple(shape) != (FEATURE_COUNT, PHASES):
            raise ModelFileError(f"{path}: the pattern weights are {dtype} of shape {tuple(shape)}; expected "
                                 f"floating-point numbers of shape ({FEATURE_COUNT}, {PHASES})")
        found.update(meta)
    arrays_read = load_npz(path, label, f" ({ADVICE})", names=("weights", METADATA_KEY), before=fits,
                           max_expansion=MODEL_EXPANSION)
    pop_metadata(arrays_read, label)                     # read and checked by ``fits`` already
    weights = np.asarray(arrays_read["weights"], np.float64)
    if not np.isfinite(weights).all():
        raise ModelFileError(f"{path}: the pattern weights hold values that are not finite numbers")
    if np.abs(weights).max(initial=0.0) > WEIGHT_LIMIT:
        worst = weights.flat[np.abs(weights).argmax()]
        raise ModelFileError(f"{path}: the pattern weights hold {worst:g} men; no training makes a feature worth "
                             f"more than +-{WEIGHT_LIMIT:g}")
    return PatternWeights(weights), found


__all__ = ["PatternWeights", "PATTERN_EVALUATION", "FORMAT", "FORMAT_VERSION", "FEATURES", "BLOCKS", "STATES",
           "FEATURE_COUNT", "PHASES", "MAX_ENTRIES", "WEIGHT_LIMIT", "OUTPUT_SCALE", "TEMPO", "MEN", "KINGS",
           "ANY_KING", "MOBILITY", "KING_SQUARES", "PATTERNS", "feature_names", "initial", "arrays", "evaluate",
           "sparse_features", "batch_values", "block_state", "reference_value", "save", "load"]
