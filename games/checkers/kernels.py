"""Compiled English-checkers engine: bitboards, move generation, apply, hashing, perft.

This is the contract of docs/kernels.md.  A position is an int64 array

    [black_men, black_kings, white_men, white_kings, side_to_move, no_progress_plies, ply]

with bitboards in the low 32 bits (bit s = square s + 1).  A move code packs

    from | to << 5 | captured_bitboard << 10        (squares 0-based)

which is exactly a move's identity under the rules: capture paths with the
same start, end and captured set are one move, so duplicates merge by
comparing codes.  A king's capture may end on its own start square (from == to).

Every function is compiled with ``cache=True``, so the compile cost (about ten
seconds) is paid once per machine, not once per process.  The outcome and
playout kernels depend on the game's draw parameters; :func:`make_kernels`
builds them as closures over those numbers (numba caches closures over plain
integers, keyed by their values).
"""
from __future__ import annotations

import functools
from types import SimpleNamespace

import numpy as np
from numba import njit

from plyground.capabilities import move_is_code

from .bits import down_left, down_right, lowest_square, quiet_moves, up_left, up_right
from .board import FULL, JUMP, KING_ROW, STEP, ZOBRIST, ZOBRIST_SIDE

POS_SIZE = 7
BLACK_MEN, BLACK_KINGS, WHITE_MEN, WHITE_KINGS, SIDE, NO_PROGRESS, PLY = range(POS_SIZE)

#: Size of a move buffer.  Quiet moves are at most 12 pieces x 4 = 48; captures
#: from real play stay far below this (see docs/checkers.md).  The generator
#: never writes past the buffer it is given.
MAX_MOVES = 256

_KING_ROW_BLACK, _KING_ROW_WHITE = KING_ROW


# ----------------------------------------------------------- the side to move

@njit(cache=True, inline="always")
def _sides(pos):
    """(own men, own kings, opponent pieces, empty squares) for the side to move."""
    if pos[SIDE] == 0:
        men, kings, opp = pos[BLACK_MEN], pos[BLACK_KINGS], pos[WHITE_MEN] | pos[WHITE_KINGS]
    else:
        men, kings, opp = pos[WHITE_MEN], pos[WHITE_KINGS], pos[BLACK_MEN] | pos[BLACK_KINGS]
    return men, kings, opp, ~(men | kings | opp) & FULL


@njit(cache=True, inline="always")
def _jumpers(men, kings, opp, empty, side):
    """Pieces of the side to move that have at least one capture.

    A piece can jump down-left when its down-left neighbour is an opponent
    and the square beyond is empty: shift the empty squares up-right (onto
    the would-be victims), keep opponents, shift up-right again (onto the jumpers).
    """
    down = (men if side == 0 else 0) | kings
    up = (men if side == 1 else 0) | kings
    j = down & (up_right(up_right(empty) & opp) | up_left(up_left(empty) & opp))
    j |= up & (down_right(down_right(empty) & opp) | down_left(down_left(empty) & opp))
    return j


# ------------------------------------------------------------ move generation

@njit(cache=True, inline="always")
def _record(out, n, code, first, check_duplicates):
    # Only a king can reach the same end with the same captured set by two
    # paths (a man's rows strictly advance, which pins its path), so only a
    # king's moves need the duplicate scan.
    if check_duplicates:
        for i in range(first, n):
            if out[i] == code:
                return n
    if n < out.shape[0]:
        out[n] = code
        n += 1
    return n


