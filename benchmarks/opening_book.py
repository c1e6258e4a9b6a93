"""alphabeta with its opening book against the same engine without it, from the initial position (issue #74 point 5).

    python benchmarks/opening_book.py                                     # 200 games at 0.1 s a move, 2 workers
    python benchmarks/opening_book.py --games 20 --seconds 0.1            # a smoke run
    python benchmarks/opening_book.py --options eval=learned,search=exact --book runs/my-book.npz

Both players are ``alphabeta`` with the same options (``--options``; default:
its defaults, eval=nnue on checkers); one has ``book=auto`` (the bundled book)
or ``book=PATH``, the other ``book=none``.  Every game starts from the
initial position -- no set openings, so the book is in play -- with colours
alternating; the book side draws its moves among the book's moves with each
game's own seed, so games differ.  The match is a ``plyground match`` (its
command is printed; ``--out`` resumes).  Prints the book side's score with
its 95% interval and Elo, how many plies the book played in its games on
average, the distinct games, and the load average.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from plyground.play.book import open_book
from plyground.registry import get_registry
from plyground.play.stats import Score
from plyground.tournament.config import Entrant, TournamentConfig
from plyground.tournament.runner import run_tournament


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="checkers")
    parser.add_argument("--book", default="auto", help="the book side's book: auto (the bundled one) or a book file")
    parser.add_argument("--options", default="", help="alphabeta options for both sides, comma-separated")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=0.1, help="seconds a move")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs/opening-book"))
    args = parser.parse_args()

    game = get_registry().make_game(args.game)
    book = open_book(game, args.book, "--book")
    if book is None:
        parser.error(f"--book {args.book}: {args.game} has no such book")
    extra = f",{args.options}" if args.options else ""
    with_book, without = f"alphabeta:book={args.book}{extra}", f"alphabeta:book=none{extra}"
    config = TournamentConfig(game=args.game, entrants=[Entrant("book", with_book), Entrant("no-book", without)],
                              games_per_pairing=args.games, seconds=args.seconds, seed=args.seed)
    out = args.out / config.fingerprint()[:12]
    print(f"plyground match --game {args.game} --black {with_book} --white {without} -n {args.games} "
          f"--seconds {args.seconds} --seed {args.seed} --workers {args.workers} --out {out}", flush=True)
    started = time.perf_counter()

    def progress(p) -> None:
        if p.done % 10 == 0 or p.done == p.total:
            print(f"  {p.done}/{p.total} games; ETA {p.eta or 0:.0f} s", flush=True)

    run = run_tournament(config, out, workers=args.workers, on_game=progress)
    wall = time.perf_counter() - started
    points = [r.score_a for r in run.results if r.score_a is not None]
    score = Score(points.count(1.0), points.count(0.5), points.count(0.0))
    book_plies = [_book_plies(game, book, r.record.moves, 0 if r.a_first else 1) for r in run.results]
    lo, hi = score.interval()
    print(f"\nbook    = {with_book}\nno book = {without}\n{args.seconds} s a move, from the initial position")
    print(f"{score.games} games: {score.wins} wins, {score.draws} draws, {score.losses} losses for the book side: "
          f"{score.score:.1%} (95% interval {lo:.1%} to {hi:.1%}), Elo {score.elo():+.0f}")
    print(f"the book side's moves from its book: {sum(book_plies) / max(1, len(book_plies)):.1f} a game on average; "
          f"{len({tuple(r.record.moves) for r in run.results})} distinct games of {len(run.results)}; "
          f"{wall:.0f} s wall, load average {os.getloadavg()[0]:.2f} at the end")


def _book_plies(game, book, moves: list[str], side: int) -> int:
    """How many of ``side``'s moves in the game were book moves: played while the position was in the book,
    until the game first left it."""
    state, count = game.new_initial_state(), 0
    for text in moves:
        entries = book.moves(state)
        if not entries or text not in {e.move for e in entries}:
            break
        if state.current_player() == side and len(state.legal_moves()) > 1:
            count += 1
        state.apply(state.parse_move(text))
    return count


if __name__ == "__main__":
    main()
