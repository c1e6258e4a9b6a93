"""The bonanza trainer end to end: outputs, learning on a slice of the archive, resuming, bad input."""
import json
from pathlib import Path

import numpy as np
import pytest

from plyground.errors import UsageError
from plyground.games.checkers import CheckersGame
from plyground.games.checkers.pdn import format_records
from plyground.games.tictactoe import TicTacToe
from plyground.play.match import play_game
from plyground.games.checkers.alphabeta import features
from plyground.players.alphabeta import AlphaBetaPlayer
from plyground.players.alphabeta.evalfile import load_weights
from plyground.players.random_player import RandomPlayer
from plyground.registry import get_registry
from plyground.games.checkers.alphabeta.learning import CheckersLearning
from plyground.plugins.trainers.bonanza import BonanzaTrainer
from plyground.plugins.trainers.bonanza.leaves import move_values
from plyground.plugins.trainers.bonanza.objective import agreement


def random_pdn(path: Path, count: int, seed: int) -> None:
    game = CheckersGame()
    records = [play_game(game, [RandomPlayer(game), RandomPlayer(game)], seed=seed * 100 + i, max_plies=60)
               for i in range(count)]
    path.write_text(format_records(records), encoding="utf-8")


@pytest.fixture(scope="module")
def small_pdn(tmp_path_factory):
    path = tmp_path_factory.mktemp("pdn") / "games.pdn"
    random_pdn(path, 12, seed=1)
    return path


def quick(run_dir, games, **options):
    defaults = dict(games=str(games), depth=1, iterations=6, recompute=3, test_split=0.25)
    defaults.update(options)
    return BonanzaTrainer(CheckersGame(), run_dir, **defaults)


