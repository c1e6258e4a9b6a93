"""The NNUE against the linear evaluation at equal time: #54's matches.

    python benchmarks/nnue_strength.py --eval nnue                                   # 200 games at 0.1 s, 50 at 1 s
    python benchmarks/nnue_strength.py --eval docs/nnue/checkers-run/best.npz --match 0.1:40
    python benchmarks/nnue_strength.py --eval nnue --search reduced --match 0.1:200
    python benchmarks/nnue_strength.py --eval nnue --options contempt=0 --match 0.1:100     # no contempt

The opponent is today's engine as #54 names it: the linear evaluation
(``eval=learned``) in the exact search (``search=exact``) with a draw worth 0
(``contempt=0``): what ``alphabeta`` on checkers was when the issue was filed.

Each match is a ``plyground tournament`` gauntlet (its command is printed):
the 2-ply openings of checkers (49), each played twice with colours
reversed, cycling when the match has more games; both players search as
deep as the time allows (depth 64).  Results directories resume, so an
interrupted match continues where it stopped.  Prints each match's score with
its 95% interval and the load average, side by side.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from plyground.plugins.trainers.nnue.trainer import SEARCH_AS_TODAY, TODAY
from plyground.play.stats import Score
from plyground.tournament.config import Entrant, TournamentConfig
from plyground.tournament.openings import choose_openings
from plyground.tournament.runner import run_tournament


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval", default="nnue", help="the NNUE under test: 'nnue' (bundled) or a network file")
    parser.add_argument("--search", default="auto", help="the NNUE side's search mode (alphabeta's search option)")
    parser.add_argument("--options", default="",
                        help="more alphabeta options for the NNUE side, comma-separated (e.g. contempt=0)")
    parser.add_argument("--opponent", default=f"alphabeta:eval={TODAY},{SEARCH_AS_TODAY}",
                        help="the opponent's spec (default: today's engine, as the nnue trainer's matches name it)")
    parser.add_argument("--match", action="append", default=None, metavar="SECONDS:GAMES",
                        help="a match: seconds a move and games (repeatable; default 0.1:200 and 1:50)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs/nnue-strength"))
    args = parser.parse_args()
    matches = [(float(s), int(g)) for s, g in (m.split(":") for m in (args.match or ["0.1:200", "1:50"]))]

    from plyground.games.checkers import CheckersGame
    game = CheckersGame()
    # From set openings: no opening book on either side (SEARCH_AS_TODAY says book=none for the opponent).
    player = f"alphabeta:eval={args.eval},depth=64,search={args.search},book=none" + \
        (f",{args.options}" if args.options else "")
    rows = []
    for seconds, games in matches:
        config = TournamentConfig(game="checkers", entrants=[Entrant("nnue", player), Entrant("opponent", args.opponent)],
                                  games_per_pairing=games, format="gauntlet",
                                  openings=choose_openings(game, "2-ply", args.seed), openings_source="2-ply",
                                  seconds=seconds, seed=args.seed)
        out = args.out / f"{config.fingerprint()[:12]}"
        print(f"plyground tournament --game checkers --format gauntlet -p nnue={player} -p opponent={args.opponent} "
              f"--openings 2-ply -n {games} --seconds {seconds} --seed {args.seed} --workers {args.workers} --out {out}",
              flush=True)
        started = time.perf_counter()

        def progress(p) -> None:
            if p.done % 10 == 0 or p.done == p.total:
                print(f"  {p.done}/{p.total} games; ETA {p.eta or 0:.0f} s", flush=True)

        run = run_tournament(config, out, workers=args.workers, on_game=progress)
        points = [r.score_a for r in run.results if r.score_a is not None]
        score = Score(points.count(1.0), points.count(0.5), points.count(0.0))
        rows.append((seconds, score, len(run.results) - len(points), time.perf_counter() - started,
                     os.getloadavg()[0]))
    print(f"\nnnue = {player}\nopponent = {args.opponent}")
    print(f"{'s/move':>7} {'games':>6} {'W':>4} {'D':>4} {'L':>4} {'score':>7} {'95% interval':>15} {'Elo':>6}  "
          f"{'wall':>7}  load")
    for seconds, score, unfinished, wall, load in rows:
        lo, hi = score.interval()
        print(f"{seconds:>7} {score.games:>6} {score.wins:>4} {score.draws:>4} {score.losses:>4} {score.score:>7.1%} "
              f"{lo:>7.1%}-{hi:<7.1%} {score.elo():>+6.0f}  {wall:>6.0f}s  {load:.2f}"
              + (f"  ({unfinished} unfinished)" if unfinished else ""))


if __name__ == "__main__":
    main()