@njit(cache=True)
def _gen_captures(jumpers, men, kings, opp, empty, side, out, merge, stack):
    """Every capture sequence of every jumper, by an explicit depth-first search.

    Captured pieces stay on the board until the move ends (they cannot be
    jumped twice).  A landing square always has the parity class of the start
    square and a captured piece the other one, so whether captured pieces are
    lifted at once or at the end of the move never changes which jumps exist.
    (Explicit stack, not recursion: numba's on-disk cache mishandles
    recursive functions.)
    """
    n = 0
    king_row = _KING_ROW_BLACK if side == 0 else _KING_ROW_WHITE
    # ``stack`` has one row per jump depth (a sequence takes at most 12 pieces):
    # square, captured so far, next direction to try, whether any jump continued.
    while jumpers:
        s = lowest_square(jumpers)
        jumpers &= jumpers - 1
        bit = 1 << s
        is_king = (kings & bit) != 0
        if is_king:
            dlo, dhi = 0, 3
        elif side == 0:
            dlo, dhi = 2, 3
        else:
            dlo, dhi = 0, 1
        # The jumping piece has left its square, which a king may cross or end on.
        free = empty | bit
        first = n
        depth = 0
        stack[0, 0] = s
        stack[0, 1] = 0
        stack[0, 2] = dlo
        stack[0, 3] = 0
        while depth >= 0:
            d = stack[depth, 2]
            if d > dhi:
                if stack[depth, 3] == 0 and depth > 0:
                    code = s | (stack[depth, 0] << 5) | (stack[depth, 1] << 10)
                    n = _record(out, n, code, first, merge and is_king)
                depth -= 1
                continue
            stack[depth, 2] = d + 1
            cur = stack[depth, 0]
            captured = stack[depth, 1]
            over = STEP[d, cur]
            land = JUMP[d, cur]
            if land < 0 or ((opp >> over) & 1) == 0 or ((captured >> over) & 1) != 0 or ((free >> land) & 1) == 0:
                continue
            stack[depth, 3] = 1
            taken = captured | (1 << over)
            if not is_king and ((king_row >> land) & 1) != 0:
                # A man reaching the king row is crowned and the move ends there.
                n = _record(out, n, s | (land << 5) | (taken << 10), first, False)
                continue
            depth += 1
            stack[depth, 0] = land
            stack[depth, 1] = taken
            stack[depth, 2] = dlo
            stack[depth, 3] = 0
    return n


@njit(cache=True)
def _gen_quiet(men, kings, empty, side, out):
    n = 0
    pieces = men | kings
    while pieces:
        s = lowest_square(pieces)
        pieces &= pieces - 1
        if (kings >> s) & 1:
            dlo, dhi = 0, 3
        elif side == 0:
            dlo, dhi = 2, 3
        else:
            dlo, dhi = 0, 1
        # Directions in this order list each piece's targets in ascending square order.
        for d in range(dlo, dhi + 1):
            t = STEP[d, s]
            if t >= 0 and ((empty >> t) & 1) != 0 and n < out.shape[0]:
                out[n] = s | (t << 5)
                n += 1
    return n


@njit(cache=True)
def generate(pos, out, merge, stack):
    """:func:`gen_moves` with a preallocated capture stack (int64, shape (16, 4)) and a switch to list
    every capture path separately (``merge=False``, for the perft cross-check)."""
    side = pos[SIDE]
    men, kings, opp, empty = _sides(pos)
    jumpers = _jumpers(men, kings, opp, empty, side)
    if jumpers:
        return _gen_captures(jumpers, men, kings, opp, empty, side, out, merge, stack)
    return _gen_quiet(men, kings, empty, side, out)


@njit(cache=True)
def gen_moves(pos, out):
    """Legal moves of ``pos`` as codes in ``out[:n]``; returns n.  Captures are compulsory.

    Order: pieces by ascending square; quiet moves by ascending target;
    a piece's captures in depth-first order (up-left, up-right, down-left, down-right).
    """
    side = pos[SIDE]
    men, kings, opp, empty = _sides(pos)
    jumpers = _jumpers(men, kings, opp, empty, side)
    if jumpers:
        stack = np.empty((16, 4), dtype=np.int64)
        return _gen_captures(jumpers, men, kings, opp, empty, side, out, True, stack)
    return _gen_quiet(men, kings, empty, side, out)


@njit(cache=True)
def has_capture(pos):
    """Whether the side to move has a capture (then it must take one: the position is not quiet)."""
    men, kings, opp, empty = _sides(pos)
    return _jumpers(men, kings, opp, empty, pos[SIDE]) != 0


@njit(cache=True)
def legal_codes(pos):
    """The legal moves as a fresh array (what the Python State lists)."""
    out = np.empty(MAX_MOVES, dtype=np.int64)
    n = gen_moves(pos, out)
    return out[:n].copy()


@njit(cache=True, inline="always")
def _count(men, kings, opp, empty, side, buf, merge, stack):
    jumpers = _jumpers(men, kings, opp, empty, side)
    if jumpers:
        return _gen_captures(jumpers, men, kings, opp, empty, side, buf, merge, stack)
    return quiet_moves(men, kings, empty, side)


