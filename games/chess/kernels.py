"""Compiled chess move generator on 64-bit bitboards: legal moves, make/unmake, Zobrist hashing, perft.

The first building block of a compiled chess engine; python-chess stays the
rules of the Python game (:mod:`.game`), and the tests check this generator
against it move for move.

Squares are 0..63 with a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ..., h8 = 63, and
square ``s`` is bit ``s`` of a bitboard.  A position is one ``np.uint64``
array of :data:`POS_SIZE` entries:

    [0:6]   white pawns, knights, bishops, rooks, queens, king   (piece index = 6 * colour + type)
    [6:12]  black pawns, knights, bishops, rooks, queens, king
    [12]    white occupancy, [13] black occupancy                  (kept in step with the pieces)
    [14]    side to move (0 white, 1 black)
    [15]    castling rights: 1 white O-O, 2 white O-O-O, 4 black O-O, 8 black O-O-O
    [16]    en-passant target square, or 64 (NO_SQUARE)
    [17]    halfmove clock, [18] fullmove number
    [19]    Zobrist hash of everything above except the clocks, updated incrementally

The en-passant square is recorded only when a pawn of the side to move stands
beside the pushed pawn (a pseudo-legal capture exists), so positions that
differ only in a useless en-passant square are equal arrays with equal hashes
(what a transposition table wants).

Every bitboard operation is done in ``np.uint64`` with uint64 operands
(tables, constants, shift counts): numba types uint64-with-int64 arithmetic as
float64.  Squares, piece indices and moves are ordinary int64.

A move is one int64:

    from | to << 6 | promotion << 12 | flag << 15

with ``promotion`` the piece type (1 knight .. 4 queen, 0 none) and ``flag``
0 ordinary, 1 double pawn push, 2 en-passant capture, 3 castling (coded as the
king's move, e1g1, as UCI writes it).

Moves are made and unmade in place (:func:`make_move` / :func:`unmake_move`);
what a move destroys (captured piece, castling rights, en-passant square,
halfmove clock, hash) goes to one row of an ``undo`` array, one row per ply.
Every kernel is compiled with ``cache=True``.
"""
from __future__ import annotations

import chess
import numpy as np
from llvmlite import ir as llvmir
from numba import njit, types
from numba.extending import intrinsic

POS_SIZE = 20
WHITE_OCC, BLACK_OCC, SIDE, CASTLING, EP, HALFMOVE, FULLMOVE, HASH = range(12, POS_SIZE)
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = range(6)
NO_PIECE = 12
NO_SQUARE = 64

ORDINARY, DOUBLE_PUSH, EN_PASSANT, CASTLE = range(4)

UNDO_SIZE = 5
UNDO_CAPTURED, UNDO_CASTLING, UNDO_EP, UNDO_HALFMOVE, UNDO_HASH = range(UNDO_SIZE)

#: Size of a move buffer: no chess position has more than 218 legal moves.
#: :func:`gen_legal` does not check the size of the buffer it fills.
MAX_MOVES = 256

WHITE_OO, WHITE_OOO, BLACK_OO, BLACK_OOO = 1, 2, 4, 8


# ------------------------------------------------------------------ tables

def _bit(s: int) -> int:
    return 1 << s


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < 8 and 0 <= rank < 8


def _leaper_table(steps) -> np.ndarray:
    table = np.zeros(64, dtype=np.uint64)
    for s in range(64):
        b = 0
        for df, dr in steps:
            f, r = s % 8 + df, s // 8 + dr
            if _on_board(f, r):
                b |= _bit(8 * r + f)
        table[s] = b
    return table


# Ray directions as (file step, rank step): the first four go up the square
# numbering (their nearest blocker is the lowest set bit), the last four down.
_DIRECTIONS = [(0, 1), (1, 0), (1, 1), (-1, 1), (0, -1), (-1, 0), (-1, -1), (1, -1)]
_UP_DIRECTIONS = 4


