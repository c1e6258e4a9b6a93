"""Move generation checked against the standard perft counts (chessprogramming.org/Perft_Results)."""
from __future__ import annotations

import re
import subprocess

import pytest

from chess_helpers import STOCKFISH, needs_stockfish
from plyground.cli import main

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
POSITION_3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
POSITION_4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"
POSITION_5 = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"


def test_initial_position_to_depth_4(game):
    state = game.new_initial_state()
    assert [game.perft(state, d) for d in range(5)] == [1, 20, 400, 8902, 197281]
    assert state.ply == 0 and state.to_text() == game.new_initial_state().to_text()


@pytest.mark.parametrize("fen, counts", [
    (KIWIPETE, [48, 2039, 97862]),          # castling, en passant, promotions, pins
    (POSITION_3, [14, 191, 2812, 43238]),   # en passant discovered checks along the rank
    (POSITION_4, [6, 264, 9467]),           # promotions and checks
    (POSITION_5, [44, 1486, 62379]),
])
def test_tricky_positions(game, fen, counts):
    state = game.new_state(fen)
    assert [game.perft(state, d + 1) for d in range(len(counts))] == counts


def test_generic_perft_through_the_state_api_agrees(game):
    from plyground.protocols import Game
    state = game.new_state(KIWIPETE)
    assert Game.perft(game, state, 2) == game.perft(state, 2) == 2039


def test_plyground_perft_command(registry, capsys):
    try:
        main(["perft", "chess", "--depth", "3"])
    except SystemExit as exc:
        assert exc.code in (0, None)
    assert "perft(3) = 8,902 nodes" in capsys.readouterr().out
    try:
        main(["perft", "chess", "--depth", "2", "--fen", KIWIPETE, "--divide"])
    except SystemExit as exc:
        assert exc.code in (0, None)
    out = capsys.readouterr().out
    assert "perft(2) = 2,039 nodes" in out and "e1c1: " in out       # O-O-O, in UCI as engines write it
    with pytest.raises(SystemExit) as info:
        main(["perft", "chess", "--depth", "1", "--fen", "8/8/8 w - - 0 1"])
    assert info.value.code == 2
    assert "bad FEN '8/8/8 w - - 0 1': expected 8 rows" in capsys.readouterr().err


#: A line of a perft divide as Stockfish's `go perft` prints it: a move in UCI and its count.
DIVIDE_LINE = re.compile(r"^([a-h][1-8][a-h][1-8][qrbn]?): (\d+)$", re.MULTILINE)


def divide(capsys, depth: int, fen: str) -> dict[str, int]:
    try:
        main(["perft", "chess", "--depth", str(depth), "--fen", fen, "--divide"])
    except SystemExit as exc:
        assert exc.code in (0, None)
    out = capsys.readouterr().out
    return {move: int(count) for move, count in DIVIDE_LINE.findall(out)}


def test_divide_writes_each_move_in_uci_with_its_count(registry, capsys):
    counts = divide(capsys, 2, POSITION_4)          # White is in check: six answers (Kh1, Bc5+, ...)
    assert counts == {"g1h1": 46, "b4c5": 42, "f3d4": 45, "f1f2": 45, "c4c5": 43, "d2d4": 43}
    assert sum(counts.values()) == 264


@needs_stockfish
def test_divide_is_the_same_text_as_stockfish_go_perft(registry, capsys):
    ours = divide(capsys, 2, KIWIPETE)
    engine = subprocess.run([STOCKFISH], input=f"position fen {KIWIPETE}\ngo perft 2\nquit\n",
                            capture_output=True, text=True, timeout=60)
    theirs = {move: int(count) for move, count in DIVIDE_LINE.findall(engine.stdout)}
    assert len(theirs) == 48 and ours == theirs
