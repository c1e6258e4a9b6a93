"""The compiled chess move features agree with python-chess, move by move, on real master games."""
from __future__ import annotations

import itertools
from pathlib import Path

import chess
import chess.pgn
import pytest

from plyground.games.chess import bayes_kernels as ck
from plyground.games.chess.bayes_keys import classify, key_of

MASTERS = Path(__file__).resolve().parents[3] / "shared" / "data" / "chess-masters.pgn"
#: Positions with castling both ways, en passant, under-promotion with and without capture, and a
#: discovered check, beside the archive's.
SPECIAL = [
    "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 0 1",
    "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R b KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "1r2k3/2P5/8/8/8/8/5p2/4K1N1 w - - 0 1",
    "1r2k3/2P5/8/8/8/8/5p2/4K1N1 b - - 0 1",
    "4k3/8/8/8/8/8/4B3/4R1K1 w - - 0 1",
]


def _positions(n_games: int):
    for fen in SPECIAL:
        yield chess.Board(fen)
    if not MASTERS.exists():
        return
    with open(MASTERS) as fh:
        for _ in range(n_games):
            game = chess.pgn.read_game(fh)
            board = game.board()
            for move in game.mainline_moves():
                yield board.copy()
                board.push(move)


def _expected(board: chess.Board, move: chess.Move) -> dict:
    """The kernel's facts about ``move``, from python-chess."""
    us, them = board.turn, not board.turn
    flip = 0 if us == chess.WHITE else 56
    piece, mtype = classify(board, move)
    victim = board.piece_type_at(move.to_square) or (chess.PAWN if board.is_en_passant(move) else None)
    was_attacked = board.is_attacked_by(them, move.from_square)
    leaving = None
    if was_attacked:
        cheapest = min(ck._VALUE[board.piece_type_at(s) - 1] for s in board.attackers(them, move.from_square))
        leaving = (bool(board.attackers(us, move.from_square)), cheapest < ck._VALUE[piece])
    last_to = board.move_stack[-1].to_square if board.move_stack else None
    after = board.copy()
    after.push(move)
    pieces, hanging = set(), []
    for square, p in after.piece_map().items():
        owner = 0 if p.color == us else 1
        pieces.add((owner, p.piece_type - 1, square ^ flip))
        if after.is_attacked_by(not p.color, square):
            hanging.append((owner, p.piece_type - 1, bool(after.attackers(p.color, square))))
    return {"hybrid": key_of(board, move, "hybrid")[0], "type": mtype, "piece": piece,
            "attacked": after.is_attacked_by(them, move.to_square),
            "defended": bool(after.attackers(us, move.to_square)),
            "check": after.is_check(), "victim": None if victim is None else victim - 1,
            "leaving": leaving, "recapture": last_to == move.to_square,
            "pieces": pieces, "hanging": sorted(hanging)}


def _decode(ids) -> dict:
    got = {"pieces": set(), "hanging": [], "check_after": False, "victim": None, "leaving": None,
           "recapture": False, "check": False}
    for i in ids:
        for name, (offset, size) in ck.LAYOUT.items():
            if offset <= i < offset + size:
                x = int(i - offset)
                break
        if name == "hybrid":
            got["hybrid"] = x
        elif name == "landing":
            got["piece"], attacked, defended, _ = ck.digits(x, 6, 2, 2, 2)
            got["attacked"], got["defended"] = bool(attacked), bool(defended)
        elif name == "leaving":
            _, guarded, cheaper = ck.digits(x, 6, 2, 2)
            got["leaving"] = (bool(guarded), bool(cheaper))
        elif name == "capture":
            got["victim"] = ck.digits(x, 6, 6, 2, 2)[1]
        elif name == "check":
            got["check"] = True
        elif name == "recapture":
            got["recapture"] = True
        elif name == "pp":
            got["pieces"].add(ck.digits(x, 2, 6, 64))
        elif name == "hanging":
            who, piece, defended = ck.digits(x, 2, 6, 2)
            got["hanging"].append((who, piece, bool(defended)))
        elif name == "in-check":
            got["check_after"] = True
    got["hanging"].sort()
    return got


@pytest.mark.parametrize("n_games", [12])
def test_every_feature_of_every_legal_move_matches_python_chess(n_games):
    positions = list(_positions(n_games))
    batch = ck.Batch()
    moves = []
    for board in positions:
        legal = list(board.legal_moves)
        batch.add(board, legal)
        moves.append(legal)
    feat_start, feat_id, move_type, key = batch.features(True, True)
    checked = 0
    for c, (board, move) in enumerate((b, m) for b, legal in zip(positions, moves) for m in legal):
        want = _expected(board, move)
        got = _decode(feat_id[feat_start[c]:feat_start[c + 1]])
        where = f"{board.fen()} {move.uci()}"
        assert move_type[c] == want["type"], where
        for name in ("hybrid", "piece", "attacked", "defended", "check", "victim", "leaving", "recapture",
                     "pieces", "hanging"):
            assert got[name] == want[name], (where, name, got[name], want[name])
        assert got["check_after"] == want["check"], where
        assert key[c] == ((want["hybrid"] * 2 + want["attacked"]) * 2 + want["defended"]) * 2 + want["check"]
        checked += 1
    assert checked > (2000 if MASTERS.exists() else 100)


def test_move_or_board_features_alone_are_the_parts_of_both():
    board = chess.Board(SPECIAL[0])
    legal = list(board.legal_moves)
    parts = {}
    for want in itertools.product((True, False), repeat=2):
        batch = ck.Batch()
        batch.add(board, legal)
        start, ids, _, _ = batch.features(*want)
        parts[want] = [sorted(ids[start[c]:start[c + 1]]) for c in range(len(legal))]
    assert all(not row for row in parts[(False, False)])
    assert parts[(True, True)] == [sorted(a + b) for a, b in zip(parts[(True, False)], parts[(False, True)])]
    move_end = ck.LAYOUT["pp"][0]
    assert all(i < move_end for row in parts[(True, False)] for i in row)
    assert all(i >= move_end for row in parts[(False, True)] for i in row)


def test_every_id_has_words():
    for name, (offset, size) in ck.LAYOUT.items():
        for i in (offset, offset + size - 1):
            assert "outside" not in ck.describe(i)
    assert ck.describe(ck.LAYOUT["check"][0]) == "pawn gives check"
    assert "outside" in ck.describe(ck.SPACE)
