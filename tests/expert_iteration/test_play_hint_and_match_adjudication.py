"""The game spec a Deep Pepper model plays, and Stockfish adjudication outside self-play.

* ``plyground train expert-iteration --game chess`` prints a ``play it:`` line
  with ``--game chess:encoding=deep_pepper`` (the encoding the trainer switched
  to), and the AlphaZero player's refusal of a model of another encoding names
  that spec;
* ``play_game``'s adjudicator ends a game early with the verdict's result and
  reason;
* the trainer's comparison and evaluation games are adjudicated (as plain wins)
  when ``adjudicate`` and ``adjudicate_comparison`` are on, and played out
  otherwise;
* pretraining with ``pretrain_random_opponent`` reaches lopsided positions, and
  one MultiPV search labels a position as a search per child would.
"""
import json
import math
from pathlib import Path

import numpy as np
from plyground.files.storage import read_json_lines
import pytest
from stockfish_marks import STOCKFISH, needs_stockfish

from plyground.cli import main
from plyground.errors import ModelFileError
from plyground.games.chess.game import ChessGame
from plyground.games.tictactoe import TicTacToe
from plyground.play.match import play_game
from plyground.players.alphazero.networks import load_model
from plyground.plugins.trainers.alphazero.rundir import RunDirectory
from plyground.plugins.trainers.expert_iteration.pretrain import label_position, make_dataset
from plyground.plugins.trainers.expert_iteration.stockfish import MATE_CP, StockfishAdjudicator, StockfishEvaluator
from plyground.plugins.trainers.expert_iteration.trainer import ExpertIterationTrainer
from plyground.registry import get_registry
from plyground.learning.train_command import played_game_spec

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "expert-iteration-chess.toml"
TINY = {"network": "deep-pepper-parts:h1a=8,h1b=16,h1c=16,h2p=32,h2e=8", "iterations": 1, "selfplay_games": 2,
        "simulations": 4, "leaf_batch": 2, "parallel_games": 2, "max_plies": 12, "comparison_games": 2,
        "comparison_simulations": 2, "epochs": 1, "batch_size": 8, "save_every": 1, "adjudicate_after": 4,
        "adjudicate_depth": 1, "pretrain_positions": 0, "plots": False, "workers": 1}
QUEEN_UP_BLACK_TO_MOVE = "4k3/8/8/8/8/8/8/Q3K3 b - - 0 1"


class FixedJudge:
    """Stands in for Stockfish: every position is worth ``cp`` to the side to move."""
    depth = 1

    def __init__(self, cp):
        self.cp = cp
        self.calls = 0

    def evaluate(self, state):
        self.calls += 1
        return self.cp

    def close(self):
        pass


# ------------------------------------------------------------ the game spec the model plays
def test_played_game_spec_adds_the_parameters_the_trainer_changed():
    plain, pepper = ChessGame(), ChessGame(encoding="deep_pepper")
    assert played_game_spec("chess", plain, pepper) == "chess:encoding=deep_pepper"
    assert played_game_spec("chess:repetitions=0", ChessGame(repetitions=0),
                            ChessGame(repetitions=0, encoding="deep_pepper")) == "chess:repetitions=0,encoding=deep_pepper"
    assert played_game_spec("chess:encoding=deep_pepper", pepper, pepper) == "chess:encoding=deep_pepper"
    assert played_game_spec("tictactoe", TicTacToe(), TicTacToe()) == "tictactoe"


