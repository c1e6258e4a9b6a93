"""Learner encodings for chess: board planes, the AlphaZero action space, the Deep Pepper features.

Planes (``encoding=planes``, the default): float32 of shape (21, 8, 8), seen
from the side to move.  The board is mirrored top to bottom for Black (rank
r becomes rank 7 - r, files stay), so the mover's first rank is always row 0
and the mover always plays "up" the tensor; ``[plane, row, col]`` is
``[plane, rank in the mover's frame, file]``.

==========  ===============================================================
plane       content
==========  ===============================================================
0-5         the mover's pawns, knights, bishops, rooks, queens, king
6-11        the opponent's pawns, knights, bishops, rooks, queens, king
12          1 everywhere if this position has occurred before (>= 2 times)
13          1 everywhere if it has occurred at least 3 times
14          1 everywhere if White is to move (0 for Black)
15, 16      1 everywhere if the mover may still castle king side / queen side
17, 18      the same for the opponent
19          1 on the en passant target square when an en passant capture is legal
20          no-progress plies (the 50-move counter) / the draw limit, clipped to 1
==========  ===============================================================

Actions: ``from_square * 73 + move_type`` with the from-square in the mover's
frame (a1 = 0 ... h8 = 63, mirrored for Black): 64 x 73 = 4672 indices, as in
AlphaZero.  Move types 0-55 are queen-like moves, ``direction * 7 +
(distance - 1)`` with directions N, NE, E, SE, S, SW, W, NW in the mover's
frame (N = towards the opponent); 56-63 are the knight moves (+1,+2),
(+2,+1), (+2,-1), (+1,-2), (-1,-2), (-2,-1), (-2,+1), (-1,+2) as (file,
rank) steps; 64-72 are under-promotions ``64 + 3 * piece + direction`` with
pieces knight, bishop, rook and directions capture towards the a-file,
straight, capture towards the h-file.  A queen promotion is the pawn's plain
queen-like move; castling is the king's two-square move (e1g1).  Every legal
move has its own index, so no two legal moves share one.

Deep Pepper features (``encoding=deep_pepper``): the 353 numbers of appendix
7.1.1 of the Deep Pepper paper, from White's point of view (not mirrored);
the exact layout is in :func:`deep_pepper_features` and docs/chess.md.
"""
from __future__ import annotations

import chess
import numpy as np

from plyground.capabilities import FeatureLayout

NUM_PLANES = 21
PLANES_SHAPE = (NUM_PLANES, 8, 8)
NUM_ACTIONS = 64 * 73
DEEP_PEPPER_SIZE = 353
DEEP_PEPPER_SHAPE = (DEEP_PEPPER_SIZE,)

#: Queen-like directions as (file step, rank step) in the mover's frame.
QUEEN_DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
KNIGHT_STEPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
UNDERPROMOTIONS = (chess.KNIGHT, chess.BISHOP, chess.ROOK)
_PIECE_ORDER = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)


def _build_move_table() -> np.ndarray:
    """``table[from, to]``: the action offset (0-63) of a plain move in the mover's frame, or -1."""
    table = np.full((64, 64), -1, dtype=np.int64)
    for frm in range(64):
        f0, r0 = frm & 7, frm >> 3
        for d, (df, dr) in enumerate(QUEEN_DIRECTIONS):
            for dist in range(1, 8):
                f, r = f0 + df * dist, r0 + dr * dist
                if not (0 <= f < 8 and 0 <= r < 8):
                    break
                table[frm, r * 8 + f] = d * 7 + dist - 1
        for k, (df, dr) in enumerate(KNIGHT_STEPS):
            f, r = f0 + df, r0 + dr
            if 0 <= f < 8 and 0 <= r < 8:
                table[frm, r * 8 + f] = 56 + k
    return table


_MOVE_TABLE = _build_move_table()
_MOVE_TABLE_LIST = _MOVE_TABLE.tolist()   # plain ints: faster to index one at a time


def action_index(move: chess.Move, white_to_move: bool) -> int:
    """Index of ``move`` (played by the side to move) in ``range(4672)``."""
    frm, to = move.from_square, move.to_square
    if not white_to_move:
        frm, to = frm ^ 56, to ^ 56
    promotion = move.promotion
    if promotion is not None and promotion != chess.QUEEN:
        direction = (to & 7) - (frm & 7) + 1
        return frm * 73 + 64 + 3 * UNDERPROMOTIONS.index(promotion) + direction
    offset = _MOVE_TABLE_LIST[frm][to]
    if offset < 0:
        raise ValueError(f"{move.uci()} is not a move any chess piece can make")
    return frm * 73 + offset


# ------------------------------------------------------------------ planes

def _bitboard_plane(bb: int) -> np.ndarray:
    """64 bits (a1 = bit 0) as an (8, 8) array indexed [rank, file]."""
    return np.unpackbits(np.frombuffer(bb.to_bytes(8, "little"), dtype=np.uint8),
                         bitorder="little").reshape(8, 8)


