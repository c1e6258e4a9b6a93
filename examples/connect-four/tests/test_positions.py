"""The labelled positions of the perfect-play benchmark, and the benchmark command."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from plyground.errors import ModelFileError, UsageError
from plyground_connect_four import ConnectFour
from plyground_connect_four.game import DATA
from plyground_connect_four.positions import (CLASSES, is_mistake, load_positions, position_class, replay,
                                              save_positions)
from plyground_connect_four.solver import Solver, plies_left

BENCHMARK = Path(__file__).resolve().parents[3] / "benchmarks" / "connect_four_mistakes.py"
#: The command lives in the plyground checkout, not in this package: a copy of the package alone skips it.
needs_checkout = pytest.mark.skipif(not BENCHMARK.exists(), reason="benchmarks/ of the plyground checkout")


@pytest.mark.parametrize("ply, left, name", [
    (14, 13, "Begin-Easy"), (14, 14, "Begin-Medium"), (6, 27, "Begin-Medium"), (6, 28, "Begin-Hard"),
    (15, 13, "Middle-Easy"), (28, 14, "Middle-Medium"), (29, 13, "End-Easy"),
])
def test_classes_by_discs_played_and_plies_left(ply, left, name):
    assert position_class(ply, left) == name


@pytest.mark.parametrize("name", ["dev", "test"])
def test_the_shipped_sets_hold_every_class_and_agree_with_the_solver(name):
    rows = load_positions(name)
    assert {row["class"] for row in rows} == set(CLASSES)
    game, solver = ConnectFour(), Solver()
    for row in rows:
        assert row["class"] == position_class(row["ply"], row["plies_left"])
        assert row["plies_left"] == plies_left(row["ply"], row["score"]) and row["score"] == max(
            s for s in row["scores"] if s is not None)
        assert any(is_mistake(row, m) for m, s in enumerate(row["scores"]) if s is not None)
    for row in [r for r in rows if r["ply"] >= 30][:40]:             # quick to solve again
        state = replay(game, row["moves"])
        assert solver.move_scores(state) == {m: s for m, s in enumerate(row["scores"]) if s is not None}


def test_the_test_set_shares_no_position_with_the_dev_set():
    game = ConnectFour()
    dev = {replay(game, row["moves"]).key() for row in load_positions("dev")}
    test = {replay(game, row["moves"]).key() for row in load_positions("test")}
    assert dev and test and not dev & test


def test_an_unknown_set_is_refused():
    with pytest.raises(UsageError, match="unknown position set 'train'; valid sets: dev, test"):
        load_positions("train")


def _tiny_set(directory):
    """Positions with 3 to 9 empty cells (solved at once), labelled as the generator labels them."""
    import random
    game, solver, rows, rng = ConnectFour(), Solver(), [], random.Random(0)
    while len(rows) < 12:
        state, moves = game.new_initial_state(), ""
        while state.ply < 42 - rng.randint(3, 9) and not state.is_terminal():
            move = rng.choice(state.legal_moves())
            state.apply(move)
            moves += str(move + 1)
        scores = solver.move_scores(state)
        if not scores or len({(s > 0) - (s < 0) for s in scores.values()}) < 2:
            continue
        best = max(scores.values())
        rows.append({"moves": moves, "class": position_class(state.ply, plies_left(state.ply, best)),
                     "ply": state.ply, "score": best, "plies_left": plies_left(state.ply, best),
                     "scores": [scores.get(c) for c in range(7)], "source": "random", "game": len(rows)})
    save_positions("dev", rows, directory)
    return rows


def totals(table: str) -> tuple[int, int]:
    """(positions, mistakes) of a table's "all" line."""
    words = next(line.split() for line in table.splitlines() if line.split()[:1] == ["all"])
    return int(words[1]), int(words[2])