def test_train_command_prints_a_play_line_that_works(tmp_path, capsys):
    run_dir = tmp_path / "dp"
    args = ["train", "expert-iteration", "--game", "chess", "--run", str(run_dir), "--config", str(CONFIG),
            "--quiet", "--set", "adjudicate=false"]
    for key, value in TINY.items():
        args += ["--set", f"{key}={value}"]
    try:
        main(args)
    except SystemExit as exc:
        assert exc.code == 0
    line = next(l for l in capsys.readouterr().out.splitlines() if l.startswith("play it:"))
    assert f"--game chess:encoding=deep_pepper --white alphazero:model={run_dir}/best.npz" in line
    # the printed game spec builds a game the model loads into
    game_spec = line.split("--game ")[1].split()[0]
    player = get_registry().make_player(f"alphazero:model={run_dir},simulations=2", get_registry().make_game(game_spec))
    assert player.network.metadata["game_params"]["encoding"] == "deep_pepper"
    # plain `--game chess` is refused with the spec that works
    with pytest.raises(ModelFileError, match=r"play it with --game chess:encoding=deep_pepper"):
        load_model(run_dir / "best.npz", ChessGame())


# ------------------------------------------------------------ play_game's adjudicator
def test_play_game_ends_when_the_adjudicator_says_so():
    game = TicTacToe()
    players = [get_registry().make_player("random", game) for _ in range(2)]
    seen = []

    def second_player_wins_after_three_plies(state, plies):
        seen.append(plies)
        return ((-1.0, 1.0), "adjudicated: O is winning") if plies == 3 else None

    record = play_game(game, players, seed=1, adjudicator=second_player_wins_after_three_plies)
    assert len(record.moves) == 3 and seen == [0, 1, 2, 3]
    assert record.returns == (-1.0, 1.0) and record.reason == "adjudicated: O is winning" and record.finished
    played_out = play_game(game, players, seed=1, adjudicator=lambda state, plies: None)
    assert played_out.moves == play_game(game, players, seed=1).moves and played_out.reason != ""


@needs_stockfish
def test_stockfish_adjudicates_a_match_game_from_a_decisive_position():
    game = ChessGame(encoding="deep_pepper")
    players = [get_registry().make_player("random", game) for _ in range(2)]
    with StockfishEvaluator(STOCKFISH, depth=6) as judge:
        rule = StockfishAdjudicator(judge, after_plies=0, threshold_cp=500, value="result")
        record = play_game(game, players, start=game.new_state(QUEEN_UP_BLACK_TO_MOVE), seed=0, adjudicator=rule)
    assert record.moves == [] and record.returns == (1.0, -1.0) and record.result_text == "1-0"
    assert record.reason.startswith("Black resigns (Stockfish adjudication:")
    assert "[Termination \"adjudication\"]" in game.format_records([record])


# ------------------------------------------------------------ the trainer's comparison and evaluation games
def _run_with_judge(tmp_path, judge, **options):
    trainer = ExpertIterationTrainer(ChessGame(), tmp_path / "run",
                                     **{**TINY, "adjudicate": True, "evaluation_games": 2, "gate_strict": False,
                                        **options})
    trainer.log = lambda line: None
    trainer.playbook._evaluator = judge  # the playbook's Stockfish, replaced by the stand-in
    trainer.run()
    return tmp_path / "run"


def _records(path):
    return [g["record"] for g in read_json_lines(path)]


def test_comparison_and_evaluation_games_are_adjudicated_as_wins(tmp_path):
    judge = FixedJudge(900)             # the side to move is always 900 cp up
    run_dir = _run_with_judge(tmp_path, judge)
    comparison = _records(run_dir / "comparison" / "iter-0001.jsonl")
    evaluation = _records(run_dir / "evaluation" / "iter-0001.jsonl")
    for record in comparison + evaluation:
        # after 4 plies White is to move and 900 cp up: Black resigns, a plain 1-0 (not tanh(900/400))
        assert len(record["moves"]) == 4 and record["returns"] == [1.0, -1.0]
        assert record["reason"] == "Black resigns (Stockfish adjudication: +900 cp for White at depth 1 after 4 plies)"
    assert judge.calls == 6             # one decisive check in each game: 2 self-play, 2 comparison, 2 evaluation
    row = json.loads((run_dir / "metrics.jsonl").read_text().splitlines()[0])
    # the new network had White in one game of two: one win, one loss
    assert (row["gate"]["wins"], row["gate"]["draws"], row["gate"]["losses"]) == (1, 0, 1)
    assert (row["evaluation"]["wins"], row["evaluation"]["losses"]) == (1, 1)
    # self-play keeps the scaled training value
    chunks = list(RunDirectory(run_dir, ChessGame(encoding="deep_pepper")).iter_chunks(range(1, 2)))
    selfplay = [record for _, records in chunks for record in records]
    assert len(selfplay) == 2
    assert all(r.returns == pytest.approx((math.tanh(900 / 400), -math.tanh(900 / 400))) for r in selfplay)


