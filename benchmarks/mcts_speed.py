"""Simulations per second of the mcts player, and where the time goes.

    python benchmarks/mcts_speed.py                      # checkers start, then tic-tac-toe
    python benchmarks/mcts_speed.py --game checkers --position "<position text>" --simulations 200000
    python benchmarks/mcts_speed.py --generic            # also time the Python-API search
    python benchmarks/mcts_speed.py --game connect-four  # any installed game with kernels (examples/connect-four)

Single-threaded, one random playout per simulation, a fresh tree per run.  The
profile comes from a separately compiled build of the same loop that reads the
CPU cycle counter around selection, expansion, playout and backup; a timing
variant (playouts alone from the start position) cross-checks the playout share.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from numba import njit

from plyground.players.mcts import MCTSPlayer
from plyground.players.search.uct_compiled import FastSearch
from plyground.players.search.kernel_playout import compiled_playout
from plyground.protocols import Budget


def make_game(name: str):
    try:
        from plyground.registry import get_registry
        return get_registry().make_game(name)
    except Exception:  # noqa: BLE001 - the registry may not list it yet; import it directly
        if name == "checkers":
            from plyground.games.checkers import CheckersGame
            return CheckersGame()
        if name == "tictactoe":
            from plyground.games.tictactoe import TicTacToe
            return TicTacToe()
        raise


@njit
def _playouts(playout, root_pos, n, max_plies):
    pos = np.empty_like(root_pos)
    total = 0
    for _ in range(n):
        pos[:] = root_pos
        total += playout(pos, max_plies)
    return total


def bench(game_name: str, position: str | None, simulations: int, repeats: int, generic: bool) -> None:
    game = make_game(game_name)
    state = game.new_state(position) if position else game.new_initial_state()
    print(f"== {game_name}: {state.to_text()}")
    player = MCTSPlayer(game, simulations=simulations, reuse=False, seed=1)
    t = time.perf_counter()
    player.choose_move(state.clone(), Budget(simulations=1))   # compiles (or loads) the search loop
    print(f"compile + first call (one-off per process): {time.perf_counter() - t:.2f} s  "
          f"[engine: {player.engine_kind}]")
    rates = []
    for i in range(repeats):
        player.reset(i)
        player.choose_move(state.clone(), Budget())
        info = player.analysis()
        rates.append(info["simulations"] / info["seconds"])
        print(f"  run {i + 1}: {info['simulations']:,} simulations in {info['seconds']:.3f} s = "
              f"{rates[-1]:,.0f} sims/s  ({info['nodes']:,} nodes)")
    print(f"simulations per second: median {statistics.median(rates):,.0f}, best {max(rates):,.0f}")

    kernels = game.kernels()
    if kernels is not None and player.engine_kind == "fast":
        cfg = player.config
        search = FastSearch(kernels, cfg["c"], 1, cfg["solver"], cfg["max_playout_plies"], profile=True)
        search.warm_up()
        search.set_root(state, reuse=False)
        search.seed(1)
        t = time.perf_counter()
        done = search.run(simulations)
        elapsed = time.perf_counter() - t
        share = search.cycles / max(1, search.cycles.sum())
        print(f"profile (cycle counters, {done:,} simulations, {done / elapsed:,.0f} sims/s with timing on): "
              + ", ".join(f"{name} {s:.1%}" for name, s in
                          zip(("selection", "expansion", "playout", "backup"), share)))
        root = np.ascontiguousarray(kernels.state_to_pos(state), dtype=np.int64)
        _playouts(compiled_playout(kernels), root, 10, cfg["max_playout_plies"])
        n = max(1000, simulations // 2)
        t = time.perf_counter()
        _playouts(compiled_playout(kernels), root, n, cfg["max_playout_plies"])
        per_playout = (time.perf_counter() - t) / n
        per_sim = 1.0 / statistics.median(rates)
        print(f"timing variant: playouts alone from this position {1 / per_playout:,.0f}/s, i.e. "
              f"{per_playout / per_sim:.0%} of a simulation's time (leaf playouts are a little shorter)")

    if generic:
        slow = MCTSPlayer(game, simulations=max(200, simulations // 100), reuse=False, seed=1, kernels=False)
        slow.choose_move(state.clone(), Budget())
        info = slow.analysis()
        print(f"generic Python-API search: {info['simulations']:,} simulations in {info['seconds']:.2f} s = "
              f"{info['simulations'] / info['seconds']:,.0f} sims/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="checkers (default, then tictactoe) or any game name")
    parser.add_argument("--position", help="position text (the game's own notation); default: the start")
    parser.add_argument("--simulations", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--generic", action="store_true", help="also time the generic Python search")
    args = parser.parse_args()
    for name in args.game or ["checkers", "tictactoe"]:
        bench(name, args.position, args.simulations, args.repeats, args.generic)


if __name__ == "__main__":
    main()
