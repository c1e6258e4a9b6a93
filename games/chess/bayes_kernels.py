"""Compiled chess move features for the Bayesian predictor: what a move does, in a few ids.

python-chess gives the legal moves (it is right and fast enough once per
position); everything per candidate move runs here, on bitboards, for a
whole chunk of positions in one call.  A position is 12 bitboards
(white pawn..king, black pawn..king, python-chess's square numbering), the
side to move, the en-passant square and the square the opponent's last
move went to.

For each candidate the kernel makes the move on a copy of the bitboards and
answers, from the mover's frame (Black mirrored as in ``chess_keys``):

* the hybrid key (from x to x piece x move type) and the move type;
* where the piece lands: attacked by the opponent, defended by the mover
  (after the move, so x-rays through the vacated square count);
* where it leaves: was it attacked, by a cheaper piece, was it defended;
* what it captures, and whether the capture square is then attacked/defended;
* whether it gives check, whether it takes back on the square the
  opponent just moved to;
* the board after the move as the mover sees it: pieces on squares and,
  for each piece the opponent now attacks, its kind and whether it is
  defended (hanging pieces), and whether the opponent is in check.

The ids of each group are laid out by :data:`LAYOUT` (name -> (offset,
size)); :func:`describe` turns an id back into words.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .bayes_keys import HYBRID_SPACE, MOVE_TYPES, N_TYPES, PIECES

# --------------------------------------------------------------------------- id layout
_GROUPS = (
    ("hybrid", HYBRID_SPACE),          # from x to x piece x move type
    ("kind", 6 * N_TYPES * 4),         # piece x move type x (landing attacked, defended): square-free
    ("landing", 6 * 2 * 2 * 2),        # piece x attacked x defended x is a capture
    ("leaving", 6 * 2 * 2),            # piece x defended x attacked by a cheaper piece (only when attacked)
    ("capture", 6 * 6 * 2 * 2),        # piece x victim x landing attacked x defended
    ("check", 6 * 2 * 2),              # piece x is a capture x landing attacked
    ("recapture", 6),                  # piece takes on the square the opponent's last move went to
    ("pp", 2 * 6 * 64),                # after the move: owner (mover, opponent) x piece x square
    ("hanging", 2 * 6 * 2),            # after the move: owner x piece x defended, for each attacked piece
    ("in-check", 1),                   # after the move: the opponent is in check
)
LAYOUT: dict[str, tuple[int, int]] = {}
_offset = 0
for _name, _size in _GROUPS:
    LAYOUT[_name] = (_offset, _size)
    _offset += _size
SPACE = _offset

#: Feature groups that describe the move itself, and those that describe the board after it.
MOVE_GROUPS = ("hybrid", "kind", "landing", "leaving", "capture", "check", "recapture")
BOARD_GROUPS = ("pp", "hanging", "in-check")

_OFF = np.array([LAYOUT[name][0] for name, _ in _GROUPS], dtype=np.int64)
_G_HYBRID, _G_KIND, _G_LANDING, _G_LEAVING, _G_CAPTURE, _G_CHECK, _G_RECAPTURE, _G_PP, _G_HANGING, _G_INCHECK = \
    range(len(_GROUPS))

#: Piece values for "attacked by a cheaper piece" (king counted as the dearest).
_VALUE = np.array([1, 3, 3, 5, 9, 100], dtype=np.int64)
NO_SQUARE = -1
#: Most ids one candidate can get: 7 for the move (hybrid, kind, landing, leaving, capture, check,
#: recapture), and 32 pieces, 32 attacked pieces and a check for the board after it.
MOVE_IDS_MAX = 7
BOARD_IDS_MAX = 32 + 32 + 1
MAX_IDS = MOVE_IDS_MAX + BOARD_IDS_MAX

# --------------------------------------------------------------------------- attack tables


def _leaper_table(steps) -> np.ndarray:
    table = np.zeros(64, dtype=np.uint64)
    for sq in range(64):
        r, f = divmod(sq, 8)
        bits = 0
        for dr, df in steps:
            rr, ff = r + dr, f + df
            if 0 <= rr < 8 and 0 <= ff < 8:
                bits |= 1 << (rr * 8 + ff)
        table[sq] = np.uint64(bits)
    return table


_KNIGHT = _leaper_table([(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)])
_KING = _leaper_table([(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)])
# _PAWN[c][sq]: the squares a pawn of colour c (0 white, 1 black) on sq attacks
_PAWN = np.stack([_leaper_table([(1, 1), (1, -1)]), _leaper_table([(-1, 1), (-1, -1)])])
# RAYS[d][sq]: the squares from sq (excluded) to the board's edge in direction d.  Directions 0-3 go
# up the square numbers (north, north-east, east, north-west), 4-7 down (south, south-west, west,
# south-east); the first blocker of an upward ray is its lowest set bit, of a downward one its highest.
_DIRECTIONS = [(1, 0), (1, 1), (0, 1), (1, -1), (-1, 0), (-1, -1), (0, -1), (-1, 1)]
_RAYS = np.zeros((8, 64), dtype=np.uint64)
for _d, (_dr, _df) in enumerate(_DIRECTIONS):
    for _sq in range(64):
        _r, _f, _bits = _sq // 8 + _dr, _sq % 8 + _df, 0
        while 0 <= _r < 8 and 0 <= _f < 8:
            _bits |= 1 << (_r * 8 + _f)
            _r, _f = _r + _dr, _f + _df
        _RAYS[_d, _sq] = np.uint64(_bits)
_ROOK_DIRS = np.array([0, 2, 4, 6], dtype=np.int64)
_BISHOP_DIRS = np.array([1, 3, 5, 7], dtype=np.int64)

# Bit scans by de Bruijn multiplication (numba has no count-trailing-zeros intrinsic to call).
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN_INDEX[((1 << _i) * 0x03F79D71B4CB0A89 & 0xFFFFFFFFFFFFFFFF) >> 58] = _i

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@njit(cache=True, inline="always")
def _bit(sq):
    return _ONE << np.uint64(sq)


@njit(cache=True, inline="always")
def _lowest(x):
    """Index of the lowest set bit of a non-zero uint64."""
    return _DEBRUIJN_INDEX[((x & (~x + _ONE)) * _DEBRUIJN) >> np.uint64(58)]


@njit(cache=True, inline="always")
def _highest(x):
    """Index of the highest set bit of a non-zero uint64."""
    x |= x >> np.uint64(1)
    x |= x >> np.uint64(2)
    x |= x >> np.uint64(4)
    x |= x >> np.uint64(8)
    x |= x >> np.uint64(16)
    x |= x >> np.uint64(32)
    return _lowest((x >> _ONE) + _ONE)


@njit(cache=True)
def _slide(sq, occ, dirs):
    out = _ZERO
    for i in range(4):
        d = dirs[i]
        ray = _RAYS[d, sq]
        blockers = ray & occ
        if blockers:
            stop = _lowest(blockers) if d < 4 else _highest(blockers)
            ray ^= _RAYS[d, stop]
        out |= ray
    return out


@njit(cache=True)
def _attacks(piece, color, sq, occ):
    """Squares attacked by a piece (0 pawn .. 5 king) of ``color`` on ``sq``."""
    if piece == 0:
        return _PAWN[color, sq]
    if piece == 1:
        return _KNIGHT[sq]
    if piece == 2:
        return _slide(sq, occ, _BISHOP_DIRS)
    if piece == 3:
        return _slide(sq, occ, _ROOK_DIRS)
    if piece == 4:
        return _slide(sq, occ, _BISHOP_DIRS) | _slide(sq, occ, _ROOK_DIRS)
    return _KING[sq]


@njit(cache=True)
def _attackers(bb, by, sq, occ):
    """Bitboard of ``by``'s pieces attacking ``sq`` (``bb[c, piece]``, occupancy ``occ``)."""
    out = _PAWN[1 - by, sq] & bb[by, 0]
    out |= _KNIGHT[sq] & bb[by, 1]
    out |= _KING[sq] & bb[by, 5]
    diag = bb[by, 2] | bb[by, 4]
    if diag:
        out |= _slide(sq, occ, _BISHOP_DIRS) & diag
    line = bb[by, 3] | bb[by, 4]
    if line:
        out |= _slide(sq, occ, _ROOK_DIRS) & line
    return out