@njit(cache=True)
def count_moves(pos, buf, merge, stack):
    """Number of legal moves; quiet moves are counted with popcounts, never listed."""
    men, kings, opp, empty = _sides(pos)
    return _count(men, kings, opp, empty, pos[SIDE], buf, merge, stack)


@njit(cache=True, inline="always")
def _count_after(pos, code, buf, merge, stack):
    """:func:`count_moves` of the position after ``code``, without building it in memory
    (the last ply of perft, where nearly all the time goes)."""
    side = pos[SIDE]
    if side == 0:
        men, kings, opp_men, opp_kings = pos[BLACK_MEN], pos[BLACK_KINGS], pos[WHITE_MEN], pos[WHITE_KINGS]
        king_row = _KING_ROW_BLACK
    else:
        men, kings, opp_men, opp_kings = pos[WHITE_MEN], pos[WHITE_KINGS], pos[BLACK_MEN], pos[BLACK_KINGS]
        king_row = _KING_ROW_WHITE
    from_bit = 1 << (code & 31)
    to_bit = 1 << ((code >> 5) & 31)
    captured = code >> 10
    if men & from_bit:
        men &= ~from_bit
        if to_bit & king_row:
            kings |= to_bit
        else:
            men |= to_bit
    else:
        kings = (kings & ~from_bit) | to_bit
    opp_men &= ~captured
    opp_kings &= ~captured
    mover = men | kings
    empty = ~(mover | opp_men | opp_kings) & FULL
    return _count(opp_men, opp_kings, mover, empty, 1 - side, buf, merge, stack)


# ---------------------------------------------------------------- apply / hash

@njit(cache=True)
def apply_move(pos, code):
    """Play ``code`` in place: pieces, crowning, side to move, no-progress counter, ply."""
    side = pos[SIDE]
    frm = code & 31
    to = (code >> 5) & 31
    captured = code >> 10
    own_men = BLACK_MEN if side == 0 else WHITE_MEN
    own_kings = own_men + 1
    opp_men = WHITE_MEN if side == 0 else BLACK_MEN
    from_bit = 1 << frm
    to_bit = 1 << to
    man_moved = (pos[own_men] & from_bit) != 0
    if man_moved:
        pos[own_men] &= ~from_bit
        king_row = _KING_ROW_BLACK if side == 0 else _KING_ROW_WHITE
        if to_bit & king_row:
            pos[own_kings] |= to_bit
        else:
            pos[own_men] |= to_bit
    else:
        # Remove before adding: a king's capture loop may end where it began.
        pos[own_kings] = (pos[own_kings] & ~from_bit) | to_bit
    if captured:
        pos[opp_men] &= ~captured
        pos[opp_men + 1] &= ~captured
    if captured or man_moved:
        pos[NO_PROGRESS] = 0
    else:
        pos[NO_PROGRESS] += 1
    pos[SIDE] = 1 - side
    pos[PLY] += 1


@njit(cache=True)
def hash_position(pos):
    """Zobrist key of the pieces and the side to move (counters excluded)."""
    h = 0
    for kind in range(4):
        b = pos[kind]
        while b:
            s = lowest_square(b)
            b &= b - 1
            h ^= ZOBRIST[kind, s]
    if pos[SIDE] == 1:
        h ^= ZOBRIST_SIDE
    return h


@njit(cache=True)
def apply_move_hashed(pos, code, h):
    """Apply ``code`` and return the Zobrist key ``h`` updated incrementally."""
    side = pos[SIDE]
    frm = code & 31
    to = (code >> 5) & 31
    captured = code >> 10
    own_men = BLACK_MEN if side == 0 else WHITE_MEN
    opp_men = WHITE_MEN if side == 0 else BLACK_MEN
    moved = own_men if (pos[own_men] >> frm) & 1 else own_men + 1
    h ^= ZOBRIST[moved, frm]
    while captured:
        s = lowest_square(captured)
        captured &= captured - 1
        h ^= ZOBRIST[opp_men if (pos[opp_men] >> s) & 1 else opp_men + 1, s]
    apply_move(pos, code)
    h ^= ZOBRIST[own_men if (pos[own_men] >> to) & 1 else own_men + 1, to]
    return h ^ ZOBRIST_SIDE


@njit(cache=True)
def current_player(pos):
    return pos[SIDE]


# ------------------------------------------------------------ outcome, playout

