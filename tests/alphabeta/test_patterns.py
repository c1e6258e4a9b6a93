"""Checkers' pattern evaluation (games/checkers/alphabeta/patterns.py, docs/patterns.md): its compiled value is the
float64 reference's and its sparse features' (colour-reversed twins alike), its model files round-trip and bad ones
are refused by name, a small logistic regression on the nnue trainer's examples lowers the held-out loss, and the
alphabeta player searches with it (eval=PATH): the move the evaluation likes best at depth 1, a legal move deeper."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from plyground.capabilities import nnue_learning, winning_chances_slope
from plyground.errors import ModelFileError
from plyground.games.checkers import CheckersGame
from plyground.games.checkers.bits import reverse_board
from plyground.games.checkers.alphabeta import features, nnue, pattern_fit, patterns
from plyground.players.alphabeta.evalfile import save_weights
from plyground.plugins.trainers.nnue.examples import GameRecords, examples_of
from plyground.protocols import Budget
from plyground.registry import get_registry
from plyground.files.storage import save_npz

from move_helpers import random_play

GAME = CheckersGame()
KERNELS = GAME.kernels()
REPO = Path(__file__).resolve().parents[2]


def _positions(count: int, seed: int) -> list[np.ndarray]:
    """Positions 0 to 150 random plies into games: openings, middlegames with kings, endgames."""
    rng = np.random.default_rng(seed)
    return [KERNELS.state_to_pos(random_play(GAME.new_initial_state(), int(rng.integers(0, 150)), rng))
            for _ in range(count)]


def _twin(pos: np.ndarray) -> np.ndarray:
    """The position with the colours reversed and the board turned half a turn: the same for its side to move."""
    twin = pos.copy()
    for board, other in ((0, 2), (1, 3), (2, 0), (3, 1)):
        twin[board] = reverse_board(int(pos[other]))
    twin[4] = 1 - pos[4]
    return twin


@pytest.fixture(scope="module")
def model() -> patterns.PatternWeights:
    return patterns.initial(seed=5, scale=0.2)


def test_the_compiled_value_is_the_float64_reference_and_the_sparse_features_dot_product(model):
    W = patterns.arrays(model)[0]
    exact = W.astype(np.float64)                  # the weights the search reads, in float64
    idx = np.empty(patterns.MAX_ENTRIES, np.int64)
    val = np.empty(patterns.MAX_ENTRIES, np.float64)
    values, worst, kings, sides = [], 0.0, 0, set()
    for pos in _positions(200, seed=1):
        value = patterns.evaluate(pos, W)
        n, phase = patterns.sparse_features(pos, idx, val)
        dot = float(np.sum(val[:n] * (phase * exact[idx[:n], 0] + (1.0 - phase) * exact[idx[:n], 1])))
        worst = max(worst, abs(value - patterns.reference_value(exact, pos)), abs(value - dot),
                    abs(value - patterns.evaluate(_twin(pos), W)))
        values.append(value)
        kings += bool(pos[1] | pos[3])
        sides.add(int(pos[4]))
    # All three sum the same float32 weights in float64, the compiled value and the reference in the same order
    # and the dot product in another: at most a few ulps of sums of ~40 terms of up to a few hundred units.
    assert worst < 1e-9
    assert np.std(values) > 10.0 and kings > 50 and sides == {0, 1}      # the weights tell the positions apart
    # The search's float32 weights are the model's float64 ones to float32 rounding.
    pos = _positions(1, seed=2)[0]
    assert patterns.evaluate(pos, W) == pytest.approx(
        patterns.reference_value(model.weights * patterns.OUTPUT_SCALE, pos), abs=1e-3)


def test_each_block_is_read_from_its_eight_squares():
    """Block (row, pair): rows row..row+3, columns 2 pair..2 pair+3, the state's digits in square order."""
    assert len(patterns.BLOCKS) == 9 and patterns.STATES == 6561
    start = KERNELS.state_to_pos(GAME.new_initial_state())           # Black on 1-12, White on 21-32
    own, other = int(start[0]), int(start[2])
    top = sum(3 ** i for i in range(6))                    # rows 0-2 Black's (own), row 3 empty
    middle = 1 + 3 + 2 * (3 ** 6 + 3 ** 7)                 # row 2 own, rows 3-4 empty, row 5 White's
    bottom = 2 * sum(3 ** i for i in range(2, 8))          # row 4 empty, rows 5-7 White's
    assert [patterns.block_state(own, other, b) for b in range(9)] == [top] * 3 + [middle] * 3 + [bottom] * 3