def test_adjudicate_comparison_false_plays_them_out(tmp_path):
    judge = FixedJudge(900)
    run_dir = _run_with_judge(tmp_path, judge, adjudicate_comparison=False)
    assert judge.calls == 2             # one decisive check per self-play game, none in the other games
    for record in _records(run_dir / "comparison" / "iter-0001.jsonl") + _records(run_dir / "evaluation" / "iter-0001.jsonl"):
        assert "adjudication" not in record["reason"] and len(record["moves"]) > 4


# ------------------------------------------------------------ pretraining on lopsided games
@needs_stockfish
def test_random_opponent_games_give_decisive_pretraining_labels():
    game = ChessGame(encoding="deep_pepper")
    decisive = {}
    with StockfishEvaluator(STOCKFISH, depth=2, all_moves=True) as judge:
        for fraction in (0.0, 1.0):
            _, policies, values = make_dataset(game, judge, 60, random_opponent=fraction, seed=3)
            assert policies.shape == (60, game.num_actions) and np.allclose(policies.sum(axis=1), 1.0, atol=1e-5)
            decisive[fraction] = int(np.sum(np.abs(values) > 0.9))
    assert decisive[1.0] > decisive[0.0] and decisive[1.0] >= 10


# ------------------------------------------------------------ one MultiPV search scores every move
@needs_stockfish
def test_one_multipv_search_scores_every_move_like_a_search_per_child():
    game = ChessGame(encoding="deep_pepper")
    state = game.new_state("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")       # Rxd5 wins the queen
    with StockfishEvaluator(STOCKFISH, depth=4, all_moves=True) as judge:
        scores = judge.evaluate_moves(state)
        obs, policy, value, moves, probabilities = label_position(judge, state, game.num_actions,
                                                                  temperature_cp=100, scale_cp=400)
    assert set(scores) == {state.move_to_uci(m) for m in state.legal_moves()}
    assert max(scores, key=scores.get) == "d1d5" and scores["d1d5"] > 500
    assert state.move_to_uci(moves[int(np.argmax(probabilities))]) == "d1d5" and value > 0.8
    assert policy[state.action_index(state.parse_move("Rxd5"))] > 0.9
    mate = game.new_state("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")        # Ra8 mates
    with StockfishEvaluator(STOCKFISH, depth=3, all_moves=True) as judge:
        assert judge.evaluate_moves(mate)["a1a8"] == MATE_CP
    with StockfishEvaluator(STOCKFISH, depth=3) as judge, pytest.raises(RuntimeError, match="all_moves=True"):
        judge.evaluate_moves(mate)


def test_the_documented_config_resolves_against_the_trainer():
    from plyground.options import resolve_options
    from plyground.learning.train_command import _split_config, read_toml
    path = CONFIG.parent / "deep-pepper-chess.toml"
    trainer, game, options = _split_config(read_toml(path), str(path))
    assert (trainer, game) == ("expert-iteration", "chess")
    resolved = resolve_options(get_registry().get("trainers", "expert-iteration").options, options, str(path))
    assert resolved["workers"] == 1 and resolved["threads"] == 1 and resolved["pretrain_positions"] > 0
    assert resolved["fpu"] == -1.0 and resolved["adjudicate_scale"] == 1500.0