def _ray_tables():
    rays = np.zeros((8, 64), dtype=np.uint64)
    between = np.zeros((64, 64), dtype=np.uint64)
    line = np.zeros((64, 64), dtype=np.uint64)
    for s in range(64):
        for d, (df, dr) in enumerate(_DIRECTIONS):
            f, r = s % 8 + df, s // 8 + dr
            passed = 0
            while _on_board(f, r):
                t = 8 * r + f
                between[s, t] = passed
                passed |= _bit(t)
                f, r = f + df, r + dr
            rays[d, s] = passed
    for s in range(64):
        for d in range(4):
            # Both halves of the line through s in this direction, and s itself.
            full = int(rays[d, s]) | int(rays[d + 4, s]) | _bit(s)
            b = full
            while b:
                t = (b & -b).bit_length() - 1
                b &= b - 1
                if t != s:
                    line[s, t] = full
    return rays, between, line


BIT = np.array([_bit(s) for s in range(64)], dtype=np.uint64)
KNIGHT_ATTACKS = _leaper_table([(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)])
KING_ATTACKS = _leaper_table([(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)])
#: Squares a pawn of colour c on square s attacks.
PAWN_ATTACKS = np.stack([_leaper_table([(-1, 1), (1, 1)]), _leaper_table([(-1, -1), (1, -1)])])
RAYS, BETWEEN, LINE = _ray_tables()
ROOK_RAYS = RAYS[0] | RAYS[1] | RAYS[4] | RAYS[5]
BISHOP_RAYS = RAYS[2] | RAYS[3] | RAYS[6] | RAYS[7]

#: Castling rights that survive a move from or to each square (a king or rook leaving, a rook captured).
CASTLING_KEPT = np.full(64, 15, dtype=np.int64)
CASTLING_KEPT[chess.E1] = 15 & ~(WHITE_OO | WHITE_OOO)
CASTLING_KEPT[chess.H1] = 15 & ~WHITE_OO
CASTLING_KEPT[chess.A1] = 15 & ~WHITE_OOO
CASTLING_KEPT[chess.E8] = 15 & ~(BLACK_OO | BLACK_OOO)
CASTLING_KEPT[chess.H8] = 15 & ~BLACK_OO
CASTLING_KEPT[chess.A8] = 15 & ~BLACK_OOO

#: Squares a pawn of each colour double-pushes from.
PAWN_START = np.array([0xFF << 8, 0xFF << 48], dtype=np.uint64)
#: Squares that must be empty for each castling (O-O, O-O-O for white, then for black).
CASTLING_EMPTY = np.array([_bit(chess.F1) | _bit(chess.G1), _bit(chess.B1) | _bit(chess.C1) | _bit(chess.D1),
                           _bit(chess.F8) | _bit(chess.G8), _bit(chess.B8) | _bit(chess.C8) | _bit(chess.D8)],
                          dtype=np.uint64)

_rng = np.random.default_rng(20240601)
ZOBRIST_PIECE = _rng.integers(0, 2**64 - 1, size=(12, 64), dtype=np.uint64, endpoint=True)
ZOBRIST_CASTLING = _rng.integers(0, 2**64 - 1, size=16, dtype=np.uint64, endpoint=True)
ZOBRIST_EP_FILE = _rng.integers(0, 2**64 - 1, size=8, dtype=np.uint64, endpoint=True)
ZOBRIST_BLACK = _rng.integers(0, 2**64 - 1, dtype=np.uint64, endpoint=True)
del _rng


# ------------------------------------------------------------------ bit scans

def _zero_count(instruction: str):
    """An intrinsic counting the zero bits at one end of a non-zero uint64 with one LLVM instruction."""
    @intrinsic
    def count(typingctx, b):
        if b != types.uint64:
            return None

        def codegen(context, builder, signature, args):
            return getattr(builder, instruction)(args[0], llvmir.Constant(llvmir.IntType(1), 1))
        return types.int64(types.uint64), codegen
    return count


