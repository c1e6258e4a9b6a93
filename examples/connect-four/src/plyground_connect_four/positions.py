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

    python -m plyground_connect_four.positions --set dev --per-class 1000 --workers 0

It continues from the games already labelled; the file is rewritten atomically
after each block of games, so an interrupted run loses nothing it wrote.  A
third kind of set, ``fresh-N`` (games of seed N, none of the shipped sets'
positions), is for a check on positions nobody has looked at::

    python -m plyground_connect_four.positions --set fresh-3 --per-class 100 --directory FOLDER
    python benchmarks/connect_four_mistakes.py --set FOLDER/positions-fresh-3.jsonl.xz alphazero

The workers solve each game's positions with a transposition table of their
own, and the positions are picked from the counts once a block of games, so
the set made does not hang on the number of workers.
"""
from __future__ import annotations

import argparse
import json
import lzma
import os
import re
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from plyground.errors import ModelFileError, PlygroundError, UsageError
from plyground.files.storage import write_bytes

from .game import CLASSES, DATA, ConnectFour

SETS = {"dev": 1, "test": 2}                   # the seed of each set's games; fresh-N's is N
#: How the sets are named, for messages.
SET_NAMES = "dev, test, or fresh-N (N from 3: positions from games of seed N, a set that does not ship)"
#: The node limit of one move's solve while labelling: a position past it is passed over (and counted).
LABEL_NODE_LIMIT = 15_000_000
#: The fewest discs of a labelled position: earlier ones take the solver minutes each.
FIRST_PLY = 6


def stage(ply: int) -> str:
    return "Begin" if ply <= 14 else "Middle" if ply <= 28 else "End"


def position_class(ply: int, plies_left: int) -> str:
    difficulty = "Easy" if plies_left < 14 else "Medium" if plies_left < 28 else "Hard"
    return f"{stage(ply)}-{difficulty}"


def set_seed(name: str) -> int:
    """The seed of set ``name``'s games: dev and test ship with the package; ``fresh-N`` (N >= 3) is a set
    made when positions nobody has looked at are wanted (the final check)."""
    if name in SETS:
        return SETS[name]
    found = re.fullmatch(r"fresh-([1-9][0-9]{0,17})", name)
    if found and int(found.group(1)) > max(SETS.values()):
        return int(found.group(1))
    raise UsageError(f"unknown position set {name!r}; valid sets: {SET_NAMES}")


def set_path(name: str, directory: Path = DATA) -> Path:
    set_seed(name)
    return Path(directory) / f"positions-{name}.jsonl.xz"


def check_folder(name: str, directory: Path) -> None:
    """A fresh set is not shipped: refuse a folder in the package's."""
    where = Path(directory).resolve()
    if name not in SETS and DATA.resolve() in (where, *where.parents):
        raise UsageError(f"a fresh set ({name}) does not go into the package's folder {DATA}; "
                         f"give --directory FOLDER outside it")


def _other_sets(name: str, directory: Path) -> list[tuple[str, Path]]:
    """The sets set ``name`` shares no position with, and where they are: dev and test each other's (in the
    same folder); a fresh set those that ship."""
    if name in SETS:
        return [(other, Path(directory)) for other in SETS if other != name]
    return [(other, DATA) for other in SETS]


def load_positions(name: str, directory: Path = DATA) -> list[dict]:
    """The labelled positions of set ``name`` (dev, test or fresh-N) in ``directory``, oldest first."""
    path = set_path(name, directory)
    if not path.exists():
        return []
    try:
        text = lzma.decompress(path.read_bytes()).decode("utf-8")
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
        for number, row in enumerate(rows, 1):
            if not _well_formed(row):
                raise ValueError(f"row {number} is not a labelled position")
        return rows
    except (OSError, lzma.LZMAError, ValueError) as exc:
        where = "" if Path(directory).resolve() == DATA.resolve() else f" --directory {directory}"
        raise ModelFileError(f"{path} is unreadable ({exc}); move it away, then make it again with "
                             f"python -m plyground_connect_four.positions --set {name}{where}") from None


def _well_formed(row) -> bool:
    """Does ``row`` hold what a labelled position holds, of the right kinds?"""
    ints = ("ply", "score", "plies_left", "game")
    return (isinstance(row, dict) and isinstance(row.get("moves"), str) and set(row["moves"]) <= set("1234567")
            and row.get("class") in CLASSES and all(type(row.get(k)) is int for k in ints)
            and len(row["moves"]) == row["ply"] and isinstance(row.get("scores"), list) and len(row["scores"]) == 7
            and all(v is None or type(v) is int for v in row["scores"]))


