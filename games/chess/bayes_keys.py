"""The chess adapter of the Bayesian move predictor: move keys and board features (thesis 004, ch. 5).

Everything is seen from the side to move (keys) or the side that just moved
(features): Black's squares are mirrored top to bottom (``square ^ 56``),
so both colours train one set of beliefs and descriptions use White's
squares (Black's e7-e5 is key ``pawn e2-e4 (double-push)``).  The thesis
keeps the colour in the piece type instead; mirroring halves the ids and
lets every game teach both sides.

Move keys (Urgency model), ids in a dense range per key set:

=========== ======== =============================================================
key set     ids      key
=========== ======== =============================================================
``hybrid``  344,064  from x to x piece type x move type (the thesis's "Hybrid", default)
``piece``   24,576   from x to x piece type (the thesis's "Piece-Type")
``type``    57,344   from x to x move type (the thesis's "Move-Type")
``fromto``  4,096    from x to
``kind``    84       piece type x move type (no squares)
``hybrid-tactical``
            2,752,512 hybrid x landing square attacked x defended x gives check (default)
=========== ======== =============================================================

The thesis's key sets describe a move by where it goes, never by what
happens there: a knight going to a square the opponent's pawn attacks has
the key of the same knight move to a safe square.  ``hybrid-tactical`` adds
the three facts that separate most expert moves from the rest (found on a
validation split of the masters' games, docs/bayes.md): is the landing
square attacked by the opponent after the move, is it defended, does the
move give check.

Piece types: pawn, knight, bishop, rook, queen, king.  Move types (the
thesis's list): quiet, double-push, castle-kingside, castle-queenside,
capture, en-passant, promotion-{n,b,r,q}, capture-promotion-{n,b,r,q}.
Castling is the king's move (e1-g1 / e1-c1).

Board features (BoardVal model) of the position after the move, from the
mover's view: ``pp`` piece-on-square, owner (mover, opponent) x piece type x
square (ids 0-767); ``ms`` the legal-move set: every move the opponent can
then play, as a hybrid key in the opponent's own frame (ids 768 + key);
``hybrid`` both.  The id space is the same for these three, so a feature
has one id whichever of them uses it.

Feature sets built by the compiled kernel (``chess_kernels``, its own id
layout): ``tactical`` (default) the board after the move -- pieces on
squares, each piece the other side now attacks with whether it is defended
(hanging pieces), and check; ``move-tactical`` what the move does -- its
hybrid key, where it lands (attacked, defended), what it leaves (attacked,
by a cheaper piece), what it takes, check, recapture; ``combined`` both,
the Urgency model's move keys and the BoardVal model's board in one sum.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import chess
import numpy as np

from plyground.learning.movekeys import Encoded, GameSample, GameSet, SquareMoveAdapter

PIECES = ("pawn", "knight", "bishop", "rook", "queen", "king")
_PROMOTIONS = "nbrq"
MOVE_TYPES = ("quiet", "double-push", "castle-kingside", "castle-queenside", "capture", "en-passant",
              *(f"promotion-{p}" for p in _PROMOTIONS), *(f"capture-promotion-{p}" for p in _PROMOTIONS))
N_TYPES = len(MOVE_TYPES)                                  # 14
_PROMOTION_INDEX = {chess.KNIGHT: 0, chess.BISHOP: 1, chess.ROOK: 2, chess.QUEEN: 3}
HYBRID_SPACE = 64 * 64 * 6 * N_TYPES

KEY_SETS = {
    "hybrid": f"from x to x piece type x move type ({HYBRID_SPACE:,} keys)",
    "piece": "from x to x piece type (24,576 keys)",
    "type": f"from x to x move type ({64 * 64 * N_TYPES:,} keys)",
    "fromto": "from x to (4,096 keys)",
    "kind": f"piece type x move type, no squares ({6 * N_TYPES} keys)",
    "hybrid-tactical": "from x to x piece type x move type x landing square attacked x defended x gives check "
                       "(2,752,512 keys)",
}
_KEY_SPACE = {"hybrid": HYBRID_SPACE, "piece": 64 * 64 * 6, "type": 64 * 64 * N_TYPES, "fromto": 64 * 64,
              "kind": 6 * N_TYPES, "hybrid-tactical": HYBRID_SPACE * 8}
FEATURE_SETS = {
    "hybrid": "piece-on-square and the opponent's legal-move set after the move",
    "pp": "piece-on-square: mover/opponent x piece type x square (768 features)",
    "ms": f"the opponent's legal moves after the move, as hybrid keys ({HYBRID_SPACE:,} features)",
    "tactical": "the board after the move: pieces on squares, attacked pieces (defended or not), check",
    "move-tactical": "what the move does: hybrid key, landing and leaving square safety, capture, check, recapture",
    "combined": "move-tactical and tactical together (the move keys and the board in one sum)",
}
#: Feature sets the compiled kernel builds: (move features, board features).
KERNEL_FEATURE_SETS = {"tactical": (False, True), "move-tactical": (True, False), "combined": (True, True)}
PP_SIZE = 2 * 6 * 64
FEATURE_SPACE = PP_SIZE + HYBRID_SPACE


def _frame(square: int, white: bool) -> int:
    return square if white else square ^ 56


def classify(board: chess.Board, move: chess.Move) -> tuple[int, int]:
    """(piece type index 0-5, move type index into MOVE_TYPES) of a legal ``move`` on ``board``."""
    piece = board.piece_type_at(move.from_square)
    if move.promotion:
        kind = _PROMOTION_INDEX[move.promotion]
        return piece - 1, (10 if board.is_capture(move) else 6) + kind
    if piece == chess.KING and board.is_castling(move):
        return 5, 2 if chess.square_file(move.to_square) > chess.square_file(move.from_square) else 3
    if board.is_en_passant(move):
        return 0, 5
    if board.piece_at(move.to_square) is not None:
        return piece - 1, 4
    if piece == chess.PAWN and abs(move.to_square - move.from_square) == 16:
        return 0, 1
    return piece - 1, 0


def key_of(board: chess.Board, move: chess.Move, key_set: str) -> tuple[int, int]:
    """(key id, move type) of ``move`` in the frame of the side to move."""
    piece, mtype = classify(board, move)
    white = board.turn == chess.WHITE
    f, t = _frame(move.from_square, white), _frame(move.to_square, white)
    if key_set == "hybrid":
        key = ((mtype * 6 + piece) * 64 + f) * 64 + t
    elif key_set == "piece":
        key = (piece * 64 + f) * 64 + t
    elif key_set == "type":
        key = (mtype * 64 + f) * 64 + t
    elif key_set == "fromto":
        key = f * 64 + t
    else:
        key = mtype * 6 + piece
    return key, mtype


def features_after(board: chess.Board, mover_white: bool, feature_set: str) -> list[int]:
    """Feature ids of ``board`` (the position after the mover's move), from the mover's view."""
    out: list[int] = []
    if feature_set in ("pp", "hybrid"):
        for square, piece in board.piece_map().items():
            owner = 0 if piece.color == mover_white else 1
            out.append((owner * 6 + piece.piece_type - 1) * 64 + _frame(square, mover_white))
    if feature_set in ("ms", "hybrid"):
        out.extend(PP_SIZE + key_of(board, m, "hybrid")[0] for m in board.generate_legal_moves())
    return out


def _board_of(state) -> chess.Board:
    """The python-chess board of a chess State (a copy), or the board itself."""
    return state if isinstance(state, chess.Board) else state.board


class ChessAdapter(SquareMoveAdapter):
    """Move keys and board features for chess (see the module docstring)."""

    game = "chess"
    description = "chess move keys (piece, squares, move type) and board features for the bayes predictor"
    version = "chess-1"
    key_sets = KEY_SETS
    feature_sets = FEATURE_SETS
    default_key_set = "hybrid-tactical"
    default_feature_set = "tactical"
    # Measured on a validation split of the masters' games (docs/bayes.md): less noise than the
    # thesis's 1 and 2 suits the tactical keys and features.
    default_beta = {"urgency": 0.5, "boardval": 0.25}
    move_type_names = MOVE_TYPES
    piece_kinds = PIECES
    key_space_sizes = _KEY_SPACE
    feature_space_size = FEATURE_SPACE

    def feature_space(self, feature_set: str) -> int:
        if self.check_feature_set(feature_set) in KERNEL_FEATURE_SETS:
            return _kernels().SPACE
        return FEATURE_SPACE

    # --- per position -----------------------------------------------------------
    def move_keys(self, state, moves, key_set):
        key_set = self.check_key_set(key_set)
        board = _board_of(state)
        if key_set == "hybrid-tactical":
            return [int(k) for k in _kernel_candidates(board, moves, False, False)[3]]
        return [key_of(board, m, key_set)[0] for m in moves]

    def move_type(self, state, move) -> int:
        return classify(_board_of(state), move)[1]

    def board_features(self, state_after, mover, feature_set):
        return features_after(_board_of(state_after), mover == 0, self.check_feature_set(feature_set))

    def candidate_features(self, state, moves, feature_set):
        feature_set = self.check_feature_set(feature_set)
        board = _board_of(state)
        if feature_set in KERNEL_FEATURE_SETS:
            start, ids, _, _ = _kernel_candidates(board, moves, *KERNEL_FEATURE_SETS[feature_set])
            return [ids[start[c]:start[c + 1]].tolist() for c in range(len(moves))]
        white = board.turn == chess.WHITE
        out = []
        for move in moves:
            board.push(move)
            out.append(features_after(board, white, feature_set))
            board.pop()
        return out

    # --- words ------------------------------------------------------------------
    def square_name(self, square: int) -> str:
        return chess.square_name(square)

    def square_cell(self, square: int) -> tuple[int, int]:
        return 7 - square // 8, square % 8     # rank 8 at the top

    def is_capture_type(self, move_type: int) -> bool:
        return move_type in (4, 5) or move_type >= 10

    def describe_key(self, key_set: str, key: int) -> str:
        key_set, key = self.check_key_set(key_set), int(key)
        if key_set == "kind":
            return f"{PIECES[key % 6]} ({MOVE_TYPES[key // 6]})"
        if key_set == "hybrid-tactical":
            facts = ("lands attacked" if key & 4 else "lands unattacked",
                     "defended" if key & 2 else "undefended") + (("check",) if key & 1 else ())
            return f"{super().describe_key('hybrid', key >> 3)}, {', '.join(facts)}"
        return super().describe_key(key_set, key)

    def describe_feature(self, feature_set: str, feature: int) -> str:
        if self.check_feature_set(feature_set) in KERNEL_FEATURE_SETS:
            return _kernels().describe(feature)
        return super().describe_feature(feature_set, feature)

    def heatmaps(self, feature_set: str):
        if self.check_feature_set(feature_set) not in KERNEL_FEATURE_SETS:
            return super().heatmaps(feature_set)
        if feature_set == "move-tactical":
            return []
        first = _kernels().LAYOUT["pp"][0]
        return [(name, size, [(first + f, row, col) for f, row, col in cells])
                for name, size, cells in super().heatmaps("pp")]

    # --- data -------------------------------------------------------------------
    def read_games(self, path: Path, progress=None) -> GameSet:
        """The games of a PGN file; unreadable or illegal games are skipped and their errors kept.

        Replayed with the claimable draws off (recorded games may go on past an
        unclaimed threefold repetition), as the PGN reader's own ``replay`` does.
        """
        from plyground.errors import PositionError
        from .game import ChessGame
        from .pgn import read_pgn
        game = ChessGame(repetitions=0, no_progress_plies=0)
        reader = read_pgn(Path(path), strict=False, san=False)
        games, errors = [], []
        for g in reader:
            if progress is not None:
                progress(reader.fraction_read, len(games))
            try:
                start = game.new_state(g.fen)
            except PositionError as exc:
                errors.append(f"game {g.number}: {exc}")
                continue
            games.append(GameSample(start, list(g.uci_moves), f"game {g.number}"))
        return GameSet(games, [str(e) for e in reader.errors] + errors, str(path))

    def encode_games(self, games: Sequence[GameSample], key_set: str, feature_set: str | None) -> Encoded:
        """As the base class, on one python-chess board per game (push/pop instead of state clones);
        the kernel's key and feature sets (and ``hybrid``) in compiled code."""
        key_set = self.check_key_set(key_set)
        if feature_set is not None:
            feature_set = self.check_feature_set(feature_set)
        if key_set in ("hybrid", "hybrid-tactical") and (feature_set is None or feature_set in KERNEL_FEATURE_SETS):
            return _encode_with_kernel(games, key_set, feature_set)
        pos_start, key, mtype, feat_start, feat_id = [0], [], [], [0], []
        game_idx, plies, n_legal = [], [], []
        bad = 0
        for g, sample in enumerate(games):
            state = sample.start.clone()
            board = state.board
            for ply, move in enumerate(sample.moves):
                moves = state.legal_moves()
                if move not in moves:
                    bad += 1
                    break
                white = board.turn == chess.WHITE
                for m in [move] + [m for m in moves if m != move]:
                    k, t = key_of(board, m, key_set)
                    key.append(k)
                    mtype.append(t)
                    if feature_set is not None:
                        board.push(m)
                        feat_id.extend(features_after(board, white, feature_set))
                        board.pop()
                    feat_start.append(len(feat_id))
                pos_start.append(len(key))
                game_idx.append(g)
                plies.append(ply)
                n_legal.append(len(moves))
                state.apply(move)
                board.push(move)
        i64 = np.int64
        return Encoded(np.array(pos_start, i64), np.array(key, i64), np.array(mtype, np.int8),
                       np.array(feat_start, i64), np.array(feat_id, i64), np.array(game_idx, np.int32),
                       np.array(plies, np.int32), np.array(n_legal, np.int32), bad)


def _kernels():
    from . import bayes_kernels as chess_kernels      # imported here: it builds on this module's constants
    return chess_kernels


def _kernel_candidates(board: chess.Board, moves, want_move: bool, want_board: bool):
    """(feat_start, feat_id, move_type, hybrid-tactical key) of ``moves`` on ``board``, by the kernel."""
    batch = _kernels().Batch()
    batch.add(board, moves)
    return batch.features(want_move, want_board)


#: Positions per kernel call: bounds the scratch memory (about 2,000 positions x 31 moves x 72 ids).
_KERNEL_POSITIONS = 2000


def _encode_with_kernel(games: Sequence[GameSample], key_set: str, feature_set: str | None) -> Encoded:
    want_move, want_board = KERNEL_FEATURE_SETS[feature_set] if feature_set else (False, False)
    parts, n_legal, game_idx, plies = [], [], [], []
    bad = 0
    batch = _kernels().Batch()

    def flush():
        nonlocal batch
        if len(batch):
            parts.append((np.array(batch.cand_start, np.int64), *batch.features(want_move, want_board)))
            batch = _kernels().Batch()

    for g, sample in enumerate(games):
        board = sample.start.board.copy()
        for ply, move in enumerate(sample.moves):
            legal = list(board.generate_legal_moves())
            if move not in legal:
                bad += 1
                break
            legal.remove(move)
            legal.insert(0, move)
            batch.add(board, legal)
            n_legal.append(len(legal))
            game_idx.append(g)
            plies.append(ply)
            board.push(move)
        if len(batch) >= _KERNEL_POSITIONS:
            flush()
    flush()
    pos_start, feat_start, feat_id, mtype, key = [np.zeros(1, np.int64)], [np.zeros(1, np.int64)], [], [], []
    n_cand = n_ids = 0
    for starts, fstart, fids, types, keys in parts:
        pos_start.append(starts[1:] + n_cand)
        feat_start.append(fstart[1:] + n_ids)
        feat_id.append(fids)
        mtype.append(types)
        key.append(keys if key_set == "hybrid-tactical" else keys >> 3)
        n_cand += len(types)
        n_ids += len(fids)
    cat = lambda arrays, dtype: np.concatenate(arrays).astype(dtype) if arrays else np.zeros(0, dtype)  # noqa: E731
    return Encoded(np.concatenate(pos_start), cat(key, np.int64), cat(mtype, np.int8), np.concatenate(feat_start),
                   cat(feat_id, np.int64), np.array(game_idx, np.int32), np.array(plies, np.int32),
                   np.array(n_legal, np.int32), bad)