_trailing_zeros = _zero_count("cttz")     # the index of the lowest set bit
_leading_zeros = _zero_count("ctlz")      # the zero bits above the highest set bit


@njit(cache=True, inline="always")
def lowest_square(b):
    """Square of the lowest set bit of a non-zero bitboard."""
    return _trailing_zeros(b)


@njit(cache=True, inline="always")
def _highest_square(b):
    return 63 - _leading_zeros(b)


# ------------------------------------------------------------------ attacks

@njit(cache=True, inline="always")
def _slide(d, s, occ):
    """Squares a slider on ``s`` reaches in direction ``d``: the ray up to and including the first blocker."""
    ray = RAYS[d, s]
    blockers = ray & occ
    if blockers:
        nearest = lowest_square(blockers) if d < _UP_DIRECTIONS else _highest_square(blockers)
        ray ^= RAYS[d, nearest]
    return ray


@njit(cache=True, inline="always")
def rook_attacks(s, occ):
    return _slide(0, s, occ) | _slide(1, s, occ) | _slide(4, s, occ) | _slide(5, s, occ)


@njit(cache=True, inline="always")
def bishop_attacks(s, occ):
    return _slide(2, s, occ) | _slide(3, s, occ) | _slide(6, s, occ) | _slide(7, s, occ)


@njit(cache=True, inline="always")
def _attacked(pos, s, occ, us):
    """Whether the side not ``us`` attacks square ``s`` with the board occupied by ``occ``."""
    o = 6 * (1 - us)
    if KNIGHT_ATTACKS[s] & pos[o + KNIGHT]:
        return True
    if PAWN_ATTACKS[us, s] & pos[o + PAWN]:
        return True
    if KING_ATTACKS[s] & pos[o + KING]:
        return True
    diagonal = pos[o + BISHOP] | pos[o + QUEEN]
    if BISHOP_RAYS[s] & diagonal and bishop_attacks(s, occ) & diagonal:
        return True
    straight = pos[o + ROOK] | pos[o + QUEEN]
    return (ROOK_RAYS[s] & straight) != 0 and (rook_attacks(s, occ) & straight) != 0


@njit(cache=True, inline="always")
def _checkers(pos, s, occ, us):
    """The opponent's pieces that attack square ``s`` (the king's square: the pieces giving check)."""
    o = 6 * (1 - us)
    return ((KNIGHT_ATTACKS[s] & pos[o + KNIGHT]) | (PAWN_ATTACKS[us, s] & pos[o + PAWN])
            | (bishop_attacks(s, occ) & (pos[o + BISHOP] | pos[o + QUEEN]))
            | (rook_attacks(s, occ) & (pos[o + ROOK] | pos[o + QUEEN])))


@njit(cache=True)
def in_check(pos):
    """Whether the side to move is in check."""
    us = np.int64(pos[SIDE])
    occ = pos[WHITE_OCC] | pos[BLACK_OCC]
    return _attacked(pos, lowest_square(pos[6 * us + KING]), occ, us)


# ------------------------------------------------------------------ move generation

@njit(cache=True, inline="always")
def _emit(out, n, frm, targets):
    while targets:
        out[n] = frm | (lowest_square(targets) << 6)
        n += 1
        targets &= targets - np.uint64(1)
    return n


@njit(cache=True, inline="always")
def _emit_pawn(out, n, frm, targets):
    """Pawn moves to ``targets``: four promotions on the last rank, a double push flagged."""
    while targets:
        to = lowest_square(targets)
        targets &= targets - np.uint64(1)
        code = frm | (to << 6)
        if to < 8 or to >= 56:
            out[n] = code | (QUEEN << 12)
            out[n + 1] = code | (ROOK << 12)
            out[n + 2] = code | (BISHOP << 12)
            out[n + 3] = code | (KNIGHT << 12)
            n += 4
        elif to - frm == 16 or frm - to == 16:
            out[n] = code | (DOUBLE_PUSH << 15)
            n += 1
        else:
            out[n] = code
            n += 1
    return n