def planes(board: chess.Board, repetitions: int, no_progress_limit: int) -> np.ndarray:
    """The (21, 8, 8) plane observation of ``board`` (see the module docstring).

    ``repetitions``: how many times the position has occurred (1 = first time);
    ``no_progress_limit``: plies after which the no-progress rule draws (the
    normaliser of plane 20).
    """
    out = np.zeros(PLANES_SHAPE, dtype=np.float32)
    us = board.turn
    flip = us == chess.BLACK
    for i, color in enumerate((us, not us)):
        occupied = board.occupied_co[color]
        for j, piece_type in enumerate(_PIECE_ORDER):
            bb = board.pieces_mask(piece_type, color) & occupied
            if bb:
                out[i * 6 + j] = _bitboard_plane(chess.flip_vertical(bb) if flip else bb)
    if repetitions >= 2:
        out[12] = 1.0
    if repetitions >= 3:
        out[13] = 1.0
    if us == chess.WHITE:
        out[14] = 1.0
    for k, color in enumerate((us, not us)):
        if board.has_kingside_castling_rights(color):
            out[15 + 2 * k] = 1.0
        if board.has_queenside_castling_rights(color):
            out[16 + 2 * k] = 1.0
    if board.ep_square is not None and board.has_legal_en_passant():
        ep = board.ep_square ^ 56 if flip else board.ep_square
        out[19, ep >> 3, ep & 7] = 1.0
    out[20] = min(board.halfmove_clock / max(no_progress_limit, 1), 1.0)
    return out


# ------------------------------------------------------------------ Deep Pepper

#: Piece values for the attacker / defender features (0 = none).
PIECE_VALUES = {chess.PAWN: 1.0, chess.KNIGHT: 3.0, chess.BISHOP: 3.0, chess.ROOK: 5.0,
                chess.QUEEN: 9.0, chess.KING: 10.0}
_CHEAPEST_FIRST = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)

#: Piece slots of features 17-176, in order: (piece type, colour, how many slots).
PIECE_SLOTS = ((chess.KING, chess.WHITE, 1), (chess.KING, chess.BLACK, 1),
               (chess.QUEEN, chess.WHITE, 1), (chess.QUEEN, chess.BLACK, 1),
               (chess.ROOK, chess.WHITE, 2), (chess.ROOK, chess.BLACK, 2),
               (chess.BISHOP, chess.WHITE, 2), (chess.BISHOP, chess.BLACK, 2),
               (chess.KNIGHT, chess.WHITE, 2), (chess.KNIGHT, chess.BLACK, 2),
               (chess.PAWN, chess.WHITE, 8), (chess.PAWN, chess.BLACK, 8))
#: Slider slots of features 177-224: (piece type, colour, slots, directions as (file, rank) steps).
_ROOK_DIRECTIONS = ((0, 1), (1, 0), (0, -1), (-1, 0))              # N, E, S, W
_BISHOP_DIRECTIONS = ((1, 1), (1, -1), (-1, -1), (-1, 1))          # NE, SE, SW, NW
SLIDER_SLOTS = ((chess.QUEEN, chess.WHITE, 1, QUEEN_DIRECTIONS), (chess.QUEEN, chess.BLACK, 1, QUEEN_DIRECTIONS),
                (chess.ROOK, chess.WHITE, 2, _ROOK_DIRECTIONS), (chess.ROOK, chess.BLACK, 2, _ROOK_DIRECTIONS),
                (chess.BISHOP, chess.WHITE, 2, _BISHOP_DIRECTIONS), (chess.BISHOP, chess.BLACK, 2, _BISHOP_DIRECTIONS))
#: Start index of each part of the vector.
GLOBAL_START, PIECES_START, SLIDERS_START, SQUARES_START = 0, 17, 177, 225


def _deep_pepper_scale() -> tuple[float, ...]:
    """Per-feature factors that bring the 353 features into [0, 1]: piece counts by 8, attacker and defender
    values by 10, slider reach by 7 (what Deep Pepper's networks multiply their input by, ``normalize``)."""
    scale = np.ones(DEEP_PEPPER_SIZE, dtype=np.float32)
    scale[5:PIECES_START] = 1 / 8                   # piece counts
    for slot in range(PIECES_START, SLIDERS_START, 5):
        scale[slot + 3:slot + 5] = 1 / 10           # [present, file, rank, attacker, defender]: piece values
    scale[SLIDERS_START:SQUARES_START] = 1 / 7      # squares a slider reaches in one direction
    scale[SQUARES_START:] = 1 / 10                  # cheapest attacker / defender of each square
    return tuple(scale.tolist())