def save_positions(name: str, rows: list[dict], directory: Path = DATA) -> None:
    text = "".join(json.dumps(row, separators=(",", ":")) + "\n" for row in rows)
    write_bytes(set_path(name, directory), lzma.compress(text.encode("utf-8"), preset=9))


def moves_text(columns) -> str:
    """Moves as the sets write them: columns 0-6 as the digits 1-7."""
    return "".join(str(column + 1) for column in columns)


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
    """Set ``name`` -- dev, test, or a file a set was saved in (a fresh set's, say) -- as the game's
    ``SolvedPosition``s (the SolvedPositions capability)."""
    from plyground.capabilities import SolvedPosition
    from .solver import outcome
    path = Path(name)
    if name not in SETS and path.name.startswith("positions-") and path.name.endswith(".jsonl.xz"):
        if not path.is_file():
            raise UsageError(f"no positions file {name}: make one with "
                             f"python -m plyground_connect_four.positions --set fresh-3 --directory FOLDER")
        rows = load_positions(path.name[len("positions-"):-len(".jsonl.xz")], path.parent)
    elif name in SETS:
        rows = load_positions(name)
    else:
        raise UsageError(f"connect-four has no solved-position set {name!r}; valid sets: {', '.join(SETS)}, or "
                         f"a file the labelling wrote (positions-dev.jsonl.xz, positions-fresh-3.jsonl.xz, ...)")
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


#: Games whose positions are solved together: the pick of positions looks at the counts once a block, so the
#: set made is the same whatever the number of workers.
BLOCK = 24


@dataclass(frozen=True)
class _Solve:
    """A job: the positions of game ``index`` to label (plies of its moves ``history``)."""
    index: int
    history: tuple[int, ...]
    plies: tuple[int, ...]
    node_limit: int = LABEL_NODE_LIMIT

    def describe(self) -> str:
        return f"the positions of game {self.index}"


@dataclass(frozen=True)
class _SolverSetup:
    def build(self) -> "_SolverActor":
        return _SolverActor()


class _SolverActor:
    """Solves a game's positions with a table of its own, so whether one is past the node limit does not hang
    on what this worker solved before."""

    def run(self, job: _Solve):
        from .solver import Solver
        solver, found = Solver(), []
        for ply in job.plies:
            state = replay(ConnectFour(), moves_text(job.history[:ply]))
            found.append(solver.move_scores(state, node_limit=job.node_limit))
        yield ("done", found)

    def close(self) -> None:
        pass