@njit(cache=True, inline="always")
def _emit_sliders(out, n, pieces, diagonal, occ, allowed, pinned, king):
    """The moves of the sliding ``pieces`` (bishops and queens along diagonals, else rooks and queens along
    lines) to ``allowed`` squares, a pinned piece only along its pin."""
    while pieces:
        frm = lowest_square(pieces)
        pieces &= pieces - np.uint64(1)
        targets = (bishop_attacks(frm, occ) if diagonal else rook_attacks(frm, occ)) & allowed
        if pinned & BIT[frm]:
            targets &= LINE[king, frm]
        n = _emit(out, n, frm, targets)
    return n


@njit(cache=True)
def gen_legal(pos, out):
    """Fill ``out`` (at least MAX_MOVES int64s) with the legal moves of ``pos``; returns their number.

    Legal, not pseudo-legal: a move of a piece pinned to its king stays on the
    pin line, in check only king moves, captures of the checker and blocks
    remain (in double check only king moves), the king never steps onto an
    attacked square (judged with the king itself lifted, so it cannot retreat
    along a checking ray), and castling needs the king's start, path and
    destination unattacked.  En passant, which removes two pieces from one
    rank, is checked by trying it on the occupancy.
    """
    us = np.int64(pos[SIDE])
    b = 6 * us
    o = 6 - b
    own = pos[WHITE_OCC + us]
    opp = pos[BLACK_OCC - us]
    occ = own | opp
    king = lowest_square(pos[b + KING])
    n = 0

    targets = KING_ATTACKS[king] & ~own
    lifted = occ ^ BIT[king]
    while targets:
        to = lowest_square(targets)
        targets &= targets - np.uint64(1)
        if not _attacked(pos, to, lifted, us):
            out[n] = king | (to << 6)
            n += 1

    checkers = _checkers(pos, king, occ, us)
    if checkers & (checkers - np.uint64(1)):
        return n          # double check: only the king moves
    if checkers:
        allowed = BETWEEN[king, lowest_square(checkers)] | checkers
    else:
        allowed = ~own
        rights = np.int64(pos[CASTLING]) >> (2 * us)
        home = 56 * us              # the square of the rank's a-file: a1 or a8
        if rights & 1 and not CASTLING_EMPTY[2 * us] & occ \
                and not _attacked(pos, home + 5, occ, us) and not _attacked(pos, home + 6, occ, us):
            out[n] = (home + 4) | ((home + 6) << 6) | (CASTLE << 15)
            n += 1
        if rights & 2 and not CASTLING_EMPTY[2 * us + 1] & occ \
                and not _attacked(pos, home + 3, occ, us) and not _attacked(pos, home + 2, occ, us):
            out[n] = (home + 4) | ((home + 2) << 6) | (CASTLE << 15)
            n += 1

    # Pieces pinned to the king: one own piece between the king and an enemy slider on its line.
    straight = pos[o + ROOK] | pos[o + QUEEN]
    diagonal = pos[o + BISHOP] | pos[o + QUEEN]
    snipers = (ROOK_RAYS[king] & straight) | (BISHOP_RAYS[king] & diagonal)
    pinned = np.uint64(0)
    while snipers:
        between = BETWEEN[king, lowest_square(snipers)] & occ
        snipers &= snipers - np.uint64(1)
        if between and not between & (between - np.uint64(1)):
            pinned |= between & own

    pieces = pos[b + KNIGHT] & ~pinned
    while pieces:
        frm = lowest_square(pieces)
        pieces &= pieces - np.uint64(1)
        n = _emit(out, n, frm, KNIGHT_ATTACKS[frm] & allowed)

    n = _emit_sliders(out, n, pos[b + BISHOP] | pos[b + QUEEN], True, occ, allowed, pinned, king)
    n = _emit_sliders(out, n, pos[b + ROOK] | pos[b + QUEEN], False, occ, allowed, pinned, king)

    ep = np.int64(pos[EP])
    forward = 8 - 16 * us
    pieces = pos[b + PAWN]
    empty = ~occ
    while pieces:
        frm = lowest_square(pieces)
        pieces &= pieces - np.uint64(1)
        targets = PAWN_ATTACKS[us, frm] & opp
        one = BIT[frm + forward] & empty
        if one:
            targets |= one
            if PAWN_START[us] & BIT[frm]:
                targets |= BIT[frm + 2 * forward] & empty
        targets &= allowed
        if pinned & BIT[frm]:
            targets &= LINE[king, frm]
        n = _emit_pawn(out, n, frm, targets)
        if ep != NO_SQUARE and PAWN_ATTACKS[us, frm] & BIT[ep]:
            # Try it: lift the capturer and the captured pawn, put the capturer on the target square.
            captured = ep - forward
            after = (occ ^ BIT[frm] ^ BIT[captured]) | BIT[ep]
            attackers = ((KNIGHT_ATTACKS[king] & pos[o + KNIGHT])
                         | (PAWN_ATTACKS[us, king] & pos[o + PAWN] & ~BIT[captured])
                         | (bishop_attacks(king, after) & diagonal) | (rook_attacks(king, after) & straight))
            if not attackers:
                out[n] = frm | (ep << 6) | (EN_PASSANT << 15)
                n += 1
    return n


