"""The ladder (every iteration's newest network rated against fixed opponents) and initial_model."""
import numpy as np
import pytest

from plyground.errors import PlygroundError, UsageError
from plyground.games.tictactoe import TicTacToe
from plyground.plugins.trainers.alphazero.ladder import parse_ladder
from plyground.players.alphazero.networks import load_model
from plyground.plugins.trainers.alphazero.trainer import AlphaZeroTrainer
from plyground.files.recordio import record_from_json

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
    from plyground.files.storage import read_json_lines
    rows = read_json_lines(run / "ladder.jsonl")
    assert [r["iteration"] for r in rows] == [0, 1, 2]
    for row in rows:
        assert row["anchor"] == "random" and row["opponents"]["random"] == 0.0
        assert {spec: s["games"] for spec, s in row["scores"].items()} == {"random": 4, "mcts:simulations=30": 4}
        assert row["lower"] <= row["elo"] <= row["upper"]
    assert rows[0]["training_seconds"] == 0.0 < rows[1]["training_seconds"] < rows[2]["training_seconds"]
    assert (run / "plots" / "ladder.png").stat().st_size > 1000
    # the ladder games: each opening twice, colours reversed, the network named by its iteration
    games = read_json_lines(run / "ladder" / "iter-0002.jsonl")
    records = [record_from_json(g["record"]) for g in games]
    assert [r.players for r in records[:2]] == [("iter-0002", "random"), ("random", "iter-0002")]
    assert records[0].tags["Opening"] == records[1].tags["Opening"]
    # the rating shows in the progress lines of the next iteration's self-play
    assert any("self-play" in line and "ladder rating" in line for line in lines)
    assert any(line.startswith("[iter 2/2] ladder: iter-0002 rated") for line in lines)


def test_a_resumed_run_keeps_its_ladder_games(tmp_path):
    run = tmp_path / "run"
    train(run, iterations=1, ladder="random", ladder_games=2)
    before = (run / "ladder" / "iter-0001.jsonl").read_bytes()
    lines = train(run, iterations=2, ladder="random", ladder_games=2)
    assert (run / "ladder" / "iter-0001.jsonl").read_bytes() == before
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
    (dict(optimizer="sgd"), "optimizer=adam"),
])
def test_an_initial_model_that_does_not_fit_the_options_is_refused(tmp_path, options, problem):
    train(tmp_path / "first", iterations=1, comparison_games=0)
    with pytest.raises(UsageError, match=problem):
        train(tmp_path / "second", iterations=1, initial_model=tmp_path / "first" / "best.npz", **options)


def test_an_initial_model_goes_on_at_the_runs_learning_rate(tmp_path):
    """A network annealed to a low rate is trained on at the run's (its optimiser's moments kept)."""
    train(tmp_path / "first", iterations=1, comparison_games=0)
    start = tmp_path / "first" / "best.npz"
    train(tmp_path / "second", iterations=1, initial_model=start, comparison_games=0, lr=0.004)
    initial = load_model(tmp_path / "second" / "checkpoints" / "iter-0000.npz", TicTacToe())
    given = load_model(start, TicTacToe())
    assert given.learning_rate() == 0.001 and initial.learning_rate() == 0.004 and initial.config["lr"] == 0.004
    for a, b in zip(initial.optimizer.state_dict()["state"].values(), given.optimizer.state_dict()["state"].values()):
        for key in a:
            np.testing.assert_array_equal(np.asarray(a[key]), np.asarray(b[key]))