def label(name: str, per_class: int, directory: Path = DATA, log=sys.stderr, workers: int = 1,
          classes: tuple[str, ...] = CLASSES) -> list[dict]:
    """Add positions to set ``name`` until every class holds ``per_class`` of them (or resume doing so),
    solving on ``workers`` processes (1: in this one); ``classes``: only these are filled.  Rows another set
    holds go, even if none is added."""
    from plyground.util.durations import format_duration
    from plyground.registry import get_registry
    from plyground.engines.workers import InProcess, LocalActorPool

    from .solver import outcome, plies_left

    seed = set_seed(name)
    check_folder(name, directory)
    game = ConnectFour()
    # A fresh set holds no position of the sets that ship; dev and test hold none of each other's.
    others = {replay(game, row["moves"]).key() for other, folder in _other_sets(name, directory)
              for row in load_positions(other, folder)}
    # The sets share no position: one that another set holds too (both made at once) goes from this one.
    loaded = [(replay(game, row["moves"]).key(), row) for row in load_positions(name, directory)]
    rows = [row for key, row in loaded if key not in others]
    seen = others | {key for key, _ in loaded}
    counts = {c: sum(row["class"] == c for row in rows) for c in classes}
    first_counts = dict(counts)
    index = max((row["game"] for _, row in loaded), default=-1) + 1     # after the last game that gave a row
    mcts = get_registry().make_player("mcts:simulations=200", game)
    pool = LocalActorPool(_SolverSetup(), workers, log=lambda line: print(line, file=log, flush=True)) \
        if workers > 1 else InProcess(_SolverActor())
    started, labelled, skipped = time.monotonic(), 0, 0
    try:
        while min(counts.values()) < per_class:
            # One position from each stage a game reaches, the stage furthest from its quota first
            # (games that reach the End are rare), up to three.
            missing = {part: sum(max(0, per_class - counts[c]) for c in classes if c.startswith(part))
                       for part in ("Begin", "Middle", "End")}
            jobs, sources = [], {}
            for index in range(index, index + BLOCK):
                source, history = _source_game(game, index, seed, mcts)
                rng = random.Random(seed * 7_919 + index)
                stages: dict[str, list[int]] = {}
                for ply in range(FIRST_PLY, len(history)):
                    stages.setdefault(stage(ply), []).append(ply)
                plies = [rng.choice(stages[part]) for part in sorted(stages, key=lambda p: -missing[p])
                         if missing[part] > 0]
                new = []
                for ply in plies[:3]:
                    key = replay(game, moves_text(history[:ply])).key()
                    if key not in seen:
                        seen.add(key)
                        new.append(ply)
                jobs.append(_Solve(index, tuple(history), tuple(new)))
                sources[index] = source
            index += 1
            found = {job.index: message[1] for job, message in pool.run(jobs) if message[0] == "done"}
            for job in jobs:                    # in the games' order, whatever order the workers finished in
                for ply, scores in zip(job.plies, found[job.index]):
                    if scores is None:
                        skipped += 1
                        continue
                    best = max(scores.values())
                    if all(outcome(s) == outcome(best) for s in scores.values()):
                        continue                # no move can be a mistake here
                    kind = position_class(ply, plies_left(ply, best))
                    if counts.get(kind, per_class) >= per_class:
                        continue
                    counts[kind] += 1
                    labelled += 1
                    rows.append({"moves": moves_text(job.history[:ply]), "class": kind,
                                 "ply": ply, "score": best, "plies_left": plies_left(ply, best),
                                 "scores": [scores.get(c) for c in range(7)], "source": sources[job.index],
                                 "game": job.index})
            save_positions(name, rows, directory)
            elapsed = time.monotonic() - started
            # The class furthest behind its own pace sets the time left.
            left = max(((per_class - counts[c]) * elapsed / (counts[c] - first_counts[c])
                        if counts[c] > first_counts[c] else float("inf"))
                       for c in classes if counts[c] < per_class) if min(counts.values()) < per_class else 0.0
            print(f"{name}: {labelled} labelled in {elapsed:.0f} s ({labelled / max(elapsed, 1e-9):.2f}/s), "
                  f"{skipped} past the node limit, ETA {format_duration(left) if left < float('inf') else '?'}; "
                  + ", ".join(f"{c} {n}" for c, n in counts.items()), file=log, flush=True)
    finally:
        pool.close()
    save_positions(name, rows, directory)      # without the rows another set holds, even when none was added
    return rows


def main(argv=None) -> int:
    from plyground.util.machine import available_cores

    parser = argparse.ArgumentParser(prog="python -m plyground_connect_four.positions",
                                     description="Label Connect Four positions for the perfect-play benchmark.")
    parser.add_argument("--set", default="dev", help=f"which set to add to: {SET_NAMES} (default: dev)")
    parser.add_argument("--per-class", type=int, default=1000, help="positions each class should hold")
    parser.add_argument("--directory", type=Path, default=DATA, help="where the sets are (default: the package's)")
    parser.add_argument("--workers", type=int, default=1,
                        help="processes that solve (0: one a core; the set made is the same for any number)")
    args = parser.parse_args(argv)
    if args.per_class < 1:
        parser.error(f"--per-class must be at least 1, not {args.per_class}")
    if args.workers < 0:
        parser.error(f"--workers must be 0 (one a core) or more, not {args.workers}")
    try:
        set_seed(args.set)
        check_folder(args.set, args.directory)
    except UsageError as exc:
        parser.error(f"--set: {exc}")
    if args.directory.exists() and not args.directory.is_dir():
        parser.error(f"--directory {args.directory}: that is a file; name a folder")
    try:
        args.directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        parser.error(f"--directory {args.directory}: cannot make that folder ({exc.strerror or exc})")
    if not os.access(args.directory, os.W_OK):
        parser.error(f"--directory {args.directory}: cannot write there")
    try:
        label(args.set, args.per_class, args.directory, workers=args.workers or available_cores())
    except KeyboardInterrupt:
        print(f"stopped: what was labelled is in {set_path(args.set, args.directory)} (the block of games under "
              f"way is not); the same command goes on from it", file=sys.stderr)
        return 130
    except PlygroundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