# ------------------------------------------------------------------ make / unmake

@njit(cache=True, inline="always")
def _piece_on(pos, first, bit):
    """Index of the piece of the colour whose pieces start at index ``first`` standing on ``bit``."""
    for p in range(first, first + 6):
        if pos[p] & bit:
            return p
    return NO_PIECE


@njit(cache=True, inline="always")
def _castling_rook(to):
    """(from, to) of the rook in the castling whose king lands on ``to``."""
    if (to & 7) == 6:
        return to + 1, to - 1
    return to - 2, to + 1


@njit(cache=True, inline="always")
def _shift_castling_rook(pos, us, to):
    """Move the rook of ``us``'s castling whose king lands on ``to`` (or move it back: the same xor); returns
    the rook's (from, to) squares."""
    rook_from, rook_to = _castling_rook(to)
    rook_bits = BIT[rook_from] | BIT[rook_to]
    pos[6 * us + ROOK] ^= rook_bits
    pos[WHITE_OCC + us] ^= rook_bits
    return rook_from, rook_to


@njit(cache=True, inline="always")
def decode(move):
    """(from square, to square, promotion piece type or 0, flag) of a move code."""
    return move & 63, (move >> 6) & 63, (move >> 12) & 7, move >> 15


@njit(cache=True)
def make_move(pos, move, undo, ply):
    """Play the legal ``move`` in place, saving what it destroys to ``undo[ply]`` for :func:`unmake_move`.

    The hash is updated by xoring out and in exactly the keys that change:
    the moving piece, a captured piece, a castling rook, the castling rights,
    the en-passant file, and the side to move.
    """
    us = np.int64(pos[SIDE])
    b = 6 * us
    o = 6 - b
    frm, to, promotion, flag = decode(move)
    from_bit = BIT[frm]
    to_bit = BIT[to]
    h = pos[HASH]
    old_ep = np.int64(pos[EP])
    old_rights = np.int64(pos[CASTLING])
    undo[ply, UNDO_CASTLING] = old_rights
    undo[ply, UNDO_EP] = old_ep
    undo[ply, UNDO_HALFMOVE] = pos[HALFMOVE]
    undo[ply, UNDO_HASH] = h

    captured = NO_PIECE
    if flag == EN_PASSANT:
        captured = o + PAWN
        captured_square = to - 8 + 16 * us
        pos[captured] ^= BIT[captured_square]
        pos[BLACK_OCC - us] ^= BIT[captured_square]
        h ^= ZOBRIST_PIECE[captured, captured_square]
    elif pos[BLACK_OCC - us] & to_bit:
        captured = _piece_on(pos, o, to_bit)
        pos[captured] ^= to_bit
        pos[BLACK_OCC - us] ^= to_bit
        h ^= ZOBRIST_PIECE[captured, to]
    undo[ply, UNDO_CAPTURED] = captured

    moved = _piece_on(pos, b, from_bit)
    pos[moved] ^= from_bit
    h ^= ZOBRIST_PIECE[moved, frm]
    landed = b + promotion if promotion else moved
    pos[landed] |= to_bit
    h ^= ZOBRIST_PIECE[landed, to]
    pos[WHITE_OCC + us] ^= from_bit | to_bit
    if flag == CASTLE:
        rook_from, rook_to = _shift_castling_rook(pos, us, to)
        h ^= ZOBRIST_PIECE[b + ROOK, rook_from] ^ ZOBRIST_PIECE[b + ROOK, rook_to]

    rights = old_rights & CASTLING_KEPT[frm] & CASTLING_KEPT[to]
    pos[CASTLING] = rights
    h ^= ZOBRIST_CASTLING[old_rights] ^ ZOBRIST_CASTLING[rights]
    if old_ep != NO_SQUARE:
        h ^= ZOBRIST_EP_FILE[old_ep & 7]
    ep = NO_SQUARE
    if flag == DOUBLE_PUSH:
        passed = (frm + to) >> 1
        if PAWN_ATTACKS[us, passed] & pos[o + PAWN]:
            ep = passed
            h ^= ZOBRIST_EP_FILE[passed & 7]
    pos[EP] = ep

    if moved == b + PAWN or captured != NO_PIECE:
        pos[HALFMOVE] = 0
    else:
        pos[HALFMOVE] += np.uint64(1)
    pos[FULLMOVE] += np.uint64(us)
    pos[SIDE] = 1 - us
    pos[HASH] = h ^ ZOBRIST_BLACK