#: The FeatureLayouts ability (plyground.capabilities): the vector as the paper's networks split it, global
#: (0-16), piece-centric (17-224: piece slots and slider reach) and square-centric (225-352), and its scale.
DEEP_PEPPER_LAYOUT = FeatureLayout("deep_pepper", (("global", GLOBAL_START, PIECES_START),
                                                   ("piece-centric", PIECES_START, SQUARES_START),
                                                   ("square-centric", SQUARES_START, DEEP_PEPPER_SIZE)),
                                   _deep_pepper_scale())


def lowest_attacker_value(board: chess.Board, color: chess.Color, square: int) -> float:
    """Value of ``color``'s cheapest piece attacking ``square`` (0 if none).

    Attacks as python-chess counts them: pinned pieces still attack, x-rays
    through other pieces do not.
    """
    mask = board.attackers_mask(color, square)
    if not mask:
        return 0.0
    for piece_type in _CHEAPEST_FIRST:
        if mask & board.pieces_mask(piece_type, color):
            return PIECE_VALUES[piece_type]
    return 0.0


def _reach(board: chess.Board, square: int, color: chess.Color, df: int, dr: int) -> int:
    """Squares a slider on ``square`` can move to in one direction: empty ones, plus an enemy piece ending the ray."""
    f, r = (square & 7) + df, (square >> 3) + dr
    n = 0
    occupied, theirs = board.occupied, board.occupied_co[not color]
    while 0 <= f < 8 and 0 <= r < 8:
        bit = 1 << (r * 8 + f)
        if occupied & bit:
            return n + 1 if theirs & bit else n
        n += 1
        f, r = f + df, r + dr
    return n


def deep_pepper_features(board: chess.Board) -> np.ndarray:
    """The 353-number feature vector of Deep Pepper's appendix 7.1.1 (float32).

    ======== ==================================================================
    index    content
    ======== ==================================================================
    0        side to move: 1 White, 0 Black
    1-4      castling rights: White queen side, White king side, Black queen side, Black king side
    5-16     piece counts: White K, Q, R, B, N, P, then Black K, Q, R, B, N, P
    17-176   32 piece slots x 5: [present, file / 7, rank / 7, lowest-valued attacker,
             lowest-valued defender]; slots: White K, Black K, White Q, Black Q,
             White R x2, Black R x2, White B x2, Black B x2, White N x2, Black N x2,
             White P x8, Black P x8.  Pieces fill their slots in square order
             (a1, b1, ... h8); extra pieces (a third rook) have no slot, an
             empty slot is all zeros.  Attacker: the opponent's cheapest piece
             attacking the piece; defender: the owner's cheapest piece
             protecting it (values P 1, N 3, B 3, R 5, Q 9, K 10; 0 = none)
    177-224  sliding reach: squares each slider can move to per direction (empty
             squares, plus 1 for an enemy piece ending the ray): White Q and
             Black Q x 8 directions (N, NE, E, SE, S, SW, W, NW), then White R x2,
             Black R x2 x 4 directions (N, E, S, W), then White B x2, Black B x2
             x 4 directions (NE, SE, SW, NW); same slot filling as above
    225-352  per square a1, b1, ..., h8: [lowest-valued attacker, lowest-valued
             defender], where the attacker is the side to move's cheapest piece
             attacking the square and the defender the opponent's
    ======== ==================================================================
    """
    out = np.zeros(DEEP_PEPPER_SIZE, dtype=np.float32)
    out[0] = 1.0 if board.turn == chess.WHITE else 0.0
    out[1] = board.has_queenside_castling_rights(chess.WHITE)
    out[2] = board.has_kingside_castling_rights(chess.WHITE)
    out[3] = board.has_queenside_castling_rights(chess.BLACK)
    out[4] = board.has_kingside_castling_rights(chess.BLACK)
    i = 5
    for color in (chess.WHITE, chess.BLACK):
        for piece_type in (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN):
            out[i] = chess.popcount(board.pieces_mask(piece_type, color))
            i += 1

    i = PIECES_START
    for piece_type, color, slots in PIECE_SLOTS:
        squares = list(chess.scan_forward(board.pieces_mask(piece_type, color)))[:slots]
        for square in squares:
            out[i] = 1.0
            out[i + 1] = (square & 7) / 7.0
            out[i + 2] = (square >> 3) / 7.0
            out[i + 3] = lowest_attacker_value(board, not color, square)
            out[i + 4] = lowest_attacker_value(board, color, square)
            i += 5
        i += 5 * (slots - len(squares))

    i = SLIDERS_START
    for piece_type, color, slots, directions in SLIDER_SLOTS:
        squares = list(chess.scan_forward(board.pieces_mask(piece_type, color)))[:slots]
        for square in squares:
            for df, dr in directions:
                out[i] = _reach(board, square, color, df, dr)
                i += 1
        i += len(directions) * (slots - len(squares))

    us = board.turn
    i = SQUARES_START
    for square in range(64):
        out[i] = lowest_attacker_value(board, us, square)
        out[i + 1] = lowest_attacker_value(board, not us, square)
        i += 2
    return out
