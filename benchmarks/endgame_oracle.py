"""The endgame database as an oracle: how often players throw a result away, whether they convert won
endings, how well the bundled networks' values know the truth, and how fast the database answers.

    python benchmarks/endgame_oracle.py --pieces 4                         # builds the 4-piece database if needed
    python benchmarks/endgame_oracle.py --pieces 5 --dir DIR --positions 500 --conversions 40

Positions with at most ``--pieces`` pieces (not finished, more than one legal move) are sampled from
two sources: the ACF archive (``acf``, shipped with the checkers game; real games) and self-play (``alphabeta``
depth 4 against itself from the 216 three-move ballots).  For each player and position the player
chooses a move; the move *throws the result away* when the database's result after it is worse for
the mover than before it (a win becomes a draw or a loss, a draw becomes a loss).  Then, from
``--conversions`` won positions, each player plays the winning side against perfect defence (the
database's longest resistance) under the rules of play (the 40-move rule and threefold repetition
draw): converted or not, and in how many plies compared to the shortest win.  The bundled AlphaZero
networks' values are compared with the truth (> 1/3 read as a win, < -1/3 as a loss, else a draw).
Probes per second: compiled lookups of random positions, and one Python call per position.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PLAYERS = ("alphabeta:eval=learned,depth=8,endgame=off", "alphabeta:eval=learned,depth=8,endgame={n}",
                   "mcts:simulations=1000,endgame=off", "mcts:simulations=1000,endgame={n}",
                   "alphazero:endgame=off", "alphazero:endgame={n}")
RANK = {"loss": 0, "draw": 1, "win": 2}


def throw_aways(player, oracle, game, fens: list[str]) -> dict:
    counts = {"positions": 0, "won": 0, "drawn": 0, "won_thrown": 0, "drawn_thrown": 0, "seconds": 0.0}
    for fen in fens:
        state = game.new_state(fen)
        truth, _ = oracle.result(state)
        if truth == "loss":
            continue
        player.reset()
        started = time.perf_counter()
        move = player.choose_move(state.clone())
        counts["seconds"] += time.perf_counter() - started
        counts["positions"] += 1
        key = "won" if truth == "win" else "drawn"
        counts[key] += 1
        if RANK[oracle.move_result(state, move)[0]] < RANK[truth]:
            counts[key + "_thrown"] += 1
    return counts


def conversions(player, oracle, game, fens: list[str]) -> dict:
    """Each won position played out by ``player`` against perfect defence."""
    out = {"positions": len(fens), "converted": 0, "extra_plies": 0, "failures": []}
    for fen in fens:
        state = game.new_state(fen)
        attacker = state.current_player()
        shortest = oracle.result(state)[1]
        player.reset()
        plies = 0
        while not state.is_terminal():
            if state.current_player() == attacker:
                move = player.choose_move(state.clone())
            else:
                move = oracle.perfect_moves(state)[0]
            state.apply(move)
            plies += 1
        if state.returns()[attacker] > 0:
            out["converted"] += 1
            out["extra_plies"] += plies - shortest
        else:
            out["failures"].append(f"{fen} ({state.outcome_reason()} after {plies} plies)")
    return out


def value_accuracy(model: Path, oracle, game, fens: list[str]) -> dict:
    from plyground.play.mistakes import value_verdicts
    from plyground.players.alphazero.networks import load_model
    network = load_model(model, game)
    states = [game.new_state(fen) for fen in fens]
    _, values = network.predict(np.stack([s.observation() for s in states]))
    truth = np.array([RANK[oracle.result(s)[0]] - 1 for s in states])
    guess = value_verdicts(values)
    result = {"positions": len(states), "accuracy": float(np.mean(guess == truth)),
              "mean_abs_error": float(np.mean(np.abs(np.asarray(values, dtype=float) - truth)))}
    for name, code in (("win", 1), ("draw", 0), ("loss", -1)):
        held = truth == code
        result[f"{name}_accuracy"] = float(np.mean(guess[held] == code)) if held.any() else None
        result[f"{name}_positions"] = int(held.sum())
    return result


def probe_speed(oracle, game, fens: list[str]) -> dict:
    from numba import njit

    from plyground.games.checkers.endgame import index, solve

    @njit(cache=False)
    def probe_random(db_offsets, db_sizes, result, dist, slices, count, seed):
        np.random.seed(seed)
        boards = np.zeros(4, dtype=np.int64)
        pos = np.zeros(7, dtype=np.int64)
        found = 0
        done = 0
        while done < count:
            s = slices[np.random.randint(slices.shape[0])]
            i = np.random.randint(db_sizes[s[0], s[1], s[2], s[3]])
            if not index.position_at(i, s[0], s[1], s[2], s[3], boards):
                continue
            pos[:4] = boards
            pos[4] = np.random.randint(2)
            r, d = solve.lookup(pos, db_offsets, db_sizes, result, dist)
            found += r == solve.WIN
            done += 1
        return found

    db = oracle.db
    slices = np.array(index.slices(db.pieces), dtype=np.int64)
    probe_random(db.offsets, db.sizes, db.result, db.dist, slices, 10, 0)            # compile
    count = 2_000_000
    started = time.perf_counter()
    probe_random(db.offsets, db.sizes, db.result, db.dist, slices, count, 1)
    compiled = count / (time.perf_counter() - started)
    positions = [oracle.position(game.new_state(fen)) for fen in fens] * max(1, 20_000 // max(1, len(fens)))
    started = time.perf_counter()
    for pos in positions:
        oracle.outcome(pos)
    python = len(positions) / (time.perf_counter() - started)
    return {"compiled_probes_per_second": compiled, "python_probes_per_second": python}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pieces", type=int, default=4)
    parser.add_argument("--dir", type=Path, default=None, help="database folder (default: the endgame folder)")
    parser.add_argument("--acf", default="acf", help="a PDN file, or acf: the ACF archive the checkers game ships")
    parser.add_argument("--acf-games", type=int, default=9377)
    parser.add_argument("--selfplay-games", type=int, default=216)
    parser.add_argument("--positions", type=int, default=300, help="positions sampled per source")
    parser.add_argument("--conversions", type=int, default=30, help="won positions played out per player")
    parser.add_argument("--player", action="append", default=None,
                        help="player spec ({n}: the number of pieces); default: alphabeta, mcts and alphazero, "
                             "each with and without the database")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)

    import os
    if args.dir is not None:
        os.environ["PLYGROUND_ENDGAME_DIR"] = str(args.dir)
    from plyground.games.checkers import CheckersGame
    from plyground.capabilities import endgame_oracle
    from plyground.registry import get_registry
    game = CheckersGame()
    oracle = endgame_oracle(game, str(args.pieces), log=lambda line: print(line, file=sys.stderr))
    rng = np.random.default_rng(args.seed)
    load = os.getloadavg()[0]
    print(f"database: {args.pieces} pieces in {oracle.directory}; load average {load:.2f}", flush=True)

    from plyground.games.checkers.endgame.positions import sample_positions
    started = time.perf_counter()
    sources = sample_positions(game, args.pieces, args.positions, args.seed, args.acf, args.acf_games,
                               args.selfplay_games, rng=rng,
                               log=lambda line: print(f"{line} ({time.perf_counter() - started:.0f} s)", flush=True))
    figures: dict = {"pieces": args.pieces, "load_average": load, "sources": {k: len(v) for k, v in sources.items()},
                     "players": {}, "networks": {}}

    won = [fen for fens in sources.values() for fen in fens
           if oracle.result(game.new_state(fen))[0] == "win"]
    won = [won[i] for i in rng.permutation(len(won))[:args.conversions]]
    specs = [s.format(n=args.pieces) for s in (args.player or DEFAULT_PLAYERS)]
    print(f"\n{'player':45s} {'source':9s} {'won':>5s} {'thrown':>7s} {'drawn':>6s} {'thrown':>7s} {'s/move':>7s}")
    for spec in specs:
        player = get_registry().make_player(spec, game)
        rows = figures["players"][spec] = {}
        for name, fens in sources.items():
            c = rows[name] = throw_aways(player, oracle, game, fens)
            share = lambda k: f"{c[k + '_thrown'] / c[k]:.1%}" if c[k] else "-"  # noqa: E731
            print(f"{spec:45s} {name:9s} {c['won']:5d} {share('won'):>7s} {c['drawn']:6d} {share('drawn'):>7s} "
                  f"{c['seconds'] / max(1, c['positions']):7.3f}", flush=True)
        conv = rows["conversion"] = conversions(player, oracle, game, won)
        extra = conv["extra_plies"] / conv["converted"] if conv["converted"] else 0.0
        print(f"{spec:45s} converts {conv['converted']}/{conv['positions']} won positions against perfect "
              f"defence (average {extra:.1f} plies beyond the shortest win)", flush=True)
        for failure in conv["failures"][:3]:
            print(f"    not converted: {failure}")

    print()
    for model in sorted((REPO / "players" / "alphazero" / "models").glob("checkers*.npz")):
        fens = [fen for fens in sources.values() for fen in fens]
        acc = figures["networks"][model.name] = value_accuracy(model, oracle, game, fens)
        print(f"network {model.name}: value right on {acc['accuracy']:.1%} of {acc['positions']} positions "
              f"(wins {acc['win_accuracy'] or 0:.1%} of {acc['win_positions']}, draws {acc['draw_accuracy'] or 0:.1%} "
              f"of {acc['draw_positions']}, losses {acc['loss_accuracy'] or 0:.1%} of {acc['loss_positions']}); "
              f"mean |value - truth| {acc['mean_abs_error']:.2f}")

    speed = figures["probes"] = probe_speed(oracle, game, [fen for fens in sources.values() for fen in fens])
    print(f"\nprobes: {speed['compiled_probes_per_second']:,.0f}/s compiled (random positions), "
          f"{speed['python_probes_per_second']:,.0f}/s one Python call each")
    print(f"total {time.perf_counter() - started:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
