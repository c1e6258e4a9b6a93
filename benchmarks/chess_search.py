"""The compiled chess alpha-beta search (games/chess/alphabeta): nodes per second and depth reached, beside
python-chess's move generation on the same positions.

    python benchmarks/chess_search.py                      # 1 s a position, the 7 perft positions and 5 more
    python benchmarks/chess_search.py --seconds 0.2        # a quick run

For each position the ``alphabeta`` player searches for ``--seconds`` (iterative
deepening, material evaluation unless ``--eval``) and the line shows the depth
finished, the nodes (every node the search visits, quiescence included) and
nodes per second.  The reference is python-chess at what a search needs most:
generating the legal moves of a position and playing one (push + pop), in
positions per second over the same positions' subtrees.  Single-threaded;
prints measurements, asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import time

import chess

from plyground.games.chess.game import ChessGame
from plyground.players.alphabeta.player import AlphaBetaPlayer

POSITIONS = {
    "initial": chess.STARTING_FEN,
    "kiwipete": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "position 3": "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "position 4": "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "position 5": "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "position 6": "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "italian": "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "queen's gambit": "rnbqkb1r/ppp2ppp/4pn2/3p4/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 2 4",
    "sicilian": "r1bqkb1r/pp2pppp/2np1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 2 6",
    "rook ending": "8/5pk1/6p1/8/3R4/6P1/5PK1/r7 w - - 0 1",
    "pawn ending": "8/8/4k3/3p4/3P4/4K3/8/8 w - - 0 1",
    "mate in 2": "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10",
}


def python_chess_rate(fen: str, seconds: float) -> float:
    """Positions a second python-chess handles the way a search does: list the legal moves, play each and
    take it back, one ply down from the position, repeated for ``seconds``."""
    board = chess.Board(fen)
    done = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        for move in list(board.legal_moves):
            board.push(move)
            list(board.legal_moves)
            board.pop()
            done += 1
    return done / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="search time a position (default 1)")
    parser.add_argument("--eval", default="material", help="the alphabeta player's eval option")
    args = parser.parse_args()
    game = ChessGame()
    player = AlphaBetaPlayer(game, depth=64, seconds=args.seconds, eval=args.eval)
    player.choose_move(game.new_initial_state())           # compile (or load) the kernels first
    print(f"compiled chess alpha-beta, eval={args.eval}, {args.seconds:g} s a position; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'position':16s} {'depth':>5s} {'nodes':>10s} {'nodes/s':>10s} {'python-chess pos/s':>19s} "
          f"{'ratio':>6s}  best move, score")
    total_nodes = total_seconds = 0.0
    rates = []
    for name, fen in POSITIONS.items():
        state = game.new_state(fen)
        player.reset()
        started = time.perf_counter()
        move = player.choose_move(state)
        spent = time.perf_counter() - started
        a = player.analysis()
        nps = a["nodes"] / spent
        reference = python_chess_rate(fen, min(args.seconds, 0.5))
        rates.append(nps / reference)
        total_nodes += a["nodes"]
        total_seconds += spent
        print(f"{name:16s} {a['depth']:5d} {a['nodes']:10,d} {nps:10,.0f} {reference:19,.0f} {nps / reference:5.0f}x"
              f"  {state.move_to_text(move)}, {a['score']}")
    print(f"{'all':16s} {'':5s} {int(total_nodes):10,d} {total_nodes / total_seconds:10,.0f} "
          f"{'':19s} {sorted(rates)[len(rates) // 2]:5.0f}x (median)")


if __name__ == "__main__":
    main()