@njit(cache=True)
def _cheapest(bb, by, mask):
    """Index of the cheapest piece kind of ``by`` among the squares of ``mask`` (6 when none)."""
    for piece in range(6):
        if bb[by, piece] & mask:
            return piece
    return 6


@njit(cache=True)
def _piece_on(bb, color, sq):
    b = _bit(sq)
    for piece in range(6):
        if bb[color, piece] & b:
            return piece
    return -1


@njit(cache=True)
def _attack_map(bb, color, occ):
    out = _ZERO
    for piece in range(6):
        x = bb[color, piece]
        while x:
            sq = _lowest(x)
            out |= _attacks(piece, color, sq, occ)
            x &= x - _ONE
    return out


# --------------------------------------------------------------------------- the kernel
@njit(cache=True)
def _move_type(piece, frm, to, promo, capture, en_passant):
    if promo > 0:
        return (10 if capture else 6) + promo - 2      # python-chess: knight 2 .. queen 5
    if piece == 5 and abs(to - frm) == 2:
        return 2 if to > frm else 3
    if en_passant:
        return 5
    if capture:
        return 4
    if piece == 0 and abs(to - frm) == 16:
        return 1
    return 0


@njit(cache=True)
def encode_positions(boards, turn, ep, last_to, cand_start, cand_from, cand_to, cand_promo,
                     want_move, want_board, feat_start, feat_id, move_type, key):
    """Features of every candidate of every position (see the module docstring).

    ``boards`` (P, 12) uint64; ``turn`` (P) 0 white 1 black; ``ep``, ``last_to`` (P) squares or -1;
    candidates of position p are ``cand_start[p]:cand_start[p+1]`` of ``cand_from/to/promo``
    (python-chess's promotion piece type, 0 for none).  Writes ``feat_start`` (C+1), ``feat_id``
    (room for MAX_IDS ids per candidate), ``move_type`` (C) and ``key`` (C), the ``hybrid-tactical``
    move key (:func:`tactical_key`); returns the number of ids written.
    """
    n = 0
    bb = np.empty((2, 6), dtype=np.uint64)
    after = np.empty((2, 6), dtype=np.uint64)
    feat_start[0] = 0
    for p in range(boards.shape[0]):
        us = turn[p]
        them = 1 - us
        flip = 56 if us == 1 else 0
        for c in range(2):
            for k in range(6):
                bb[c, k] = boards[p, c * 6 + k]
        occ_us = _ZERO
        occ_them = _ZERO
        for k in range(6):
            occ_us |= bb[us, k]
            occ_them |= bb[them, k]
        occ = occ_us | occ_them
        for c in range(cand_start[p], cand_start[p + 1]):
            frm, to, promo = cand_from[c], cand_to[c], cand_promo[c]
            piece = _piece_on(bb, us, frm)
            victim = _piece_on(bb, them, to)
            en_passant = piece == 0 and to == ep[p] and victim < 0
            if en_passant:
                victim = 0
            capture = victim >= 0
            mtype = _move_type(piece, frm, to, promo, capture, en_passant)
            move_type[c] = mtype
            # the move, on a copy
            for cc in range(2):
                for k in range(6):
                    after[cc, k] = bb[cc, k]
            after[us, piece] &= ~_bit(frm)
            if en_passant:
                after[them, 0] &= ~_bit(to - 8 if us == 0 else to + 8)
            elif capture:
                after[them, victim] &= ~_bit(to)
            landed = promo - 1 if promo > 0 else piece
            after[us, landed] |= _bit(to)
            if mtype == 2:
                after[us, 3] = (after[us, 3] & ~_bit(to + 1)) | _bit(to - 1)
            elif mtype == 3:
                after[us, 3] = (after[us, 3] & ~_bit(to - 2)) | _bit(to + 1)
            occ_after = _ZERO
            for cc in range(2):
                for k in range(6):
                    occ_after |= after[cc, k]
            attacked = _attackers(after, them, to, occ_after) != _ZERO
            defended = _attackers(after, us, to, occ_after) != _ZERO
            king = after[them, 5]
            check = king != _ZERO and _attackers(after, us, _lowest(king), occ_after) != _ZERO
            f, t = frm ^ flip, to ^ flip
            a, d, cap = int(attacked), int(defended), int(capture)
            hybrid = ((mtype * 6 + piece) * 64 + f) * 64 + t
            key[c] = ((hybrid * 2 + a) * 2 + d) * 2 + int(check)
            if want_move:
                feat_id[n] = _OFF[_G_HYBRID] + hybrid
                feat_id[n + 1] = _OFF[_G_KIND] + ((mtype * 6 + piece) * 2 + a) * 2 + d
                feat_id[n + 2] = _OFF[_G_LANDING] + ((piece * 2 + a) * 2 + d) * 2 + cap
                n += 3
                threats = _attackers(bb, them, frm, occ)
                if threats:
                    cheaper = int(_VALUE[_cheapest(bb, them, threats)] < _VALUE[piece])
                    guarded = int(_attackers(bb, us, frm, occ) != _ZERO)
                    feat_id[n] = _OFF[_G_LEAVING] + (piece * 2 + guarded) * 2 + cheaper
                    n += 1
                if capture:
                    feat_id[n] = _OFF[_G_CAPTURE] + ((piece * 6 + victim) * 2 + a) * 2 + d
                    n += 1
                if check:
                    feat_id[n] = _OFF[_G_CHECK] + (piece * 2 + cap) * 2 + a
                    n += 1
                if to == last_to[p]:
                    feat_id[n] = _OFF[_G_RECAPTURE] + piece
                    n += 1
            if want_board:
                map_us = _attack_map(after, us, occ_after)
                map_them = _attack_map(after, them, occ_after)
                for cc in range(2):
                    owner = 0 if cc == us else 1
                    hits = map_us if cc == them else map_them
                    guards = map_us if cc == us else map_them
                    for k in range(6):
                        x = after[cc, k]
                        while x:
                            sq = _lowest(x)
                            b = _bit(sq)
                            feat_id[n] = _OFF[_G_PP] + (owner * 6 + k) * 64 + (sq ^ flip)
                            n += 1
                            if hits & b:
                                feat_id[n] = _OFF[_G_HANGING] + (owner * 6 + k) * 2 + int((guards & b) != _ZERO)
                                n += 1
                            x &= x - _ONE
                if check:
                    feat_id[n] = _OFF[_G_INCHECK]
                    n += 1
            feat_start[c + 1] = n
    return n