@njit(cache=True)
def unmake_move(pos, move, undo, ply):
    """Take back ``move``, the last move made with ``make_move(pos, move, undo, ply)``."""
    us = 1 - np.int64(pos[SIDE])
    b = 6 * us
    frm, to, promotion, flag = decode(move)
    from_bit = BIT[frm]
    to_bit = BIT[to]

    if promotion:
        pos[b + promotion] ^= to_bit
        pos[b + PAWN] ^= from_bit
    else:
        pos[_piece_on(pos, b, to_bit)] ^= from_bit | to_bit
    pos[WHITE_OCC + us] ^= from_bit | to_bit
    if flag == CASTLE:
        _shift_castling_rook(pos, us, to)

    captured = np.int64(undo[ply, UNDO_CAPTURED])
    if captured != NO_PIECE:
        captured_bit = BIT[to - 8 + 16 * us] if flag == EN_PASSANT else to_bit
        pos[captured] |= captured_bit
        pos[BLACK_OCC - us] |= captured_bit

    pos[CASTLING] = undo[ply, UNDO_CASTLING]
    pos[EP] = undo[ply, UNDO_EP]
    pos[HALFMOVE] = undo[ply, UNDO_HALFMOVE]
    pos[HASH] = undo[ply, UNDO_HASH]
    pos[FULLMOVE] -= np.uint64(us)
    pos[SIDE] = us


@njit(cache=True)
def hash_position(pos):
    """The Zobrist hash of ``pos`` computed from scratch (what make_move keeps incrementally)."""
    h = ZOBRIST_CASTLING[np.int64(pos[CASTLING])]
    for p in range(12):
        pieces = pos[p]
        while pieces:
            h ^= ZOBRIST_PIECE[p, lowest_square(pieces)]
            pieces &= pieces - np.uint64(1)
    ep = np.int64(pos[EP])
    if ep != NO_SQUARE:
        h ^= ZOBRIST_EP_FILE[ep & 7]
    if pos[SIDE]:
        h ^= ZOBRIST_BLACK
    return h


