"""Gumbel root search against PUCT at equal simulation budgets (the bundled models).

    python benchmarks/gumbel_vs_puct.py                                   # tic-tac-toe and checkers, 4-32 simulations
    python benchmarks/gumbel_vs_puct.py --game tictactoe --budgets 2,4,8
    python benchmarks/gumbel_vs_puct.py --game checkers --games 20 --gumbel gumbel_c_scale=0.1
    python benchmarks/gumbel_vs_puct.py --game tictactoe --model runs/ttt --no-matches --budgets 8,32

Each budget is a match of ``alphazero:search=gumbel`` against
``alphazero:search=puct``, both with the bundled model of the game and the
same number of simulations per move (so the same number of network
evaluations).  Both play deterministically (temperature 0, no noise), so
games start from openings - every distinct N-ply opening of the game,
shuffled with the seed - each played twice with colours reversed.  The table
gives Gumbel's wins/draws/losses, its score with a 95% interval
(plyground.play.stats) and the Elo difference.

For tic-tac-toe a second table measures single moves instead of games: over
every reachable position with a choice (4,298), how often each search's
move gives away the perfect-play result, misses a win in one (of 2,216
positions that have one), or misses the only move that stops the opponent's
win in one (of 936) (``--no-positions`` skips it).
"""
from __future__ import annotations

import argparse
import time
from functools import lru_cache

from plyground.errors import PlygroundError
from plyground.play.match import play_game
from plyground.protocols import Budget
from plyground.registry import get_registry
from plyground.play.stats import Score
from plyground.testing import reachable_positions
from plyground.tournament.openings import choose_openings, start_state

#: Per game: opening plies, games per budget by default, ply cap.
GAMES = {"tictactoe": (2, 144, None), "checkers": (3, 20, 200)}