def test_a_run_writes_every_output(tmp_path, small_pdn, capsys):
    run_dir = tmp_path / "run"
    artifact = quick(run_dir, small_pdn).run()
    assert artifact == run_dir / "eval.npz"
    names = {p.name for p in run_dir.iterdir()}
    assert {"eval.npz", "report.json", "metrics.jsonl", "heatmap.png", "config.json", "checkpoint.npz"} <= names
    assert not [n for n in names if n.endswith(".tmp")]
    weights, meta = load_weights(artifact, features.metadata())
    assert meta["trainer"] == "bonanza" and meta["iteration"] == 6
    report = json.loads((run_dir / "report.json").read_text())
    assert set(report["agreement"]) >= {"random", "material", "learned", "depth", "positions"}
    assert report["data"]["test_games"] == 3 and report["data"]["train_games"] == 9
    assert report["training"]["seconds"] >= 0 and report["training"]["iterations"] == 6
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in rows if "event" not in r] == list(range(1, 7))
    assert [r["iteration"] for r in rows if r.get("event") == "leaves"] == [0, 3]
    err = capsys.readouterr().err
    assert "iteration 6/6" in err and "ETA" in err and "held-out agreement" in err
    assert (run_dir / "heatmap.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The learned evaluation plays.
    game = CheckersGame()
    player = AlphaBetaPlayer(game, eval=str(artifact), depth=2)
    assert player.choose_move(game.new_initial_state()) in game.new_initial_state().legal_moves()


def test_resuming_gives_the_same_weights_as_an_uninterrupted_run(tmp_path, small_pdn, monkeypatch):
    straight = quick(tmp_path / "straight", small_pdn, iterations=8).run()
    # A run that stops after 4 iterations, then is continued with more iterations.
    quick(tmp_path / "resumed", small_pdn, iterations=4).run()
    # A crash in the middle: the run dies in its 7th iteration (after the checkpoint at 6).
    import plyground.plugins.trainers.bonanza.trainer as trainer_module
    real = trainer_module.Objective

    class Crashing(real):
        calls = 0

        def __call__(self, w, want_grad=True):
            Crashing.calls += 1
            if Crashing.calls == 3:          # iterations 5, 6 run; the 7th crashes
                raise KeyboardInterrupt
            return super().__call__(w, want_grad)

    monkeypatch.setattr(trainer_module, "Objective", Crashing)
    with pytest.raises(KeyboardInterrupt):
        quick(tmp_path / "resumed", small_pdn, iterations=8).run()
    monkeypatch.setattr(trainer_module, "Objective", real)
    resumed = quick(tmp_path / "resumed", small_pdn, iterations=8).run()
    a, _ = load_weights(straight, features.metadata())
    b, _ = load_weights(resumed, features.metadata())
    assert np.array_equal(a, b)
    rows = [json.loads(line) for line in (tmp_path / "resumed" / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in rows if "event" not in r] == list(range(1, 9))
    # Rerunning a finished run does no more training.
    again = quick(tmp_path / "resumed", small_pdn, iterations=8).run()
    assert np.array_equal(load_weights(again, features.metadata())[0], b)


def test_a_rerun_with_other_options_is_refused(tmp_path, small_pdn):
    quick(tmp_path / "run", small_pdn, iterations=3).run()
    with pytest.raises(UsageError, match="was started with slope=0.32, not 0.05"):
        quick(tmp_path / "run", small_pdn, iterations=3, slope=0.05).run()


def test_unreadable_games_are_reported_and_the_rest_used(tmp_path, capsys):
    good = tmp_path / "good.pdn"
    random_pdn(good, 3, seed=2)
    text = good.read_text()
    games = text.split("\n\n[")
    # Game 2 gets an illegal first move: 30-26 would move a White man on Black's turn.
    games[1] = games[1].replace("\n1. ", "\n1. 30-26 ", 1)
    broken = tmp_path / "broken.pdn"
    broken.write_text("\n\n[".join(games))
    read, errors = CheckersLearning().read_games(broken, log=lambda m: print(m))
    assert [g.number for g in read] == [1, 3]
    assert len(errors) == 1 and "game 2, line" in errors[0] and "30-26" in errors[0]
    run_dir = tmp_path / "run"
    quick(run_dir, broken, test_split=0.0, iterations=2).run()
    report = json.loads((run_dir / "report.json").read_text())
    assert report["data"]["games_read"] == 2 and report["data"]["unreadable_games"] == 1
    assert "game 2, line" in report["data"]["errors"][0]
    assert "skipped an unreadable game" in capsys.readouterr().err


def test_bad_options_are_refused(tmp_path, small_pdn):
    with pytest.raises(UsageError, match="needs expert games: set games=PATH"):
        BonanzaTrainer(CheckersGame(), tmp_path)
    with pytest.raises(UsageError, match="cannot train tictactoe"):
        BonanzaTrainer(TicTacToe(), tmp_path, games=str(small_pdn))
    with pytest.raises(UsageError, match=r"games .*missing\.pdn. is neither an existing file nor the name of games "
                                         r"bundled with checkers \(acf\)"):
        quick(tmp_path / "x", tmp_path / "missing.pdn").run()
    with pytest.raises(UsageError, match="option 'penalty'"):
        quick(tmp_path / "x", small_pdn, penalty="l3")


def test_training_on_a_slice_of_the_archive_improves_agreement_on_it(tmp_path, acf_pdn):
    run_dir = tmp_path / "acf"
    artifact = quick(run_dir, acf_pdn, max_games=60, test_split=0.0, iterations=40, recompute=10).run()
    learned, _ = load_weights(artifact, features.metadata())
    learning = CheckersLearning()
    games, _ = learning.read_games(acf_pdn, max_games=60)
    positions = learning.positions(games, range(len(games)))
    result = {}
    for label, w in (("material", features.material_weights()), ("learned", learned)):
        top1, top3 = agreement(move_values(learning, positions, w, 1), positions.offsets, positions.expert)
        result[label] = (top1 / positions.size, top3 / positions.size)
    assert result["learned"][0] > result["material"][0] + 0.05, result
    assert result["learned"][1] > result["material"][1], result


def test_the_trainer_is_built_from_the_registry_as_the_train_command_does(tmp_path, small_pdn):
    registry = get_registry()
    entry = registry.get("trainers", "bonanza")
    assert {"games", "test_split", "depth", "slope", "penalty", "penalty_strength", "iterations", "recompute",
            "lr", "seed"} <= {o.name for o in entry.options}
    game = registry.make_game("checkers")
    # Options arrive as text from --set k=v.
    trainer = entry.cls(game, tmp_path / "run", games=str(small_pdn), iterations="2", depth="0", test_split="0.25")
    assert trainer.run().exists()
    assert entry.cls.produces.format(run=tmp_path / "run") == f"alphabeta:eval={tmp_path / 'run'}/eval.npz"


def cli(capsys, *args):
    from plyground.cli import main
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    out, err = capsys.readouterr()
    return code, out + err


def test_plyground_train_and_match_commands(tmp_path, small_pdn, capsys):
    run_dir = tmp_path / "run"
    code, output = cli(capsys, "train", "bonanza", "--game", "checkers", "--run", str(run_dir),
                       "--set", f"games={small_pdn}", "--set", "iterations=3", "--set", "depth=0",
                       "--set", "recompute=2")
    assert code == 0, output
    assert "--white alphabeta:eval=" in output and (run_dir / "eval.npz").exists()
    # Rerunning with more iterations continues the run (the options come back from DIR/config.toml).
    code, output = cli(capsys, "train", "bonanza", "--run", str(run_dir), "--set", "iterations=4")
    assert code == 0, output
    assert "resuming at iteration 3 of 4" in output
    assert load_weights(run_dir / "eval.npz", features.metadata())[1]["iteration"] == 4
    # The learned evaluation plays a match.
    code, output = cli(capsys, "match", "--game", "checkers", "--black", f"alphabeta:eval={run_dir / 'eval.npz'},depth=2",
                       "--white", "random", "-n", "2", "--quiet")
    assert code == 0 and "2 games" in output, output
    # A weights file for something else stops the command with one clear line.
    other = tmp_path / "other.npz"
    from plyground.players.alphabeta.evalfile import save_weights
    save_weights(other, np.zeros(5), {"game": "checkers", "feature_set": "another", "feature_set_version": 1})
    code, output = cli(capsys, "match", "--game", "checkers", "--black", f"alphabeta:eval={other}",
                       "--white", "random", "-n", "2")
    assert code == 2 and "uses the feature set 'another'" in output, output
