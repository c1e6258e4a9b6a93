"""The alphazero player: options, model files (wrong game, corrupt, run directories), play through the CLI."""
import numpy as np
import pytest

from plyground.errors import ModelFileError, UsageError
from plyground.games.checkers import CheckersGame
from plyground.games.tictactoe import TicTacToe
from plyground.play.match import play_game
from plyground.players.alphazero import AlphaZeroPlayer
from plyground.players.alphazero.networks import build_network
from plyground.protocols import Budget
from plyground.registry import get_registry

from aztestgames import tiny_model
from testgames import DoubleTake




@pytest.fixture
def ttt_model(tmp_path):
    return tiny_model(TicTacToe(), tmp_path / "ttt.npz")


def test_registered_with_declared_options():
    entry = get_registry().get("players", "alphazero")
    names = {o.name for o in entry.options}
    assert {"model", "simulations", "c_puct", "fpu", "temperature", "dirichlet_alpha", "dirichlet_epsilon",
            "leaf_batch", "seconds", "seed"} <= names
    defaults = {o.name: o.default for o in entry.options}
    assert defaults["temperature"] == 0.0 and defaults["dirichlet_epsilon"] == 0.0


def test_games_without_learner_encodings_are_unsupported():
    reason = AlphaZeroPlayer.unsupported_reason(DoubleTake())
    assert "learner encodings" in reason
    assert AlphaZeroPlayer.unsupported_reason(TicTacToe()) is None
    assert AlphaZeroPlayer.unsupported_reason(CheckersGame()) is None
    with pytest.raises(UsageError, match="cannot play doubletake"):
        get_registry().make_player("alphazero", DoubleTake())


def test_plays_legal_moves_and_reports_its_search(ttt_model):
    game = TicTacToe()
    player = AlphaZeroPlayer(game, model=ttt_model, simulations=30, seed=1)
    state = game.new_initial_state()
    move = player.choose_move(state.clone(), Budget())
    assert move in state.legal_moves()
    info = player.analysis()
    assert info["simulations"] == 30 and sum(info["visits"].values()) == 29 and info["engine"] == "puct"
    assert player.choose_move(state.clone(), Budget(simulations=5)) in state.legal_moves()
    assert player.analysis()["simulations"] == 5


def test_model_for_another_game_is_refused_naming_both(tmp_path):
    checkers_model = tiny_model(CheckersGame(), tmp_path / "checkers.npz")
    with pytest.raises(ModelFileError) as info:
        AlphaZeroPlayer(TicTacToe(), model=checkers_model)
    message = str(info.value)
    assert "trained for checkers (observations (5, 8, 8), 1024 actions)" in message
    assert "this game is tictactoe (observations (2, 3, 3), 9 actions)" in message