@njit(cache=True)
def outcome_with(pos, n_legal, no_progress_limit, ply_cap):
    """-1 going on, 0/1 that player has won, 2 draw.  Limits of 0 are off.

    No legal move loses even when a draw limit is reached on the same ply.
    Repetition needs the history and is left to the Python State.
    """
    if n_legal == 0:
        return 1 - pos[SIDE]
    if no_progress_limit > 0 and pos[NO_PROGRESS] >= no_progress_limit:
        return 2
    if ply_cap > 0 and pos[PLY] >= ply_cap:
        return 2
    return -1


@njit(cache=True)
def playout_with(pos, max_plies, no_progress_limit, ply_cap):
    """Uniformly random moves until the game ends or ``max_plies`` more plies (then 2)."""
    buf = np.empty(MAX_MOVES, dtype=np.int64)
    played = 0
    while True:
        n = gen_moves(pos, buf)
        result = outcome_with(pos, n, no_progress_limit, ply_cap)
        if result >= 0:
            return result
        if played >= max_plies:
            return 2
        apply_move(pos, buf[np.random.randint(n)])
        played += 1


# ---------------------------------------------------------------------- perft

@njit(cache=True)
def perft(pos, depth, merge):
    """Leaves of the legal-move tree (draw rules ignored), counted in bulk at the last ply.

    Iterative with one preallocated move list and position per ply, so the
    hot loop allocates nothing; ``merge=False`` counts every capture path.
    """
    if depth <= 0:
        return 1
    buf = np.empty(MAX_MOVES, dtype=np.int64)
    scratch = np.empty((16, 4), dtype=np.int64)
    if depth == 1:
        return count_moves(pos, buf, merge, scratch)
    moves = np.empty((depth, MAX_MOVES), dtype=np.int64)
    nmoves = np.zeros(depth, dtype=np.int64)
    index = np.zeros(depth, dtype=np.int64)
    stack = np.empty((depth + 1, POS_SIZE), dtype=np.int64)
    stack[0, :] = pos
    nmoves[0] = generate(stack[0], moves[0], merge, scratch)
    level = 0
    total = 0
    while level >= 0:
        if level == depth - 2:
            # The last ply: count each child's moves straight from the parent.
            parent = stack[level]
            row = moves[level]
            for i in range(nmoves[level]):
                total += _count_after(parent, row[i], buf, merge, scratch)
            level -= 1
            continue
        i = index[level]
        if i >= nmoves[level]:
            level -= 1
            continue
        index[level] = i + 1
        child = stack[level + 1]
        child[:] = stack[level]
        apply_move(child, moves[level, i])
        level += 1
        nmoves[level] = generate(child, moves[level], merge, scratch)
        index[level] = 0
    return total


# ------------------------------------------------------------- the contract


def state_to_pos(state) -> np.ndarray:
    """The int64 position array of a State (a copy the caller owns)."""
    return state._pos.copy()


@functools.lru_cache(maxsize=None)
def make_kernels(no_progress_limit: int = 80, ply_cap: int = 0) -> SimpleNamespace:
    """The kernels object of docs/kernels.md for one set of draw parameters (0 = off).

    One object per parameter set for the life of the process, so search code
    that caches compiled loops per kernels object compiles them once.
    """

    @njit(cache=True)
    def outcome(pos, n_legal):
        return outcome_with(pos, n_legal, no_progress_limit, ply_cap)

    @njit(cache=True)
    def playout(pos, max_plies):
        return playout_with(pos, max_plies, no_progress_limit, ply_cap)

    from .encoding import action_of_move, encode_into     # encoding.py reads this module's layout

    @njit(cache=True)
    def encode(pos, out):
        encode_into(pos, no_progress_limit, out)

    return SimpleNamespace(
        pos_size=POS_SIZE, max_moves=MAX_MOVES,
        gen_moves=gen_moves, apply_move=apply_move, outcome=outcome, playout=playout,
        current_player=current_player, state_to_pos=state_to_pos, code_to_move=move_is_code,
        move_to_code=move_is_code,   # State moves are these very codes, as Python ints
        # The learner kernels (docs/kernels.md): the compiled AlphaZero search encodes its leaves with them.
        encode=encode, action_of=action_of_move, position_key=hash_position,
        # Beyond the contract: hashing, counting and perft for search code that wants them.
        hash_position=hash_position, apply_move_hashed=apply_move_hashed, count_moves=count_moves,
        perft=perft, no_progress_limit=no_progress_limit, ply_cap=ply_cap,
    )
