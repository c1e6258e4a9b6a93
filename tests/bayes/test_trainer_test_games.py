"""Reporting on a separate games file, reading with progress, and the streamed held-out report."""
import json

import numpy as np
import pytest

from plyground.games.chess import ChessGame
from plyground.plugins.bayes import evaluation, urgency
from plyground.games.chess.bayes_keys import ChessAdapter
from plyground.plugins.bayes.trainer import BayesTrainer

from test_chess_adapter import scripted_games


@pytest.fixture(scope="module")
def chess_game():
    return ChessGame(repetitions=0, no_progress_plies=0)


@pytest.fixture(scope="module")
def two_files(chess_game, tmp_path_factory):
    folder = tmp_path_factory.mktemp("pgn")
    train, test = folder / "train.pgn", folder / "test.pgn"
    train.write_text(chess_game.format_records(scripted_games(chess_game, n_games=24, seed=5)), encoding="utf-8")
    test.write_text(chess_game.format_records(scripted_games(chess_game, n_games=6, seed=9)), encoding="utf-8")
    return train, test


def test_test_games_file_is_reported_on_and_never_learned_from(chess_game, two_files, tmp_path, capsys):
    train, test = two_files
    trainer = BayesTrainer(chess_game, tmp_path / "run", games=train, test_games=test, plots=False)
    trainer.run()
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert report["data"]["train_games"] == report["data"]["games_read"] == 24     # no split of 'games'
    assert report["data"]["held_out_games"] == 6
    assert report["data"]["test_games_file"] == str(test)
    test_positions = sum(1 for s in ChessAdapter().read_games(test).games for _ in s.moves)
    single = report["held_out"]["positions_single_move_excluded"]
    assert report["held_out"]["positions"] + single == test_positions
    assert report["held_out"]["topk"][0] > 2 * report["held_out"]["random_topk"][0]
    err = capsys.readouterr().err
    assert "% of the file" in err and f"games read from {test.name}" in err
    assert "peak memory" in err


def test_a_run_resumes_only_with_the_same_test_file(chess_game, two_files, tmp_path):
    train, test = two_files
    BayesTrainer(chess_game, tmp_path / "run", games=train, test_games=test, plots=False).run()
    from plyground.errors import UsageError
    with pytest.raises(UsageError, match=r"test_games='.*test.pgn' \(now None\)"):
        BayesTrainer(chess_game, tmp_path / "run", games=train, plots=False)


def test_a_missing_test_file_is_named(chess_game, two_files, tmp_path):
    from plyground.errors import UsageError
    with pytest.raises(UsageError, match=r"test_games '.*nope.pgn' is neither an existing file nor a name: chess bundles no games; "
                                         r"give a PGN file of chess games"):
        BayesTrainer(chess_game, tmp_path / "run", games=two_files[0], test_games=tmp_path / "nope.pgn").run()


def test_streamed_report_equals_the_one_made_in_memory(two_files):
    adapter = ChessAdapter()
    games = adapter.read_games(two_files[0]).games
    model_rng = np.random.default_rng(1)
    from plyground.plugins.bayes.model import BayesModel
    size = adapter.key_space("hybrid-tactical")
    model = BayesModel.empty("urgency", "chess", adapter.version, "hybrid-tactical", size, beta=1.0)
    model.tau[:] = model_rng.normal(size=size)
    model.rho[:] = 1.0
    encode = lambda g: adapter.encode_games(g, "hybrid-tactical", None)  # noqa: E731
    whole = evaluation.EvalSet.from_encoded(urgency, encode(games), size)
    in_memory = evaluation.summarize(whole.ranks(model.means()), whole, adapter.move_type_names)
    streamed = evaluation.evaluate_streamed(urgency, model, games, encode, 5, size, adapter.move_type_names)
    assert streamed == in_memory
    first = evaluation.EvalSet.from_encoded(urgency, encode(games[:7]), size)
    resumed = evaluation.evaluate_streamed(urgency, model, games[7:], encode, 5, size, adapter.move_type_names,
                                           encoded=first)
    assert resumed == in_memory