# ------------------------------------------------------------------ perft

@njit(cache=True)
def perft(pos, depth):
    """Leaves of the legal-move tree ``depth`` plies deep, counted in bulk at the last ply.

    The last ply is not played: the number of legal moves of each position one
    ply above is added instead.  Iterative with one move list and one undo row
    per ply (numba's on-disk cache mishandles recursive functions); ``pos`` is
    played on in place and is as it was on return.
    """
    if depth <= 0:
        return 1
    moves = np.empty((depth, MAX_MOVES), dtype=np.int64)
    if depth == 1:
        return gen_legal(pos, moves[0])
    undo = np.empty((depth, UNDO_SIZE), dtype=np.uint64)
    count = np.zeros(depth, dtype=np.int64)
    index = np.zeros(depth, dtype=np.int64)
    count[0] = gen_legal(pos, moves[0])
    level = 0
    total = 0
    while True:
        i = index[level]
        if i == count[level]:
            if level == 0:
                return total
            level -= 1
            unmake_move(pos, moves[level, index[level] - 1], undo, level)
            continue
        index[level] = i + 1
        move = moves[level, i]
        make_move(pos, move, undo, level)
        if level == depth - 2:
            total += gen_legal(pos, moves[level + 1])
            unmake_move(pos, move, undo, level)
        else:
            level += 1
            count[level] = gen_legal(pos, moves[level])
            index[level] = 0


# ------------------------------------------------------------------ Python side

def position_from_board(board: chess.Board) -> np.ndarray:
    """The position array of a standard-chess python-chess board (its move stack is not kept)."""
    pos = np.zeros(POS_SIZE, dtype=np.uint64)
    for colour_index, colour in enumerate((chess.WHITE, chess.BLACK)):
        for piece_type in range(6):
            pos[6 * colour_index + piece_type] = int(board.pieces_mask(piece_type + 1, colour))
        pos[WHITE_OCC + colour_index] = int(board.occupied_co[colour])
    us = 0 if board.turn == chess.WHITE else 1
    pos[SIDE] = us
    pos[CASTLING] = (WHITE_OO * board.has_kingside_castling_rights(chess.WHITE)
                     | WHITE_OOO * board.has_queenside_castling_rights(chess.WHITE)
                     | BLACK_OO * board.has_kingside_castling_rights(chess.BLACK)
                     | BLACK_OOO * board.has_queenside_castling_rights(chess.BLACK))
    ep = board.ep_square
    if ep is not None and int(PAWN_ATTACKS[1 - us, ep]) & int(pos[6 * us + PAWN]):
        pos[EP] = ep
    else:
        pos[EP] = NO_SQUARE
    pos[HALFMOVE] = board.halfmove_clock
    pos[FULLMOVE] = board.fullmove_number
    pos[HASH] = hash_position(pos)
    return pos


def position_from_fen(fen: str) -> np.ndarray:
    """The position array of a FEN (parsed and validated by python-chess)."""
    return position_from_board(chess.Board(fen))


def move_to_uci(code: int) -> str:
    """A move code in UCI notation (castling as the king's move, e1g1)."""
    code = int(code)
    uci = chess.SQUARE_NAMES[code & 63] + chess.SQUARE_NAMES[(code >> 6) & 63]
    promotion = (code >> 12) & 7
    return uci + " nbrq"[promotion] if promotion else uci


def uci_moves(pos: np.ndarray) -> list[str]:
    """The legal moves of ``pos`` in UCI notation, in generation order."""
    out = np.empty(MAX_MOVES, dtype=np.int64)
    return [move_to_uci(code) for code in out[:gen_legal(pos, out)]]
