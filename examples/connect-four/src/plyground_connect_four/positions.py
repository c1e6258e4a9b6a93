"""Solver-labelled positions for the perfect-play benchmark (benchmarks/connect_four_mistakes.py).

A position's *class* is the stage by discs played (Begin <= 14, Middle 15-28,
End > 28) and the difficulty by the plies the game lasts from it with best
play on both sides (Easy < 14, Medium 14-27, Hard >= 28): the six classes of
Pascal Pons's test sets that AlphaZero.jl scores its agent on.  The positions
come from our own games: random games, "safe" random games (a four when
there is one, else a random move that gives none away: they last into the
End stage) and games of the compiled ``mcts`` player with a random move now
and then.  Each keeps every legal move's exact
score; only positions where some move is worse (in win/draw/loss) than the
best are kept, since elsewhere no move can be a mistake.

Two sets ship with the package: ``dev`` (to look at while tuning) and
``test`` (another seed; the final check).  Make more, or resume an interrupted
run, with::

    python -m plyground_connect_four.positions --set dev --per-class 1000

It continues from the games already labelled; the file is rewritten atomically
every few positions, so an interrupted run loses nothing it wrote.
"""
from __future__ import annotations

import argparse
import json
import lzma
import random
import sys
import time
from pathlib import Path

from plyground.errors import ModelFileError, UsageError
from plyground.storage import write_bytes

from .game import CLASSES, DATA, ConnectFour

SETS = {"dev": 1, "test": 2}                   # the seed of each set's games
#: The node limit of one move's solve while labelling: a position past it is passed over (and counted).
LABEL_NODE_LIMIT = 15_000_000
#: The fewest discs of a labelled position: earlier ones take the solver minutes each.
FIRST_PLY = 6


def stage(ply: int) -> str:
    return "Begin" if ply <= 14 else "Middle" if ply <= 28 else "End"


def position_class(ply: int, plies_left: int) -> str:
    difficulty = "Easy" if plies_left < 14 else "Medium" if plies_left < 28 else "Hard"
    return f"{stage(ply)}-{difficulty}"


def set_path(name: str, directory: Path = DATA) -> Path:
    if name not in SETS:
        raise UsageError(f"unknown position set {name!r}; valid sets: {', '.join(SETS)}")
    return Path(directory) / f"positions-{name}.jsonl.xz"


