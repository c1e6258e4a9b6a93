"""A chess player's rating on Stockfish's calibrated scale: matches against ``stockfish:elo=N`` levels.

    python benchmarks/chess_stockfish_ladder.py --openings ../shared/data/chess-masters.pgn
    python benchmarks/chess_stockfish_ladder.py --player alphabeta:eval=material --levels 1350 1500 1800 \\
        --openings ../shared/data/chess-masters.pgn --out runs/chess-ladder-material

Stockfish's weakened mode (``UCI_LimitStrength`` with ``UCI_Elo``) is calibrated
against real ratings; each level is one ``plyground match`` (printed before it
runs, with ``--out`` so that an interrupted ladder resumes where it stopped and
a finished one is only reported).  Every level plays the same openings (the
same file, plies and seed).  At the end: each level's score and the Elo
difference it implies, and the player's rating fitted to all levels together
(maximum likelihood of the Elo model, draws as half points) with its 95%
likelihood-ratio interval: the level at which the player would score 50%.

The default is the acceptance ladder of the chess engine (docs/chess.md): the
bundled learned evaluation at 1 s a move, 40 games a level.  About 35 minutes a
level on two cores; Stockfish must be installed (``apt install stockfish``).
"""
from __future__ import annotations

import argparse
import math
import os
import shlex
import sys
from pathlib import Path

from plyground.play.ratings import expected_score
from plyground.play.stats import elo_from_score
from plyground.tournament.store import load_results

#: Where UCI_Elo can be set (Stockfish 15-16); plyground checks the engine's own range when a match starts.
DEFAULT_LEVELS = (1600, 1800, 2000)


def match_args(player: str, level: int, args: argparse.Namespace, out: Path) -> list[str]:
    argv = ["match", "--game", "chess", "--first", player, "--second", f"stockfish:elo={level}",
            "--seconds", str(args.seconds), "-n", str(args.games), "--workers", str(args.workers),
            "--seed", str(args.seed), "--out", str(out)]
    if args.openings:
        argv += ["--openings", args.openings, "--opening-plies", str(args.opening_plies)]
    return argv


def level_score(out: Path) -> tuple[int, int, int]:
    """Wins, draws and losses of the match's first player (the one rated) in its results folder; a game
    left unfinished (an engine that failed) is not counted."""
    _, results = load_results(out)
    scores = [result.score_a for result in results if result.score_a is not None]
    return scores.count(1.0), scores.count(0.5), scores.count(0.0)


def log_likelihood(rating: float, levels: dict[int, tuple[int, int, int]]) -> float:
    total = 0.0
    for level, (w, d, l) in levels.items():
        p = expected_score(rating - level)
        total += (w + d / 2) * math.log(p) + (l + d / 2) * math.log(1 - p)
    return total


def fit(levels: dict[int, tuple[int, int, int]]) -> tuple[float, float, float]:
    """The maximum-likelihood rating and its 95% likelihood-ratio interval (log-likelihood within 1.92),
    on a 1-Elo grid wide enough for any score that is not all wins or all losses."""
    grid = [float(r) for r in range(min(levels) - 1200, max(levels) + 1201)]
    values = [log_likelihood(r, levels) for r in grid]
    best = max(range(len(grid)), key=values.__getitem__)
    inside = [grid[i] for i, v in enumerate(values) if values[best] - v < 1.92]
    return grid[best], inside[0], inside[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="alphabeta:eval=learned", help="the chess player's spec")
    parser.add_argument("--levels", type=int, nargs="+", default=list(DEFAULT_LEVELS),
                        help=f"UCI_Elo levels to play (default: {' '.join(map(str, DEFAULT_LEVELS))})")
    parser.add_argument("--games", type=int, default=40, help="games a level (default: 40)")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds a move, both sides (default: 1)")
    parser.add_argument("--openings", default=None,
                        help="a PGN file of games whose first plies are the openings (default: none)")
    parser.add_argument("--opening-plies", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="games at once (default: the cores)")
    parser.add_argument("--out", type=Path, default=Path("runs/chess-ladder"),
                        help="parent of one results folder a level (default: runs/chess-ladder)")
    args = parser.parse_args()
    if args.games < 1 or args.seconds <= 0 or args.opening_plies < 1:
        parser.error("--games and --opening-plies must be at least 1 and --seconds above 0")

    from plyground.cli import main as plyground
    scores: dict[int, tuple[int, int, int]] = {}
    for level in sorted(set(args.levels)):
        out = args.out / f"stockfish-{level}"
        argv = match_args(args.player, level, args, out)
        print(f"$ plyground {shlex.join(argv)}", flush=True)
        try:
            plyground(argv)
        except SystemExit as exc:
            if exc.code:
                return int(exc.code) if isinstance(exc.code, int) else 1
        scores[level] = level_score(out)

    print(f"\n{args.player} at {args.seconds:g} s a move against Stockfish's UCI_Elo levels")
    print(f"{'level':>6} {'games':>6} {'W-D-L':>10} {'score':>7} {'Elo diff':>9} {'performance':>12}")
    for level, (w, d, l) in scores.items():
        n = w + d + l
        score = (w + d / 2) / n
        diff = elo_from_score(score)
        shown = f"{diff:+.0f}" if math.isfinite(diff) else ("+inf" if diff > 0 else "-inf")
        perf = f"{level + diff:.0f}" if math.isfinite(diff) else "-"
        print(f"{level:>6} {n:>6} {f'{w}-{d}-{l}':>10} {score:>7.1%} {shown:>9} {perf:>12}")
    points = [(w + d / 2) for w, d, l in scores.values()]
    games = [sum(s) for s in scores.values()]
    if all(p == 0 for p in points) or all(p == g for p, g in zip(points, games)):
        print("every game was lost (or every game won): no rating to fit; add a level below (above)")
        return 0
    rating, low, high = fit(scores)
    print(f"fitted rating: {rating:.0f} (95% interval {low:.0f} to {high:.0f}): the UCI_Elo level at which "
          f"{args.player} scores 50%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
