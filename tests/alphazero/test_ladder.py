"""The ladder (every iteration's newest network rated against fixed opponents) and initial_model."""
import numpy as np
import pytest

from plyground.errors import PlygroundError, UsageError
from plyground.games.tictactoe import TicTacToe
from plyground.players.alphazero.ladder import parse_ladder
from plyground.players.alphazero.models import load_model
from plyground.players.alphazero.trainer import AlphaZeroTrainer
from plyground.recordio import record_from_json

SMALL = dict(network="mlp:hidden=16,layers=1", selfplay_games=8, simulations=12, epochs=1, batch_size=16,
             comparison_games=2, comparison_simulations=8, workers=1, plots=True)


def train(run_dir, **options):
    lines = []
    trainer = AlphaZeroTrainer(TicTacToe(), run_dir, **{**SMALL, **options})
    trainer.log = lines.append
    trainer.run()
    return lines


def test_every_network_is_rated_against_the_ladder_and_the_curve_is_written(tmp_path):
    run = tmp_path / "run"
    lines = train(run, iterations=2, ladder="random; mcts:simulations=30", ladder_games=4)
    from plyground.storage import read_json_lines
    rows = read_json_lines(run / "ladder.jsonl")
    assert [r["iteration"] for r in rows] == [0, 1, 2]
    for row in rows:
        assert row["anchor"] == "random" and row["opponents"]["random"] == 0.0
        assert {spec: s["games"] for spec, s in row["scores"].items()} == {"random": 4, "mcts:simulations=30": 4}
        assert row["lower"] <= row["elo"] <= row["upper"]
    assert rows[0]["training_seconds"] == 0.0 < rows[1]["training_seconds"] < rows[2]["training_seconds"]
    assert (run / "plots" / "ladder.png").stat().st_size > 1000
    # the ladder games: each opening twice, colours reversed, the network named by its iteration
    from plyground.storage import read_json
    games = read_json(run / "ladder" / "iter-0002.json")["games"]
    records = [record_from_json(g["record"]) for g in games]
    assert [r.players for r in records[:2]] == [("iter-0002", "random"), ("random", "iter-0002")]
    assert records[0].tags["Opening"] == records[1].tags["Opening"]
    # the rating shows in the progress lines of the next iteration's self-play
    assert any("self-play" in line and "ladder rating" in line for line in lines)
    assert any(line.startswith("[iter 2/2] ladder: iter-0002 rated") for line in lines)


def test_a_resumed_run_keeps_its_ladder_games(tmp_path):
    run = tmp_path / "run"
    train(run, iterations=1, ladder="random", ladder_games=2)
    before = (run / "ladder" / "iter-0001.json").read_bytes()
    lines = train(run, iterations=2, ladder="random", ladder_games=2)
    assert (run / "ladder" / "iter-0001.json").read_bytes() == before
    assert not any("[initial network] ladder 1/" in line for line in lines)
    assert any("[iter 2/2] ladder: iter-0002" in line for line in lines)


@pytest.mark.parametrize("ladder, problem", [
    ("random; nosuchplayer", "nosuchplayer"),
    ("random; random", "names a player twice"),
])
def test_a_bad_ladder_is_one_clear_error_before_any_game(tmp_path, ladder, problem):
    with pytest.raises(UsageError, match=problem):
        AlphaZeroTrainer(TicTacToe(), tmp_path / "run", **{**SMALL, "ladder": ladder})
    assert not (tmp_path / "run").exists()


def test_parse_ladder_keeps_commas_inside_a_spec():
    assert parse_ladder("mcts:simulations=1000; alphabeta:eval=learned,depth=4 ;") == (
        "mcts:simulations=1000", "alphabeta:eval=learned,depth=4")
    assert parse_ladder(None) == () == parse_ladder("none") == parse_ladder(" ")


def test_a_run_can_start_from_a_model_file(tmp_path):
    train(tmp_path / "first", iterations=1, comparison_games=0)
    start = tmp_path / "first" / "best.npz"
    train(tmp_path / "second", iterations=1, initial_model=start, comparison_games=0)
    initial = load_model(tmp_path / "second" / "checkpoints" / "iter-0000.npz", TicTacToe())
    given = load_model(start, TicTacToe())
    observations = np.random.default_rng(0).random((5, *TicTacToe().observation_shape)).astype(np.float32)
    for a, b in zip(initial.predict(observations), given.predict(observations)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.parametrize("options, problem", [
    (dict(network="mlp:hidden=32,layers=1"), "hidden=16"),
    (dict(lr=0.5), "lr=0.001"),
])
def test_an_initial_model_that_does_not_fit_the_options_is_refused(tmp_path, options, problem):
    train(tmp_path / "first", iterations=1, comparison_games=0)
    with pytest.raises(UsageError, match=problem):
        train(tmp_path / "second", iterations=1, initial_model=tmp_path / "first" / "best.npz", **options)


def test_a_damaged_initial_model_is_one_clear_error(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a model")
    with pytest.raises(PlygroundError, match="bad.npz"):
        train(tmp_path / "run", iterations=1, initial_model=bad)