def test_the_model_file_round_trips(tmp_path, model):
    path = tmp_path / "patterns.npz"
    patterns.save(path, model, {"trained_on": "games.npz"})
    loaded, meta = patterns.load(path)
    assert np.array_equal(loaded.weights, model.weights)
    assert meta["format"] == "plyground-patterns" and meta["format_version"] == 1
    assert meta["feature_set"] == "checkers-patterns" and meta["trained_on"] == "games.npz"
    assert meta["feature_count"] == patterns.FEATURE_COUNT == 37 + 9 * 6561


def _written(tmp_path: Path, name: str, weights, **changes) -> Path:
    meta = {"format": "plyground-patterns", "format_version": 1, **patterns.FEATURES, **changes}
    path = tmp_path / name
    save_npz(path, {} if weights is None else {"weights": weights}, meta)
    return path


def test_bad_model_files_are_refused_by_name(tmp_path, model):
    good = model.weights
    cases = [
        (_written(tmp_path, "v2.npz", good, format_version=2), "format version 2 is not supported"),
        (_written(tmp_path, "game.npz", good, game="chess"), "pattern evaluation for game 'chess', not 'checkers'"),
        (_written(tmp_path, "set.npz", good, feature_set_version=7), "feature_set_version 7, not 1"),
        (_written(tmp_path, "none.npz", None), "has no 'weights' array"),
        (_written(tmp_path, "shape.npz", good[:-1]), r"of shape \(59085, 2\); expected .* \(59086, 2\)"),
        (_written(tmp_path, "ints.npz", good.astype(np.int64)), "int64 of shape"),
        (_written(tmp_path, "nan.npz", np.where(np.arange(good.size).reshape(good.shape) == 7, np.nan, good)),
         "not finite"),
        (_written(tmp_path, "big.npz", np.where(np.arange(good.size).reshape(good.shape) == 7, 1e6, good)),
         "hold 1e\\+06 men"),
    ]
    network = tmp_path / "net.npz"
    nnue.save(network, nnue.initial(hidden=8, dense=4))
    cases.append((network, "is not a checkers pattern evaluation file .*'plyground-nnue'.*expected 'plyground-patterns'"))
    text = tmp_path / "text.npz"
    text.write_text("weights")
    cases.append((text, "corrupt or not an .npz archive"))
    cases.append((tmp_path / "absent.npz", "does not exist"))
    for path, message in cases:
        with pytest.raises(ModelFileError, match=message):
            patterns.load(path)


def test_the_player_reads_a_pattern_file_and_refuses_files_of_no_kind(tmp_path, model):
    registry = get_registry()
    path = tmp_path / "patterns.npz"
    patterns.save(path, model)
    player = registry.make_player(f"alphabeta:eval={path},depth=2,book=none", GAME)
    assert player.eval_info == {"eval": str(path), "kind": "patterns"}
    assert np.array_equal(player.weights.weights, model.weights)
    player.close()
    odd = _written(tmp_path, "odd.npz", model.weights, format="plyground-odd")
    with pytest.raises(ModelFileError, match="neither a linear evaluation file .* nor an NNUE network file or a "
                                             "pattern evaluation file .*format is 'plyground-odd'"):
        registry.make_player(f"alphabeta:eval={odd}", GAME)
    broken = _written(tmp_path, "broken.npz", model.weights[:3])
    with pytest.raises(ModelFileError, match="pattern evaluation file .*shape"):
        registry.make_player(f"alphabeta:eval={broken}", GAME)
    linear = tmp_path / "linear.npz"                    # a linear evaluation's file is still one
    save_weights(linear, features.material_weights(), features.metadata())
    assert registry.make_player(f"alphabeta:eval={linear}", GAME).eval_info["eval"] == str(linear)


@pytest.mark.parametrize("kernels", [True, False])
def test_a_one_ply_search_takes_the_child_the_evaluation_likes_best(tmp_path, model, kernels):
    path = tmp_path / "patterns.npz"
    patterns.save(path, model)
    player = get_registry().make_player(f"alphabeta:eval={path},depth=1,kernels={str(kernels).lower()},book=none",
                                        GAME)
    state = GAME.new_initial_state()
    scaled = model.weights * patterns.OUTPUT_SCALE
    values = {}
    for move in state.legal_moves():            # no capture is possible in the reply: every child is quiet
        child = state.clone()
        child.apply(move)
        values[move] = -patterns.reference_value(scaled, KERNELS.state_to_pos(child))
    move = player.choose_move(state.clone(), Budget())
    best = max(values.values())
    assert player.analysis()["value"] == pytest.approx(best, abs=1e-3)        # float32 weights: ~1e-5
    assert values[move] == pytest.approx(best, abs=1e-3)
    assert len(set(np.round(list(values.values()), 3))) > 3
    player.close()