@needs_checkout
def test_the_benchmark_prints_a_table_per_player(tmp_path):
    rows = _tiny_set(tmp_path)
    result = subprocess.run([sys.executable, str(BENCHMARK), "connect-four-perfect", "random", "--set",
                             str(tmp_path / "positions-dev.jsonl.xz"), "--seed", "1"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    perfect, rand = result.stdout.split("random on the ")
    assert totals(perfect) == (len(rows), 0)
    positions, mistakes = totals(rand)
    assert positions == len(rows) and 0 < mistakes < len(rows)
    assert "ETA" in result.stderr


@needs_checkout
@pytest.mark.parametrize("args, message", [
    (["nope"], "unknown player 'nope'; valid players:"),
    (["connect-four-perfect:depth=0"], "bad value '0' for option 'depth'"),
    (["random", "--set", "train"], "connect-four has no solved-position set 'train'; valid sets: dev, test, or "),
    (["random", "--set", "nowhere/positions-dev.jsonl.xz"], "no positions file nowhere/positions-dev.jsonl.xz"),
])
def test_the_benchmark_names_a_bad_argument(tmp_path, args, message):
    _tiny_set(tmp_path)
    if "--set" not in args:
        args = [*args, "--set", str(tmp_path / "positions-dev.jsonl.xz")]
    result = subprocess.run([sys.executable, str(BENCHMARK), *args], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr


def test_the_game_offers_its_sets_as_solved_positions():
    from plyground.capabilities import solved_positions
    game = ConnectFour()
    rows = load_positions("dev")
    by_class = solved_positions(game, "dev", 5)
    assert list(by_class) == list(CLASSES) and all(len(group) == 5 for group in by_class.values())
    for position in by_class["Begin-Hard"] + by_class["End-Easy"]:
        row = next(r for r in rows if r["moves"] == position.name)
        assert position.state.key() == replay(game, row["moves"]).key()
        assert position.best == {m for m, s in enumerate(row["scores"]) if s is not None and not is_mistake(row, m)}


@pytest.mark.parametrize("name, seed", [("dev", 1), ("test", 2), ("fresh-3", 3), ("fresh-12", 12)])
def test_a_set_is_named_by_the_seed_of_its_games(name, seed):
    from plyground_connect_four.positions import set_path, set_seed
    assert set_seed(name) == seed and set_path(name).name == f"positions-{name}.jsonl.xz"


@pytest.mark.parametrize("name", ["fresh-2", "fresh-1", "fresh-03", "fresh-", "fresh-x", "fresh", "Fresh-3", "fresh-²",
                                  "fresh-" + "9" * 5000])
def test_a_fresh_set_needs_a_seed_no_shipped_set_has(name):
    from plyground_connect_four.positions import set_seed
    with pytest.raises(UsageError, match=f"unknown position set '{name[:60]}.*'; valid sets: dev, test, or "
                                         r"fresh-N \(N from 3"):
        set_seed(name)


@pytest.mark.parametrize("args, message", [
    (["--set", "fresh-3"], "--set: a fresh set (fresh-3) does not go into the package's folder "),
    (["--set", "fresh-3", "--directory", str(DATA / "mine")], "--set: a fresh set (fresh-3) does not go into "),
    (["--set", "fresh-²", "--directory", "."], "--set: unknown position set 'fresh-²'; valid sets: dev, test, or"),
    (["--set", "fresh-2", "--directory", "."], "--set: unknown position set 'fresh-2'; valid sets: dev, test, or"),
    (["--set", "train"], "--set: unknown position set 'train'"),
    (["--workers", "-1"], "--workers must be 0 (one a core) or more, not -1"),
    (["--per-class", "0"], "--per-class must be at least 1, not 0"),
    (["--set", "fresh-4", "--directory", "{file}"], "--directory {file}: that is a file; name a folder"),
    (["--set", "fresh-4", "--directory", "{file}/sub"], "--directory {file}/sub: cannot make that folder"),
])
def test_the_labelling_names_a_bad_argument(args, message, capsys, tmp_path):
    from plyground_connect_four.positions import main
    (tmp_path / "a-file").write_text("not a folder")
    args, message = [a.format(file=tmp_path / "a-file") for a in args], message.format(file=tmp_path / "a-file")
    with pytest.raises(SystemExit) as stopped:
        main(args)
    assert stopped.value.code == 2 and message in capsys.readouterr().err


def test_a_damaged_set_is_named_with_what_to_do(tmp_path, capsys):
    from plyground_connect_four.positions import main
    (tmp_path / "positions-fresh-4.jsonl.xz").write_bytes(b"not xz")
    assert main(["--set", "fresh-4", "--directory", str(tmp_path), "--per-class", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {tmp_path}/positions-fresh-4.jsonl.xz is unreadable (") and err.rstrip().endswith(
        f"move it away, then make it again with python -m plyground_connect_four.positions --set fresh-4 "
        f"--directory {tmp_path}") and "Traceback" not in err


def test_a_fresh_set_holds_no_position_that_ships(tmp_path, monkeypatch):
    """A fresh set's rows that a shipped set holds go (the labelling resumes without them): here a shipped
    "test" set (in a stand-in package folder) holds one of the fresh set's rows."""
    from plyground_connect_four import positions
    rows = load_positions("test")
    chosen = [next(r for r in rows if r["class"] == c) for c in CLASSES]
    spare = next(r for r in rows if r["class"] == CLASSES[0] and r is not chosen[0])
    shipped, folder = tmp_path / "package", tmp_path / "mine"
    save_positions("test", [chosen[0]], shipped)
    save_positions("fresh-3", chosen + [spare], folder)
    monkeypatch.setattr(positions, "DATA", shipped)
    kept = positions.label("fresh-3", 1, folder)          # every class holds one already: nothing to label
    assert kept == chosen[1:] + [spare]
    assert load_positions("fresh-3", folder) == kept


def _positions(count: int, node_limit: int) -> list:
    """Jobs of the labelling: random games' positions 10, 6 and 2 plies from their end."""
    import random
    from plyground_connect_four.positions import _Solve
    game, rng, jobs = ConnectFour(), random.Random(5), []
    while len(jobs) < count:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_moves()))
        if state.ply >= 24:
            jobs.append(_Solve(len(jobs), tuple(state.history), (state.ply - 10, state.ply - 6, state.ply - 2),
                               node_limit))
    return jobs


def test_the_solving_workers_find_what_one_process_finds():
    """The labelling's solves give the same scores in two worker processes as in this one, and whether a
    position is past the node limit does not hang on what was solved before it (each game gets a table of
    its own), so the set made is the same for any number of workers."""
    from dataclasses import replace

    from plyground.engines.workers import InProcess, LocalActorPool
    from plyground_connect_four.positions import _SolverActor, _SolverSetup, moves_text
    jobs = _positions(8, node_limit=3_000)
    alone = {job.index: message[1] for job, message in InProcess(_SolverActor()).run(jobs)}
    backwards = {job.index: message[1] for job, message in InProcess(_SolverActor()).run(jobs[::-1])}
    pool = LocalActorPool(_SolverSetup(), 2)
    try:
        pooled = {job.index: message[1] for job, message in pool.run(jobs)}
    finally:
        pool.close()
    assert alone == backwards == pooled
    found = [scores for job in jobs for scores in alone[job.index]]
    assert None in found and sum(s is not None for s in found) >= 8      # some past the limit, most not
    # A position past the limit stays past it when the same worker has just solved it without one.
    first = next(job for job in jobs if None in alone[job.index])
    unlimited = replace(first, index=-1, node_limit=10**12)
    after = dict((job.index, message[1]) for job, message in InProcess(_SolverActor()).run([unlimited, first]))
    assert after[first.index] == alone[first.index] and None not in after[-1]
    solver = Solver()
    for job in jobs:
        for ply, scores in zip(job.plies, alone[job.index]):
            if scores is not None:
                assert scores == solver.move_scores(replay(ConnectFour(), moves_text(job.history[:ply])))


def test_the_set_made_is_the_same_on_one_process_and_on_two(tmp_path, monkeypatch):
    """label() itself, filling End-Easy only (quick to solve): one process and two worker processes make the
    same rows, in the same order, over several blocks of games."""
    from plyground_connect_four import positions
    monkeypatch.setattr(positions, "BLOCK", 6)
    made = {}
    for workers in (1, 2):
        with open(os.devnull, "w") as quiet:
            made[workers] = positions.label("fresh-3", 14, tmp_path / str(workers), log=quiet, workers=workers,
                                            classes=("End-Easy",))
    assert made[1] == made[2] and len(made[1]) == 14
    assert len({row["moves"] for row in made[1]}) == 14 and {row["ply"] for row in made[1]} <= set(range(29, 42))
    assert max(row["game"] for row in made[1]) >= positions.BLOCK      # more than one block
    assert [row["game"] for row in made[2]] == sorted(row["game"] for row in made[2])   # in the games' order


@pytest.mark.parametrize("row, fault", [
    ({"moves": "4"}, "no class"),
    ({"moves": "48"}, "column 8"),
    ({"scores": [0] * 6}, "six scores"),
    ({"game": "1"}, "game number as text"),
])
def test_a_row_that_is_not_a_labelled_position_is_refused_by_name(tmp_path, row, fault):
    good = load_positions("dev")[0]
    damaged = {**good, **row}
    if fault == "no class":
        del damaged["class"]
    elif fault == "column 8":
        damaged["ply"] = 2
    save_positions("dev", [good, damaged], tmp_path)
    with pytest.raises(ModelFileError, match=r"positions-dev.jsonl.xz is unreadable \(row 2 is not a labelled "
                                             r"position\); move it away"):
        load_positions("dev", tmp_path)
