"""Strength matches of the mcts player on checkers (too long for the unit tests).

    python benchmarks/mcts_strength.py                    # both matches, 100 games each
    python benchmarks/mcts_strength.py --match random --games 20
    python benchmarks/mcts_strength.py --match self --strong 4000 --weak 1000

Matches alternate colours.  Acceptance: MCTS-1000 beats ``random`` in every
game; MCTS-4000 scores at least 65% against MCTS-1000.
"""
from __future__ import annotations

import argparse
import time

from plyground.players.mcts import MCTSPlayer
from plyground.players.random_player import RandomPlayer
from plyground.play.session import run_match


def make_checkers():
    try:
        from plyground.registry import get_registry
        return get_registry().make_game("checkers")
    except Exception:  # noqa: BLE001 - not registered yet: import it directly
        from plyground.games.checkers import CheckersGame
        return CheckersGame()


def play(game, a, b, names, games: int, seed: int, verbose: bool) -> None:
    started = time.perf_counter()

    def progress(i, record):
        if verbose:
            a_first = i % 2 == 0
            side = 0 if a_first else 1
            print(f"  game {i + 1:3d}: {names[0]} as {game.side_names[side]:5s} "
                  f"{['lost', 'drew', 'won'][int(record.score(side) * 2)]:4s} "
                  f"{record.result_text:7s} in {len(record.moves):3d} plies ({record.reason})", flush=True)

    result = run_match(game, a, b, games, names=names, seed=seed, on_game=progress)
    s = result.score
    print(result.summary())
    print(f"  W/D/L {s.wins}/{s.draws}/{s.losses}, score {s.score:.1%}, "
          f"{time.perf_counter() - started:.0f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--match", choices=("random", "self", "all"), default="all")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--weak", type=int, default=1000, help="simulations of the weaker mcts")
    parser.add_argument("--strong", type=int, default=4000, help="simulations of the stronger mcts")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quiet", action="store_true", help="only the summaries")
    args = parser.parse_args()
    game = make_checkers()
    if args.match in ("random", "all"):
        weak = MCTSPlayer(game, simulations=args.weak)
        play(game, weak, RandomPlayer(game), (f"mcts-{args.weak}", "random"), args.games, args.seed,
             not args.quiet)
    if args.match in ("self", "all"):
        strong = MCTSPlayer(game, simulations=args.strong)
        weak = MCTSPlayer(game, simulations=args.weak)
        play(game, strong, weak, (f"mcts-{args.strong}", f"mcts-{args.weak}"), args.games, args.seed,
             not args.quiet)


if __name__ == "__main__":
    main()
