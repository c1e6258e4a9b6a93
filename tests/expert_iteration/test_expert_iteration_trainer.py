"""`plyground train expert-iteration`: a tiny chess run end to end through the real command, then resumed."""
import json
from pathlib import Path

import pytest
from stockfish_marks import STOCKFISH

from plyground.cli import main
from plyground.errors import UsageError
from plyground.games.chess.game import ChessGame
from plyground.games.tictactoe import TicTacToe
from plyground.players.alphazero.networks import load_model
from plyground.plugins.trainers.expert_iteration.trainer import ExpertIterationTrainer
from plyground.registry import get_registry

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "expert-iteration-chess.toml"
TINY = {"network": "deep-pepper-parts:h1a=8,h1b=16,h1c=16,h2p=32,h2e=8", "selfplay_games": 2, "simulations": 4,
        "leaf_batch": 2, "parallel_games": 2, "max_plies": 12, "comparison_games": 2, "comparison_simulations": 2,
        "epochs": 1, "batch_size": 8, "save_every": 1, "adjudicate_after": 4, "adjudicate_depth": 1,
        "pretrain_depth": 1, "pretrain_epochs": 1, "plots": False}


def sets(**extra):
    out = []
    for key, value in {**TINY, **extra}.items():
        out += ["--set", f"{key}={value}"]
    return out


def train(run_dir, **extra):
    if STOCKFISH is None:
        extra = {"adjudicate": False, "pretrain_positions": 0, **extra}
    try:
        main(["train", "expert-iteration", "--game", "chess", "--run", str(run_dir), "--config", str(CONFIG),
              *sets(**extra), "--quiet"])
    except SystemExit as exc:
        return exc.code
    return 0


def test_registered_with_deep_pepper_defaults():
    entry = get_registry().get("trainers", "expert-iteration")
    defaults = {o.name: o.default for o in entry.options}
    assert defaults["network"] == "deep-pepper-parts" and defaults["optimizer"] == "adam"
    assert defaults["replace_threshold"] == 50.0 and defaults["gate_strict"] is True
    assert defaults["encoding"] == "deep_pepper" and defaults["adjudicate"] is True
    assert defaults["dirichlet_epsilon"] > 0 and defaults["temperature_plies"] > 0


def test_gate_needs_more_than_half(tmp_path):
    trainer = ExpertIterationTrainer(ChessGame(), tmp_path / "run", adjudicate=False)
    assert trainer.game.params["encoding"] == "deep_pepper" and trainer.game.observation_shape == (353,)
    assert not trainer.gate.passes(50.0) and trainer.gate.passes(50.1)
    lenient = ExpertIterationTrainer(ChessGame(), tmp_path / "run2", adjudicate=False, gate_strict=False)
    assert lenient.gate.passes(50.0)


def test_adjudication_needs_chess(tmp_path):
    with pytest.raises(UsageError, match="need chess"):
        ExpertIterationTrainer(TicTacToe(), tmp_path / "run", network="mlp:hidden=8,layers=1")


def test_tiny_run_end_to_end_and_resume(tmp_path):
    run_dir = tmp_path / "dp"
    assert train(run_dir, iterations=1, pretrain_positions=6) == 0
    state = json.loads((run_dir / "state.json").read_text())
    assert state["iteration"] == 2 and state["fixed"]["encoding"] == "deep_pepper"
    game = ChessGame(encoding="deep_pepper")
    best = load_model(run_dir / "best.npz", game)
    assert best.name == "deep-pepper-parts" and best.metadata["network"] == "deep-pepper-parts"
    initial = load_model(run_dir / "checkpoints" / "iter-0000.npz", game)
    if STOCKFISH is not None:
        assert state["pretrained"] is True and initial.metadata["role"] == "pretrained"
        assert len(initial.metadata["pretrain_losses"]) == 1
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in rows] == [1] and rows[0]["selfplay_games"] == 2
    assert rows[0]["gate"]["wins"] + rows[0]["gate"]["draws"] + rows[0]["gate"]["losses"] == 2

    # resume: extend the finished run by one iteration with the same command
    assert train(run_dir, iterations=2, pretrain_positions=6) == 0
    state = json.loads((run_dir / "state.json").read_text())
    assert state["iteration"] == 3
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in rows] == [1, 2]
    assert (run_dir / "checkpoints" / "iter-0002.npz").is_file()
    # a fixed option cannot change mid-run
    assert train(run_dir, iterations=3, encoding="planes") == 2
