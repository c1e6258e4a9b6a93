"""Strength of the learned evaluation: alpha-beta with it against alpha-beta with material only.

    python benchmarks/bonanza_strength.py --eval runs/bonanza/eval.npz                 # 432 games, depth 6
    python benchmarks/bonanza_strength.py --eval runs/bonanza/eval.npz --depth 8 --workers 2
    python benchmarks/bonanza_strength.py --eval runs/bonanza/eval.npz --opponent mcts:simulations=1000 --games 60
    python benchmarks/bonanza_strength.py --eval runs/bonanza/eval.npz --depth 8 --opponent alphazero --games 100

Every legal 3-ply opening of checkers (the 216 distinct positions three moves
reach: the "three-move ballots") is played twice with colours reversed, so
the default is 432 games; ``--games N`` plays the first N/2 openings of a
seeded shuffle.  Both sides search to the same depth (``--depth``) unless the
opponent spec says otherwise.  Games are played with
``plyground.play.match.play_game`` from the opening position, in ``--workers``
processes.  Acceptance (issue): the learned evaluation scores >= 60%.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import random
import sys
import time
from pathlib import Path

from plyground.play.match import play_game
from plyground.options import Spec
from plyground.play.stats import Score

_PLAYERS: tuple | None = None
_GAME = None


def make_game():
    from plyground.games.checkers import CheckersGame
    return CheckersGame()


def make_player(spec_text: str, game):
    """A player from a spec, by class (works before the plugins are registered as entry points)."""
    spec = Spec.parse(spec_text)
    classes = {}
    from plyground.players.alphabeta import AlphaBetaPlayer
    from plyground.players.mcts import MCTSPlayer
    from plyground.players.random_player import RandomPlayer
    for cls in (AlphaBetaPlayer, MCTSPlayer, RandomPlayer):
        classes[cls.name] = cls
    try:
        from plyground.players.alphazero.plugin import register_players
        for cls in register_players():
            classes[cls.name] = cls
    except ImportError:          # the AlphaZero player is not there (yet)
        pass
    if spec.name in classes:
        return classes[spec.name](game, **spec.options)
    from plyground.registry import get_registry
    return get_registry().make_player(spec, game)


def three_ply_openings(game) -> list[list[str]]:
    """Every distinct position 3 legal moves from the start, as the first move sequence reaching it."""
    seen, found = set(), []
    state = game.new_initial_state()

    def walk(path):
        if len(path) == 3:
            if state.to_text() not in seen:
                seen.add(state.to_text())
                found.append(list(path))
            return
        for move in state.legal_moves():
            path.append(state.move_to_text(move))
            state.apply(move)
            walk(path)
            state.undo()
            path.pop()

    walk([])
    return found


def _init(spec_a: str, spec_b: str) -> None:
    global _PLAYERS, _GAME
    _GAME = make_game()
    _PLAYERS = (make_player(spec_a, _GAME), make_player(spec_b, _GAME))


def _play(task):
    index, opening, a_first, max_plies = task
    game = _GAME
    a, b = _PLAYERS
    start = game.new_initial_state()
    for text in opening:
        start.apply(start.parse_move(text))
    players = [a, b] if a_first else [b, a]
    record = play_game(game, players, start=start, names=("A", "B") if a_first else ("B", "A"),
                       max_plies=max_plies, seed=index)
    a_side = 0 if a_first else 1
    score = record.score(a_side) if record.finished else None
    return {"index": index, "opening": " ".join(opening), "a_first": a_first, "score": score,
            "result": record.result_text, "reason": record.reason, "plies": len(record.moves),
            "moves": record.moves, "seconds": float(record.tags.get("Seconds", 0))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval", required=True, help="learned weights (DIR/eval.npz from `plyground train bonanza`)")
    parser.add_argument("--depth", type=int, default=6, help="search depth of both alpha-beta players")
    parser.add_argument("--player", default=None, help="spec of the player under test "
                        "(default alphabeta:eval=EVAL,depth=DEPTH,book=none)")
    parser.add_argument("--opponent", default="material", help="'material' (alphabeta:depth=DEPTH,book=none) or "
                        "any player spec, e.g. mcts:simulations=1000")
    parser.add_argument("--games", type=int, default=None, help="games to play (even; default: every opening twice)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-plies", type=int, default=400, help="adjudicate a draw after this many plies")
    parser.add_argument("--seed", type=int, default=1, help="shuffles the openings when --games is smaller")
    parser.add_argument("--json", type=Path, default=None, help="write every game's result here")
    args = parser.parse_args()

    # From set openings: no opening book (it would play on from them instead of the evaluations under test).
    spec_a = args.player or f"alphabeta:eval={args.eval},depth={args.depth},book=none"
    spec_b = f"alphabeta:depth={args.depth},book=none" if args.opponent == "material" else args.opponent
    game = make_game()
    make_player(spec_a, game), make_player(spec_b, game)          # fail early on bad specs or files
    openings = three_ply_openings(game)
    random.Random(args.seed).shuffle(openings)
    total = args.games or 2 * len(openings)
    if total % 2 or total > 2 * len(openings):
        sys.exit(f"--games must be even and at most {2 * len(openings)}")
    tasks = [(i, openings[i // 2], i % 2 == 0, args.max_plies) for i in range(total)]
    print(f"A = {spec_a}\nB = {spec_b}\n{len(openings)} three-move openings; {total} games, each opening twice "
          f"with colours reversed; {args.workers} worker(s)", flush=True)
    started = time.perf_counter()
    results = []
    w = d = l = 0
    with mp.get_context("fork").Pool(args.workers, initializer=_init, initargs=(spec_a, spec_b)) as pool:
        for result in pool.imap_unordered(_play, tasks):
            results.append(result)
            s = result["score"]
            w, d, l = w + (s == 1.0), d + (s == 0.5), l + (s == 0.0)
            done = len(results)
            if done % 20 == 0 or done == total:
                elapsed = time.perf_counter() - started
                print(f"  {done}/{total} games: A {w} W / {d} D / {l} L, score {(w + d / 2) / max(1, w + d + l):.1%}; "
                      f"{elapsed:.0f} s, ETA {elapsed / done * (total - done):.0f} s", flush=True)
    score = Score(w, d, l)
    lo, hi = score.interval()
    unfinished = sum(r["score"] is None for r in results)
    print(f"\nA vs B over {score.games} games: {w} wins, {d} draws, {l} losses; score {score.score:.1%} "
          f"(95% interval {lo:.1%} to {hi:.1%}), Elo {score.elo():+.0f}"
          + (f"; {unfinished} unfinished" if unfinished else ""))
    as_black = [r["score"] for r in results if r["a_first"] and r["score"] is not None]
    as_white = [r["score"] for r in results if not r["a_first"] and r["score"] is not None]
    print(f"A as Black {sum(as_black) / max(1, len(as_black)):.1%}, as White {sum(as_white) / max(1, len(as_white)):.1%}; "
          f"mean game length {sum(r['plies'] for r in results) / len(results):.0f} plies; "
          f"wall time {time.perf_counter() - started:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({"a": spec_a, "b": spec_b, "wins": w, "draws": d, "losses": l,
                                         "score": score.score, "interval": [lo, hi],
                                         "games": sorted(results, key=lambda r: r["index"])}, indent=1))


if __name__ == "__main__":
    main()