# --------------------------------------------------------------------------- words
def digits(index: int, *radices: int) -> tuple[int, ...]:
    """The mixed-radix digits of ``index``, most significant first: ``digits(i, 6, 2, 2)`` undoes
    ``(a * 2 + b) * 2 + c`` for ``a < 6``, the way every group of :data:`LAYOUT` packs its parts."""
    out = []
    for radix in reversed(radices):
        index, digit = divmod(index, radix)
        out.append(digit)
    return tuple(reversed(out))


def _safety(attacked: int, defended: int) -> str:
    return f"{'attacked' if attacked else 'unattacked'}, {'defended' if defended else 'undefended'}"


def describe(feature: int) -> str:
    """Words for a feature id of :data:`LAYOUT`."""
    feature = int(feature)
    for name, (offset, size) in LAYOUT.items():
        if offset <= feature < offset + size:
            i = feature - offset
            break
    else:
        return f"feature {feature} (outside the layout)"
    sq = lambda s: "abcdefgh"[s % 8] + str(s // 8 + 1)   # noqa: E731
    owner = ("own", "opponent")
    if name == "hybrid":
        mtype, piece, f, t = digits(i, N_TYPES, 6, 64, 64)
        return f"{PIECES[piece]} {sq(f)}-{sq(t)} ({MOVE_TYPES[mtype]})"
    if name == "kind":
        mtype, piece, a, d = digits(i, N_TYPES, 6, 2, 2)
        return f"{PIECES[piece]} {MOVE_TYPES[mtype]}, landing {_safety(a, d)}"
    if name == "landing":
        piece, a, d, cap = digits(i, 6, 2, 2, 2)
        return f"{PIECES[piece]} lands {_safety(a, d)}{', capturing' if cap else ''}"
    if name == "leaving":
        piece, guarded, cheaper = digits(i, 6, 2, 2)
        return (f"{PIECES[piece]} leaves a square attacked{' by a cheaper piece' if cheaper else ''}, "
                f"{'defended' if guarded else 'undefended'} there")
    if name == "capture":
        piece, victim, a, d = digits(i, 6, 6, 2, 2)
        return f"{PIECES[piece]} takes {PIECES[victim]}, then {_safety(a, d)}"
    if name == "check":
        piece, cap, a = digits(i, 6, 2, 2)
        return f"{PIECES[piece]} gives check{' with a capture' if cap else ''}{', landing attacked' if a else ''}"
    if name == "recapture":
        return f"{PIECES[i]} takes back on the square the opponent just moved to"
    if name == "pp":
        who, piece, s = digits(i, 2, 6, 64)
        return f"{owner[who]} {PIECES[piece]} on {sq(s)} after the move"
    if name == "hanging":
        who, piece, d = digits(i, 2, 6, 2)
        return f"{owner[who]} {PIECES[piece]} attacked, {'defended' if d else 'undefended'}"
    return "the opponent is in check after the move"


# --------------------------------------------------------------------------- from python-chess
#: The Urgency key set built on the kernel: hybrid key x landing attacked x defended x gives check.
TACTICAL_KEY_SPACE = HYBRID_SPACE * 8


class Batch:
    """Positions gathered from python-chess boards, turned into candidate features by one kernel call.

    ``add(board, moves)`` takes a position and its candidates (the expert's
    move first when training); ``features(want_move, want_board)`` runs the
    kernel over everything added.  The Python side per position is the
    bitboards and three list comprehensions; the per-move work is compiled.
    """

    def __init__(self) -> None:
        self.boards: list[int] = []
        self.turn: list[int] = []
        self.ep: list[int] = []
        self.last_to: list[int] = []
        self.cand_start: list[int] = [0]
        self.cand_from: list[int] = []
        self.cand_to: list[int] = []
        self.cand_promo: list[int] = []

    def __len__(self) -> int:
        return len(self.turn)

    def add(self, board, moves) -> None:
        black, white = board.occupied_co          # indexed by colour: False (black) first
        pawns, knights, bishops, rooks, queens, kings = (board.pawns, board.knights, board.bishops, board.rooks,
                                                          board.queens, board.kings)
        self.boards += (pawns & white, knights & white, bishops & white, rooks & white, queens & white,
                        kings & white, pawns & black, knights & black, bishops & black, rooks & black,
                        queens & black, kings & black)
        self.turn.append(0 if board.turn else 1)
        self.ep.append(NO_SQUARE if board.ep_square is None else board.ep_square)
        self.last_to.append(board.move_stack[-1].to_square if board.move_stack else NO_SQUARE)
        self.cand_from += [m.from_square for m in moves]
        self.cand_to += [m.to_square for m in moves]
        self.cand_promo += [m.promotion or 0 for m in moves]
        self.cand_start.append(len(self.cand_from))

    def features(self, want_move: bool, want_board: bool):
        """(feat_start, feat_id, move_type, key) of every candidate added, in order."""
        n_cand = len(self.cand_from)
        i64 = np.int64
        feat_start = np.zeros(n_cand + 1, dtype=i64)
        feat_id = np.empty(n_cand * (MOVE_IDS_MAX * want_move + BOARD_IDS_MAX * want_board), dtype=i64)
        move_type = np.empty(n_cand, dtype=np.int8)
        key = np.empty(n_cand, dtype=i64)
        boards = np.array(self.boards, dtype=np.uint64).reshape(-1, 12)
        used = encode_positions(boards, np.array(self.turn, i64), np.array(self.ep, i64),
                                np.array(self.last_to, i64), np.array(self.cand_start, i64),
                                np.array(self.cand_from, i64), np.array(self.cand_to, i64),
                                np.array(self.cand_promo, i64), want_move, want_board, feat_start, feat_id,
                                move_type, key)
        return feat_start, feat_id[:used].copy(), move_type, key