def test_a_damaged_initial_model_is_one_clear_error(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a model")
    with pytest.raises(PlygroundError, match="bad.npz"):
        train(tmp_path / "run", iterations=1, initial_model=bad)


# ------------------------------------------------------------------ mistakes against perfect play

def test_the_ladder_counts_every_networks_mistakes_against_perfect_play(tmp_path):
    from plyground.capabilities import solved_positions
    from plyground.files.storage import read_json_lines
    run = tmp_path / "run"
    lines = train(run, iterations=2, comparison_games=0, mistakes="all", mistakes_positions=5,
                  mistakes_simulations=16)
    rows = read_json_lines(run / "mistakes.jsonl")
    assert [r["iteration"] for r in rows] == [0, 1, 2]
    by_class = solved_positions(TicTacToe(), "all", 5)
    for row in rows:
        assert row["set"] == "all" and row["simulations"] == 16
        assert list(row["classes"]) == ["Opening", "Middle", "End", "all"]
        assert all(row["classes"][c]["positions"] == 5 for c in ("Opening", "Middle", "End"))
        every = row["classes"]["all"]
        assert every["positions"] == 15
        assert every["mistakes"] == sum(row["classes"][c]["mistakes"] for c in by_class)
        assert every["lower"] <= every["percent"] <= every["upper"]
    assert rows[0]["training_seconds"] == 0.0 < rows[1]["training_seconds"] < rows[2]["training_seconds"]
    assert (run / "plots" / "mistakes.png").stat().st_size > 1000
    assert any(line.startswith("[iter 2/2] mistakes: iter-0002 ") and "on 15 positions at 16 simulations" in line
               for line in lines)
    # the row is the network's own count: the same player, positions and seeds counted again agree
    from plyground.play.mistakes import mistake_table
    trainer = AlphaZeroTrainer(TicTacToe(), run, **{**SMALL, "iterations": 2, "comparison_games": 0,
                                                    "mistakes": "all", "mistakes_positions": 5,
                                                    "mistakes_simulations": 16})
    player = trainer.playbook.probe_player(load_model(run / "checkpoints" / "iter-0002.npz", TicTacToe()), 16)
    table = mistake_table(player, by_class, 0)
    assert [t.mistakes for t in table] == [rows[2]["classes"][t.category]["mistakes"] for t in table]
    # tic-tac-toe knows each position's value too: the row says how often the network's value reads wrong
    from plyground.play.mistakes import value_table
    network = load_model(run / "checkpoints" / "iter-0002.npz", TicTacToe())
    flat = [p for group in by_class.values() for p in group]
    _, values = network.predict(np.stack([p.state.observation() for p in flat]))
    table = value_table(values, by_class)
    assert table[-1].positions == 15
    assert [t.mistakes for t in table] == [rows[2]["values"][t.category]["mistakes"] for t in table]
    assert "value right on" in next(line for line in lines if line.startswith("[iter 2/2] mistakes: iter-0002 "))
    # resumed with more iterations: the rows already counted are kept, not counted again
    lines = train(run, iterations=3, comparison_games=0, mistakes="all", mistakes_positions=5,
                  mistakes_simulations=16)
    assert [r["iteration"] for r in read_json_lines(run / "mistakes.jsonl")] == [0, 1, 2, 3]
    assert read_json_lines(run / "mistakes.jsonl")[:3] == rows
    assert sum("mistakes: iter-" in line for line in lines) == 1


def test_a_finished_run_resumed_with_mistakes_counts_every_network_it_has(tmp_path):
    from plyground.files.storage import read_json_lines
    run = tmp_path / "run"
    train(run, iterations=2, comparison_games=0)
    assert not (run / "mistakes.jsonl").exists()
    lines = train(run, iterations=2, comparison_games=0, mistakes="all", mistakes_positions=3,
                  mistakes_simulations=8)
    rows = read_json_lines(run / "mistakes.jsonl")
    assert [r["iteration"] for r in rows] == [0, 1, 2] and all(r["simulations"] == 8 for r in rows)
    assert not any("self-play" in line for line in lines)          # no more training, only the counting
    # other settings count every network again, replacing the rows
    train(run, iterations=2, comparison_games=0, mistakes="all", mistakes_positions=3, mistakes_simulations=4)
    rows = read_json_lines(run / "mistakes.jsonl")
    assert [(r["iteration"], r["simulations"]) for r in rows] == [(0, 4), (1, 4), (2, 4)]


def test_mistakes_simulations_0_counts_the_values_alone(tmp_path):
    from plyground.files.storage import read_json_lines
    run = tmp_path / "run"
    lines = train(run, iterations=1, comparison_games=0, mistakes="all", mistakes_positions=4, mistakes_simulations=0)
    rows = read_json_lines(run / "mistakes.jsonl")
    assert [r["iteration"] for r in rows] == [0, 1]
    for row in rows:
        assert row["classes"] == {} and row["simulations"] == 0
        assert row["values"]["all"]["positions"] == 12
    line = next(line for line in lines if line.startswith("[iter 1/1] mistakes: iter-0001 "))
    assert "value right on" in line and "simulations" not in line.split("(")[0]
    assert (run / "plots" / "mistakes.png").stat().st_size > 1000


def test_values_read_as_results_score_right_and_wrong_by_class():
    from plyground.capabilities import solved_positions
    from plyground.play.mistakes import value_table
    by_class = solved_positions(TicTacToe(), "all", 40)
    flat = [p for group in by_class.values() for p in group]
    truth = np.array([p.value for p in flat])
    assert set(truth.tolist()) == {0.0, 1.0}        # a lost position has no mistake to make: none is in the set
    assert [t.mistakes for t in value_table(0.9 * truth, by_class)] == [0, 0, 0, 0]
    wrong = value_table(-truth, by_class)                       # every win read as a loss: draws stay right
    assert wrong[-1].positions == len(flat) and wrong[-1].mistakes == int(np.count_nonzero(truth))
    halfway = value_table(np.where(truth != 0, 0.3 * truth, 0.0), by_class)   # inside the draw band
    assert halfway[-1].mistakes == int(np.count_nonzero(truth))
    with pytest.raises(ValueError, match="3 values for 120 positions"):
        value_table(truth[:3], by_class)


def test_a_perfect_player_makes_no_mistakes_and_a_random_one_many():
    from plyground.capabilities import solved_positions
    from plyground.play.mistakes import mistake_table
    from plyground.registry import get_registry
    game = TicTacToe()
    by_class = solved_positions(game, "all", 30)
    perfect = mistake_table(get_registry().make_player("alphabeta:depth=9", game), by_class)
    assert perfect[-1].positions == 90 and perfect[-1].mistakes == 0
    randomly = mistake_table(get_registry().make_player("random", game), by_class, seed=1)
    assert randomly[-1].mistakes > 30                    # about 60% of these moves lose a draw or a win


@pytest.mark.parametrize("game, mistakes, problem", [
    ("tictactoe", "dev", "tictactoe has no solved-position set 'dev'; valid sets: all"),
    ("chess", "all", "chess has no positions labelled by a perfect player; games that have them: "),
    ("checkers", "all", "unknown set of checkers endgame positions 'all'; valid sets: endgame, endgame-2, "),
    # the tests' endgame folder holds no database: the 5-piece one is not built on demand
    ("checkers", "endgame", "no 5-piece endgame database in .*; build it with: plyground endgame build --pieces 5"),
])
def test_mistakes_on_a_set_the_game_lacks_is_one_clear_error_before_any_game(tmp_path, game, mistakes, problem):
    from plyground.registry import get_registry
    with pytest.raises(UsageError, match=f"mistakes={mistakes}: {problem}"):
        AlphaZeroTrainer(get_registry().make_game(game), tmp_path / "run", **{**SMALL, "mistakes": mistakes})
    assert not (tmp_path / "run").exists()