def load_positions(name: str, directory: Path = DATA) -> list[dict]:
    """The labelled positions of set ``name`` (``dev`` or ``test``), oldest first."""
    path = set_path(name, directory)
    if not path.exists():
        return []
    try:
        text = lzma.decompress(path.read_bytes()).decode("utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    except (OSError, lzma.LZMAError, ValueError) as exc:
        raise ModelFileError(f"{path} is unreadable ({exc}); make it again with "
                             f"python -m plyground_connect_four.positions --set {name}") from None


def save_positions(name: str, rows: list[dict], directory: Path = DATA) -> None:
    text = "".join(json.dumps(row, separators=(",", ":")) + "\n" for row in rows)
    write_bytes(set_path(name, directory), lzma.compress(text.encode("utf-8"), preset=9))


def replay(game: ConnectFour, moves: str):
    """The position after ``moves`` (columns written 1-7, as Pons's test sets write them)."""
    state = game.new_initial_state()
    for column in moves:
        state.apply(int(column) - 1)
    return state


def is_mistake(row: dict, move: int) -> bool:
    """Is playing column ``move`` (0-6) in the labelled position ``row`` worse, in win/draw/loss, than its
    best move?"""
    from .solver import outcome
    scores = [s for s in row["scores"] if s is not None]
    return outcome(row["scores"][move]) < outcome(max(scores))


def solved(game: ConnectFour, name: str) -> list:
    """Set ``name`` -- dev, test, or a file such a set was saved in -- as the game's ``SolvedPosition``s
    (the SolvedPositions capability)."""
    from plyground.capabilities import SolvedPosition
    from .solver import outcome
    path = Path(name)
    if name not in SETS and path.name.startswith("positions-") and path.name.endswith(".jsonl.xz"):
        if not path.is_file():
            raise UsageError(f"no positions file {name}: make one with "
                             f"python -m plyground_connect_four.positions --set dev --directory FOLDER")
        rows = load_positions(path.name[len("positions-"):-len(".jsonl.xz")], path.parent)
    elif name in SETS:
        rows = load_positions(name)
    else:
        raise UsageError(f"connect-four has no solved-position set {name!r}; valid sets: {', '.join(SETS)}, or "
                         f"a positions-dev.jsonl.xz or positions-test.jsonl.xz file")
    found = []
    for row in rows:
        scores = row["scores"]
        best = max(outcome(s) for s in scores if s is not None)
        found.append(SolvedPosition(row["class"], replay(game, row["moves"]),
                                    frozenset(m for m, s in enumerate(scores) if s is not None and outcome(s) == best),
                                    row["moves"], float(best)))
    return found


def _source_game(game, index: int, seed: int, mcts) -> tuple[str, list[int]]:
    """Game ``index`` of a set: its source and its moves (columns 0-6)."""
    from plyground.protocols import Budget

    from .solver import winning_moves

    rng = random.Random(seed * 1_000_003 + index)
    state = game.new_initial_state()
    source = ("random", "mcts", "safe-random")[index % 3]
    mcts.reset(rng.randrange(1 << 30))
    while not state.is_terminal():
        if source == "mcts" and rng.random() >= 0.15:
            move = mcts.choose_move(state.clone(), Budget())
        elif source == "safe-random":           # a four when there is one, else no move that gives one away
            move = rng.choice(winning_moves(state) or _safe_moves(state) or state.legal_moves())
        else:
            move = rng.choice(state.legal_moves())
        state.apply(move)
    return source, list(state.history)


def _safe_moves(state) -> list[int]:
    from .solver import winning_moves

    safe = []
    for move in state.legal_moves():
        after = state.clone()
        after.apply(move)
        if not winning_moves(after):
            safe.append(move)
    return safe


def label(name: str, per_class: int, directory: Path = DATA, log=sys.stderr) -> list[dict]:
    """Add positions to set ``name`` until every class holds ``per_class`` of them (or resume doing so)."""
    from plyground.registry import get_registry

    from .solver import Solver, outcome, plies_left

    game = ConnectFour()
    others = {replay(game, row["moves"]).key()
              for other in SETS if other != name for row in load_positions(other, directory)}
    # The sets share no position: one that the other set holds too (both made at once) goes from this one.
    rows = [row for row in load_positions(name, directory) if replay(game, row["moves"]).key() not in others]
    seen = others | {replay(game, row["moves"]).key() for row in rows}
    counts = {c: sum(row["class"] == c for row in rows) for c in CLASSES}
    index = max((row["game"] for row in rows), default=-1) + 1
    mcts = get_registry().make_player("mcts:simulations=200", game)
    solver = Solver()
    started, labelled, skipped, unsaved = time.monotonic(), 0, 0, 0
    while min(counts.values()) < per_class:
        source, history = _source_game(game, index, SETS[name], mcts)
        rng = random.Random(SETS[name] * 7_919 + index)
        # One position from each stage the game reaches, the stage furthest from its quota first
        # (games that reach the End are rare), up to three.
        missing = {name: sum(max(0, per_class - counts[c]) for c in CLASSES if c.startswith(name))
                   for name in ("Begin", "Middle", "End")}
        stages = {}
        for ply in range(FIRST_PLY, len(history)):
            stages.setdefault(stage(ply), []).append(ply)
        plies = [rng.choice(stages[name]) for name in sorted(stages, key=lambda n: -missing[n])
                 if missing[name] > 0]
        for ply in plies[:3]:
            state = game.new_initial_state()
            for move in history[:ply]:
                state.apply(move)
            if state.key() in seen:
                continue
            seen.add(state.key())
            scores = solver.move_scores(state, node_limit=LABEL_NODE_LIMIT)
            if scores is None:
                skipped += 1
                continue
            best = max(scores.values())
            if all(outcome(s) == outcome(best) for s in scores.values()):
                continue                        # no move can be a mistake here
            kind = position_class(ply, plies_left(ply, best))
            if counts[kind] >= per_class:
                continue
            counts[kind] += 1
            labelled += 1
            unsaved += 1
            rows.append({"moves": "".join(str(m + 1) for m in history[:ply]), "class": kind, "ply": ply,
                         "score": best, "plies_left": plies_left(ply, best),
                         "scores": [scores.get(c) for c in range(7)], "source": source, "game": index})
        index += 1
        if unsaved >= 20 or min(counts.values()) >= per_class:
            save_positions(name, rows, directory)
            unsaved = 0
            elapsed = time.monotonic() - started
            print(f"{name}: {labelled} labelled in {elapsed:.0f} s ({labelled / max(elapsed, 1e-9):.2f}/s), "
                  f"{skipped} past the node limit; " + ", ".join(f"{c} {n}" for c, n in counts.items()),
                  file=log, flush=True)
    save_positions(name, rows, directory)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m plyground_connect_four.positions",
                                     description="Label Connect Four positions for the perfect-play benchmark.")
    parser.add_argument("--set", default="dev", choices=sorted(SETS), help="which set to add to (default: dev)")
    parser.add_argument("--per-class", type=int, default=1000, help="positions each class should hold")
    parser.add_argument("--directory", type=Path, default=DATA, help="where the sets are (default: the package's)")
    args = parser.parse_args(argv)
    if args.per_class < 1:
        parser.error(f"--per-class must be at least 1, not {args.per_class}")
    label(args.set, args.per_class, args.directory)
    return 0


if __name__ == "__main__":
    sys.exit(main())
