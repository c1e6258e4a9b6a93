"""Move generation checked against the standard perft counts (chessprogramming.org/Perft_Results)."""
from __future__ import annotations

import pytest

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
    assert "perft(2) = 2,039 nodes" in out and "O-O-O" in out
    with pytest.raises(SystemExit) as info:
        main(["perft", "chess", "--depth", "1", "--fen", "8/8/8 w - - 0 1"])
    assert info.value.code == 2
    assert "bad FEN '8/8/8 w - - 0 1': expected 8 rows" in capsys.readouterr().err
