"""Does the tic-tac-toe recipe never lose whatever its seed?  The documented config trained with several seeds.

    python benchmarks/alphazero_tictactoe_seeds.py                      # seeds 0-9, two at a time
    python benchmarks/alphazero_tictactoe_seeds.py --seeds 0-4 --set random_opening_share=0.25
    python benchmarks/alphazero_tictactoe_seeds.py --simulations 64,128,200 --keep runs/ttt-seeds

The test suite trains ``configs/alphazero-tictactoe.toml`` once, with the
seed the config names, and asserts that the network never loses to a perfect
player (``tests/alphazero/test_alphazero_tictactoe_training.py``).  One seed
can pass by luck, so this trains the same config with each seed of
``--seeds`` (``--set seed=N``, one worker each, as the test does; ``--set``
changes other options too) and plays the test's games with each network:
100 as X and 100 as O against a perfect player choosing at random among its
best moves, at each budget of ``--simulations`` (the test's 64 by default;
the ``alphazero`` player's default is 200).  It prints each network's losses
as X / as O per budget and the totals; a recipe is robust at a budget when
its column is all 0/0.  About 20 s of CPU a training; the games take about a second a budget.

With ``--keep DIR`` the runs stay in DIR (``seed-N``); a run already there
is resumed by the trainer, so a finished one is only played again (say at
other budgets).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
CONFIG = ROOT / "configs" / "alphazero-tictactoe.toml"
GAMES = 100         # a side, as the test


def numbers(text: str, *, ranges: bool) -> list[int]:
    out = []
    for part in text.split(","):
        first, _, last = part.partition("-") if ranges else (part, "", "")
        try:
            out.extend(range(int(first), int(last or first) + 1))
        except ValueError:
            example = "0-9 or 0,3,5-7" if ranges else "64 or 64,128,200"
            raise argparse.ArgumentTypeError(f"{text!r} is not valid: expected numbers such as {example}") from None
    if not out:
        raise argparse.ArgumentTypeError(f"{text!r} names none: a range goes from low to high, such as 0-9")
    if min(out) < (0 if ranges else 1):
        raise argparse.ArgumentTypeError(f"{text!r} is not valid: expected numbers of at least {0 if ranges else 1}")
    return out


def train_and_play(job: tuple[int, list[str], str, list[int]]) -> tuple[int, list[tuple[int, int]], float]:
    """Train with ``seed`` (and the ``--set`` options) into ``folder``, play at each budget; (seed, [(losses as
    X, as O) a budget], training CPU seconds)."""
    seed, sets, folder, budgets = job
    from plyground.cli import main
    from plyground.games.tictactoe import TicTacToe
    from plyground.play.match import play_game
    from plyground.players.alphazero import AlphaZeroPlayer
    from testgames import PerfectTicTacToe

    run = Path(folder) / f"seed-{seed}"
    started = time.process_time()
    options = [word for value in [f"seed={seed}", *sets] for word in ("--set", value)]
    try:
        with contextlib.redirect_stdout(io.StringIO()):     # where the network went: we know
            main(["train", "alphazero", "--run", str(run), "--config", str(CONFIG), "--quiet", "--workers", "1",
                  *options])
    except SystemExit as exc:
        if exc.code:
            raise RuntimeError(f"training with seed {seed} failed (exit {exc.code})") from None
    cpu = time.process_time() - started
    game = TicTacToe()
    results = []
    for simulations in budgets:
        losses = []
        for side in (0, 1):     # the test's games
            players = [PerfectTicTacToe(game)] * 2
            players[side] = AlphaZeroPlayer(game, model=run, simulations=simulations)
            losses.append(sum(play_game(game, players, seed=7000 + 1000 * side + i).score(side) == 0.0
                              for i in range(GAMES)))
        results.append((losses[0], losses[1]))
    return seed, results, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=lambda text: numbers(text, ranges=True), default=list(range(10)),
                        help="training seeds (default 0-9)")
    parser.add_argument("--simulations", type=lambda text: numbers(text, ranges=False), default=[64],
                        help="simulations a move in the games, one or more budgets (default 64, the test's)")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                        help="another config option for every run (repeatable)")
    parser.add_argument("--workers", type=int, default=2, help="runs at once (default 2)")
    parser.add_argument("--keep", type=Path, help="keep the runs in this folder (default: a temporary one)")
    args = parser.parse_args()
    if args.workers < 1:
        parser.error(f"--workers {args.workers} is not valid: expected 1 or more")
    for value in args.sets:
        if "=" not in value:
            parser.error(f"--set {value!r} is not valid: expected KEY=VALUE")
    if args.keep is not None and args.keep.exists() and not args.keep.is_dir():
        parser.error(f"--keep {args.keep} is not a folder")
    with tempfile.TemporaryDirectory(prefix="ttt-seeds-") as scratch:
        folder = str(args.keep or scratch)
        print(f"config {CONFIG.relative_to(ROOT)}{''.join(' --set ' + s for s in args.sets)}; {GAMES} games a side "
              f"against a perfect player; losses as X/O", flush=True)
        print("seed  " + "".join(f"{f'{n} sims':>10}" for n in args.simulations) + "  training CPU s", flush=True)
        totals = [[0, 0, 0] for _ in args.simulations]      # X losses, O losses, networks that lost
        jobs = [(seed, args.sets, folder, args.simulations) for seed in args.seeds]
        context = multiprocessing.get_context("spawn")
        with context.Pool(min(args.workers, len(jobs))) as pool:
            for seed, results, cpu in pool.imap(train_and_play, jobs):
                for total, (x, o) in zip(totals, results):
                    total[0] += x
                    total[1] += o
                    total[2] += bool(x or o)
                print(f"{seed:4d}  " + "".join(f"{f'{x}/{o}':>10}" for x, o in results) + f"  {cpu:14.1f}", flush=True)
        print("all   " + "".join(f"{f'{x}/{o}':>10}" for x, o, _ in totals))
        print("lost  " + "".join(f"{f'{lost} of {len(jobs)}':>10}" for _, _, lost in totals) + "  (networks that lost "
              "a game)")


if __name__ == "__main__":
    main()