def test_model_without_alphazero_metadata_is_refused(tmp_path):
    game = TicTacToe()
    net = build_network(game, "mlp:hidden=4,layers=1", {})
    net.save(tmp_path / "bare.npz")
    with pytest.raises(ModelFileError, match="without AlphaZero metadata"):
        AlphaZeroPlayer(game, model=tmp_path / "bare.npz")


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty"])
def test_corrupt_model_is_refused_with_a_clear_message(tmp_path, ttt_model, damage):
    data = ttt_model.read_bytes()
    bad = tmp_path / "bad.npz"
    bad.write_bytes({"truncate": data[:len(data) // 2], "garbage": b"not a model" * 10, "empty": b""}[damage])
    with pytest.raises(ModelFileError, match=r"bad\.npz"):
        AlphaZeroPlayer(TicTacToe(), model=bad)


def test_model_option_accepts_a_run_directory(tmp_path):
    game = TicTacToe()
    with pytest.raises(ModelFileError, match="has no best.npz"):
        AlphaZeroPlayer(game, model=tmp_path)
    tiny_model(game, tmp_path / "best.npz")
    player = AlphaZeroPlayer(game, model=tmp_path)
    assert player.model_path == tmp_path / "best.npz"
    with pytest.raises(ModelFileError, match="does not exist"):
        AlphaZeroPlayer(game, model=tmp_path / "missing.npz")


def test_plays_a_whole_game_with_tree_reuse(ttt_model):
    game = TicTacToe()
    a = AlphaZeroPlayer(game, model=ttt_model, simulations=40, leaf_batch=4)
    b = AlphaZeroPlayer(game, model=ttt_model, simulations=40, reuse=False)
    record = play_game(game, [a, b], seed=3)
    assert record.finished and record.reason in ("three in a row", "board full")


def test_plays_checkers_from_a_position_with_shared_action_indices(tmp_path):
    game = CheckersGame()
    model = tiny_model(game, tmp_path / "checkers.npz")
    player = AlphaZeroPlayer(game, model=model, simulations=20)
    state = game.new_state("B:W6,7,14,15:B2")
    assert player.choose_move(state.clone(), Budget()) in state.legal_moves()


def test_play_command_with_a_model(cli, ttt_model):
    code, out, err = cli("play", "--game", "tictactoe", "--black", "random",
                             "--white", f"alphazero:model={ttt_model},simulations=20", "--seed", "1")
    assert code == 0, err
    assert "X" in out


def test_play_command_refuses_a_wrong_model_in_one_line(cli, tmp_path):
    model = tiny_model(CheckersGame(), tmp_path / "checkers.npz")
    code, out, err = cli("play", "--game", "tictactoe", "--black", "random",
                             "--white", f"alphazero:model={model}")
    assert code == 2
    assert "trained for checkers" in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if "error" in line]) == 1


def test_a_model_whose_weights_hold_nan_is_refused_by_the_match_command(cli, ttt_model):
    """A diverged training's checkpoint would play arbitrary moves: one line, exit 2, naming file and array."""
    with np.load(ttt_model, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    arrays["model/trunk.1.weight"].flat[:3] = [np.nan, np.inf, np.nan]
    np.savez(ttt_model, **arrays)
    code, out, err = cli("match", "--game", "tictactoe", "--black", f"alphazero:model={ttt_model}",
                         "--white", "random", "-n", "1")
    assert code == 2 and "Traceback" not in err
    assert f"model file {ttt_model}: array 'model/trunk.1.weight' holds 3 NaN/inf value(s)" in err
    assert "retrain or use another checkpoint" in err
    with pytest.raises(ModelFileError, match="'model/trunk.1.weight' holds 3 NaN/inf"):
        AlphaZeroPlayer(TicTacToe(), model=ttt_model)


def test_bad_option_values_are_refused(cli, ttt_model):
    code, out, err = cli("play", "--game", "tictactoe", "--black", "random",
                             "--white", f"alphazero:model={ttt_model},temperature=-1")
    assert code == 2 and "temperature" in err


@pytest.mark.parametrize("game", [TicTacToe(), CheckersGame()], ids=["tictactoe", "checkers"])
def test_without_a_model_option_the_bundled_model_plays(game):
    player = get_registry().make_player("alphazero:simulations=10", game)
    assert player.model_path.name == f"{game.name}.npz" and player.model_path.parent.name == "models"
    state = game.new_initial_state()
    assert player.choose_move(state.clone(), Budget()) in state.legal_moves()


def test_export_drops_the_optimiser_state_and_keeps_the_predictions(tmp_path):
    import numpy as np
    from plyground.players.alphazero.networks import export_model, load_model
    game = TicTacToe()
    model = tiny_model(game, tmp_path / "m.npz", network="mlp:hidden=16,layers=1")
    net = load_model(model, game)
    x = np.stack([game.new_initial_state().observation()] * 4)
    net.train_step(x, np.full((4, 9), 1 / 9, np.float32), np.ones(4, np.float32))   # optimiser state appears
    net.save(tmp_path / "trained.npz", metadata=net.metadata)
    export_model(tmp_path / "trained.npz", tmp_path / "exported.npz", game)
    assert (tmp_path / "exported.npz").stat().st_size < (tmp_path / "trained.npz").stat().st_size
    exported = load_model(tmp_path / "exported.npz", game)
    for a, b in zip(net.predict(x), exported.predict(x)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_the_bundled_checkers_model_plays_alike_on_the_gpu_code_path():
    """device=cpu-portable runs the code a GPU runs (docs/autograd.md "Devices"): the same search, the same
    move, visit counts within what float32 rounding moves."""
    game = CheckersGame()
    state = game.new_state("B:W18,21,22,23,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,9,10,11,12,15")
    moves, visits = [], []
    for device in ("cpu", "cpu-portable"):
        player = get_registry().make_player(f"alphazero:simulations=64,seed=3,device={device}", game)
        assert player.network.device.name == device
        moves.append(player.choose_move(state.clone(), Budget()))
        visits.append(player.analysis()["visits"])
    assert moves[0] == moves[1]
    assert visits[0].keys() == visits[1].keys()
    assert sum(abs(visits[0][m] - visits[1][m]) for m in visits[0]) <= 4


@pytest.mark.parametrize("option, message", [
    ("device=gpu", "unknown device 'gpu'; valid devices: cpu, cuda, cuda:N"),
    ("precision=float16", "precision=float16 needs device=cuda"),
    ("precision=half", "bad value 'half' for option 'precision': expected one of float32, float16"),
])
def test_bad_device_options_are_refused_in_one_line(cli, ttt_model, option, message):
    code, out, err = cli("play", "--game", "tictactoe", "--black", "random",
                         "--white", f"alphazero:model={ttt_model},{option}")
    assert code == 2 and "Traceback" not in err
    assert message in err


def test_threads_split_a_leaf_batch_and_give_the_same_evaluations():
    """threads=2: a batch of 8 checkers positions runs as two shares on two threads; every row matches the
    one-thread evaluation (per-row arithmetic; only the BLAS blocking may differ, hence the float32 bound)."""
    import threading

    from plyground.players.alphazero.compute import limit_blas
    from plyground.players.alphazero.networks import load_model, network_evaluator, resolve_model_path

    game = CheckersGame()
    network = load_model(resolve_model_path(None, game), game)
    seen = []

    def evaluate(x):
        seen.append((threading.current_thread().name, len(x)))
        return network_evaluator(network)(x)
    x = np.random.default_rng(0).integers(0, 2, size=(8, *game.observation_shape)).astype(np.float32)
    one = limit_blas(evaluate, 1)(x)
    seen.clear()
    two = limit_blas(evaluate, 2)(x)
    assert sorted(size for _, size in seen) == [4, 4]
    assert all(name.startswith("plyground-network") for name, _ in seen)
    for a, b in zip(one, two):
        assert a.shape == b.shape
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-4 * float(np.abs(a).max()))