def test_a_deeper_search_with_the_pattern_evaluation_returns_a_legal_move(tmp_path, model):
    path = tmp_path / "patterns.npz"
    patterns.save(path, model)
    player = get_registry().make_player(f"alphabeta:eval={path},depth=7,book=none", GAME)
    state = random_play(GAME.new_initial_state(), 12, np.random.default_rng(3))
    move = player.choose_move(state.clone(), Budget())
    assert move in state.legal_moves()
    analysis = player.analysis()
    assert analysis["depth"] == 7 and analysis["nodes"] > 1000
    player.close()


def _records(games: int, seed: int) -> GameRecords:
    """Random games, each move scored by a linear evaluation of the position before it (in men): material and
    a tenth of a man a quiet move, a teacher the patterns' terms can learn."""
    weights = features.material_weights()
    weights[features.MOBILITY] = 10.0              # a teacher that likes quiet moves, which patterns also count
    rng = np.random.default_rng(seed)
    played = []
    for _ in range(games):
        state = GAME.new_initial_state()
        codes, scores = [], []
        while not state.is_terminal() and len(codes) < 120:
            scores.append(features.evaluate(KERNELS.state_to_pos(state), weights) / features.MAN_MATERIAL)
            moves = state.legal_moves()
            codes.append(int(moves[int(rng.integers(len(moves)))]))
            state.apply(codes[-1])
        played.append((np.array(codes), np.array(scores), float(state.returns()[0]) if state.is_terminal() else 0.0))
    return GameRecords.empty().extend(played)


def test_a_small_logistic_regression_on_the_nnue_examples_lowers_the_held_out_loss():
    examples = examples_of(_records(24, seed=4), KERNELS, KERNELS.state_to_pos(GAME.new_initial_state()),
                           nnue_learning(GAME))
    slope = winning_chances_slope(GAME)
    targets = examples.targets(slope, 0.9)
    test = examples.groups % 4 == 0                  # a quarter of the games held out
    train_rows, test_rows = np.flatnonzero(~test), np.flatnonzero(test)
    assert 300 <= len(examples) <= 3000 and len(test_rows) > 50
    lines = []
    zero = patterns.PatternWeights(np.zeros((patterns.FEATURE_COUNT, patterns.PHASES)))   # not even material
    model, history = pattern_fit.fit(examples.positions, targets, train_rows, test_rows, slope=slope, epochs=20,
                                     batch=64, lr=0.02, l2=1e-3, start=zero, log=lines.append)
    before, after = history[0], history[-1]
    assert before["test_cross_entropy"] == pytest.approx(np.log(2.0))              # every value 0: sigmoid 1/2
    assert after["test_cross_entropy"] < before["test_cross_entropy"] - 0.1
    assert after["test_squared"] < 0.2 * before["test_squared"]
    assert (model.weights[patterns.MEN] > 0.3).all() and (model.weights[patterns.MOBILITY] > 0.05).all()
    assert len(lines) == 21 and "held out" in lines[-1]
    # the losses are the model's: recomputed from its weights, by the search's evaluation
    values = np.empty(len(test_rows))
    patterns.batch_values(examples.positions[test_rows], model.weights, values)
    z = slope * values
    assert np.mean(np.logaddexp(0.0, z) - targets[test_rows] * z) == pytest.approx(after["test_cross_entropy"])


def test_the_training_script_fits_a_games_file_into_a_playable_model_file(tmp_path):
    games = tmp_path / "gen-000.npz"
    _records(20, seed=6).save(games, {"depth": 1})
    out = tmp_path / "patterns.npz"
    run = subprocess.run([sys.executable, str(REPO / "benchmarks" / "patterns_train.py"), str(games), "--out",
                          str(out), "--epochs", "2", "--endgame", "off", "--compare"], capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "epoch 2/2" in run.stdout and "linear (learned)" in run.stdout
    model, meta = patterns.load(out)
    assert meta["games"] == 20 and meta["epochs"] == 2 and meta["trained_on"] == str(games)
    assert get_registry().make_player(f"alphabeta:eval={out},depth=2", GAME).eval_info["kind"] == "patterns"