def play_budget(game, simulations: int, games: int, plies: int, max_plies: int | None, seed: int,
                gumbel_extra: str, model: str, verbose: bool) -> tuple[Score, float]:
    registry = get_registry()
    suffix = f",{gumbel_extra}" if gumbel_extra else ""
    gumbel = registry.make_player(f"alphazero:search=gumbel,simulations={simulations}{model}{suffix}", game)
    puct = registry.make_player(f"alphazero:search=puct,simulations={simulations}{model}", game)
    openings = choose_openings(game, f"{plies}-ply", seed)
    wins = draws = losses = 0
    started = time.perf_counter()
    for i in range(games):
        opening = openings[(i // 2) % len(openings)]
        gumbel_first = i % 2 == 0
        pair = (gumbel, puct) if gumbel_first else (puct, gumbel)
        start = start_state(game, opening)
        # The side to move after the opening plays the "first" seat's player.
        players = pair if start.current_player() == 0 else pair[::-1]
        names = ("gumbel", "puct") if players[0] is gumbel else ("puct", "gumbel")
        record = play_game(game, players, names=names, start=start, max_plies=max_plies, seed=seed * 1000 + i)
        side = 0 if players[0] is gumbel else 1
        s = record.score(side)
        wins, draws, losses = wins + (s == 1.0), draws + (s == 0.5), losses + (s == 0.0)
        if verbose:
            print(f"    {simulations:3d} sims, game {i + 1:3d} ({opening.label()}): gumbel as "
                  f"{game.side_names[side]} {['lost', 'drew', 'won'][int(s * 2)]} in {len(record.moves)} plies",
                  flush=True)
    return Score(wins, draws, losses), time.perf_counter() - started


def move_quality(game, simulations: int, model: str = "", gumbel_extra: str = "") -> dict[str, tuple[int, int, int]]:
    """Per search: (moves that give away the perfect-play result, missed wins in one, missed forced blocks)."""
    positions = reachable_positions(game, keep=lambda state: len(state.legal_moves()) > 1)   # a choice to make
    wins = {t: _winning_moves(game, t) for t in positions}
    out = {}
    for kind in ("puct", "gumbel"):
        # A fresh tree and no evaluation cache per position: each move is judged on its own.
        spec = f"alphazero:search={kind},simulations={simulations},reuse=false,cache_size=0{model}"
        if kind == "gumbel" and gumbel_extra:
            spec += f",{gumbel_extra}"
        player = get_registry().make_player(spec, game)
        errors = missed_wins = missed_blocks = 0
        for text in positions:
            state = game.new_state(text)
            move = player.choose_move(state.clone(), Budget(simulations=simulations))
            errors += _value_after(game, state, move) < _value(game, text)
            if wins[text]:
                missed_wins += move not in wins[text]
            else:
                block = _only_block(game, state)
                missed_blocks += block is not None and move != block
        out[kind] = (errors, missed_wins, missed_blocks)
    return out


@lru_cache(maxsize=None)
def _value_cached(game, text: str) -> float:
    state = game.new_state(text)
    if state.is_terminal():
        return state.returns()[state.current_player()]
    return max(_value_after(game, state, move) for move in state.legal_moves())


def _value(game, text: str) -> float:
    """Perfect-play result for the side to move (negamax, memoised by position)."""
    return _value_cached(game, text)


def _value_after(game, state, move) -> float:
    """Perfect-play result of ``move`` for the side that makes it."""
    child = state.clone()
    child.apply(move)
    value = _value(game, child.to_text())
    return value if child.current_player() == state.current_player() else -value


def _winning_moves(game, text: str) -> list:
    state = game.new_state(text)
    out = []
    for move in state.legal_moves():
        child = state.clone()
        child.apply(move)
        if child.is_terminal() and child.returns()[state.current_player()] > 0:
            out.append(move)
    return out


def _only_block(game, state):
    """The one move after which the opponent cannot win at once, when every other move allows it (else None)."""
    safe = []
    for move in state.legal_moves():
        child = state.clone()
        child.apply(move)
        if child.is_terminal() or not _winning_moves(game, child.to_text()):
            safe.append(move)
    return safe[0] if len(safe) == 1 else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=(*GAMES, "both"), default="both")
    parser.add_argument("--budgets", default="4,8,16,32", help="simulations per move, comma-separated")
    parser.add_argument("--games", type=int, default=None, help="games per budget (default: tic-tac-toe 144, "
                        "the 72 two-ply openings twice; checkers 20)")
    parser.add_argument("--gumbel", default="", help="extra options of the Gumbel player, e.g. gumbel_c_scale=0.1")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--verbose", action="store_true", help="one line per game")
    parser.add_argument("--no-positions", action="store_true", help="skip the tic-tac-toe move-quality table")
    parser.add_argument("--no-matches", action="store_true", help="only the tic-tac-toe move-quality table")
    parser.add_argument("--model", default=None, help="model file or run directory for both players (one game "
                        "only; default: the bundled model)")
    args = parser.parse_args()
    try:
        budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    except ValueError:
        raise SystemExit(f"--budgets {args.budgets!r}: expected whole numbers separated by commas, e.g. 4,8,16")
    if not budgets or min(budgets) < 1:
        raise SystemExit(f"--budgets {args.budgets!r}: expected numbers of simulations >= 1")
    names = list(GAMES) if args.game == "both" else [args.game]
    if args.model and len(names) > 1:
        raise SystemExit("--model needs one --game (a model is trained for one game)")
    model = f",model={args.model}" if args.model else ""
    if not args.no_matches:
        print("| game | simulations | games | Gumbel W/D/L | Gumbel score (95% interval) | Elo | seconds |")
        print("|---|---|---|---|---|---|---|")
    for name in ([] if args.no_matches else names):
        game = get_registry().make_game(name)
        plies, default_games, max_plies = GAMES[name]
        games = args.games or default_games
        for simulations in budgets:
            try:
                score, seconds = play_budget(game, simulations, games, plies, max_plies, args.seed, args.gumbel,
                                             model, args.verbose)
            except PlygroundError as exc:
                raise SystemExit(str(exc))
            lo, hi = score.interval()
            elo = score.elo()
            print(f"| {name} | {simulations} | {score.games} | {score.wins}/{score.draws}/{score.losses} | "
                  f"{score.score:.1%} ({lo:.1%} to {hi:.1%}) | {elo:+.0f} | {seconds:.0f} |", flush=True)
    if "tictactoe" in names and not args.no_positions:
        game = get_registry().make_game("tictactoe")
        print()
        print("| simulations | PUCT: result given away / missed win / missed block | Gumbel: the same |")
        print("|---|---|---|")
        for simulations in budgets:
            try:
                quality = move_quality(game, simulations, model, args.gumbel)
            except PlygroundError as exc:
                raise SystemExit(str(exc))
            print(f"| {simulations} | " + " | ".join("{} / {} / {}".format(*quality[k]) for k in ("puct", "gumbel"))
                  + " |", flush=True)


if __name__ == "__main__":
    main()
