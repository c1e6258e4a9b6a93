"""The Deep Pepper networks scale their 353 inputs into [0, 1], so the tanh value unit keeps learning."""
import numpy as np

from plyground.capabilities import feature_layout
from plyground.games.chess.game import ChessGame
from plyground.players.alphazero.networks import build_network, load_model, save_model
from plyground.plugins.trainers.expert_iteration.networks import DeepPepperPartsNetwork, feature_scale

TRAINING = {"optimizer": "adam", "lr": 1e-3, "weight_decay": 1e-4, "seed": 0}
NETWORK = "deep-pepper-parts:h1a=16,h1b=128,h1c=128,h2p=64,h2e=64"


def random_game_positions(count, seed=0):
    """Observations of positions from random games (every position of each game until ``count``)."""
    game = ChessGame(encoding="deep_pepper")
    rng = np.random.default_rng(seed)
    observations, material = [], []
    while len(observations) < count:
        state = game.new_initial_state()
        while not state.is_terminal() and len(observations) < count:
            observations.append(state.observation())
            obs = observations[-1]
            # piece counts (features 5-16): White K Q R B N P, Black K Q R B N P
            values = np.array([0, 9, 5, 3, 3, 1], dtype=np.float32)
            material.append(float(obs[5:11] @ values - obs[11:17] @ values))
            moves = state.legal_moves()
            state.apply(moves[int(rng.integers(len(moves)))])
    return game, np.stack(observations), np.array(material)


def test_scaled_features_lie_in_the_unit_interval():
    _, observations, _ = random_game_positions(300)
    assert observations.max() > 5                       # raw features: attacker values, counts, reach
    scaled = observations * feature_scale(353)
    assert scaled.min() >= 0.0 and scaled.max() <= 1.0 and scaled.max() == 1.0
    assert feature_scale(100) is None                   # another input size is not scaled


def test_the_networks_read_the_layout_the_chess_game_offers():
    """Issue #75 point 4: the networks import no game; the chess game offers its features' layout (the
    feature-layouts capability), part by part with each feature's scale."""
    layout = feature_layout("deep_pepper")
    assert layout == ChessGame().feature_layouts()["deep_pepper"] and layout.size == 353
    assert [(start, stop) for _, start, stop in layout.parts] == [(0, 17), (17, 225), (225, 353)]
    assert DeepPepperPartsNetwork.build((353,), 10).model.trunk.bounds == tuple(stop for *_, stop in layout.parts)
    np.testing.assert_array_equal(feature_scale(353), np.asarray(layout.scale, np.float32))
    assert feature_layout("deep_pepper", size=100) is None and feature_layout("no-such-layout") is None


def test_unscaled_inputs_start_the_value_unit_saturated():
    # the size of configs/deep-pepper-chess.toml, freshly initialised
    game, observations, _ = random_game_positions(300)
    spec = "deep-pepper-parts:h1a=32,h1b=256,h1c=256,h2p=256,h2e=128"
    saturated = {}
    for normalize in (True, False):
        _, values = build_network(game, f"{spec},normalize={str(normalize).lower()}", TRAINING).predict(observations)
        saturated[normalize] = float(np.mean(np.abs(values) > 0.99))
    assert saturated[True] == 0.0 and saturated[False] > 0.05


def test_value_head_learns_the_material_balance():
    # Value label: the material balance for the side to move, as tanh(pawns / 15) (cp / 1500 for the trainer).
    game, observations, material = random_game_positions(800)
    white_to_move = observations[:, 0] == 1.0
    labels = np.tanh(np.where(white_to_move, material, -material) / 15.0).astype(np.float32)
    policies = np.full((len(labels), game.num_actions), 1.0 / game.num_actions, dtype=np.float32)
    network = build_network(game, NETWORK, TRAINING)
    order = np.random.default_rng(1).permutation(len(labels))
    for epoch in range(3):
        for step in range(len(labels) // 64):
            idx = order[step * 64:(step + 1) * 64]
            network.train_step(observations[idx], policies[idx], labels[idx])
    _, values = network.predict(observations)
    assert np.all(np.abs(values) < 0.999) and np.mean((values - labels) ** 2) < 0.5 * np.var(labels)


def test_scaling_survives_save_and_load(tmp_path):
    game, observations, _ = random_game_positions(20)
    network = build_network(game, NETWORK, TRAINING)
    save_model(network, tmp_path / "m.npz", game, "deep-pepper-parts")
    loaded = load_model(tmp_path / "m.npz", game)
    assert loaded.config["normalize"] is True
    np.testing.assert_allclose(loaded.predict(observations)[1], network.predict(observations)[1], rtol=1e-5)
