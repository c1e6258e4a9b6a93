"""Batched self-play (many games, one network call per step): valid examples, deterministic, really batched."""
import numpy as np
import pytest

from plyground.games.checkers import CheckersGame
from plyground.games.tictactoe import TicTacToe
from plyground.plugins.trainers.alphazero.batched import BatchStats, GameSpec, play_selfplay_games
from plyground.players.alphazero.networks import build_network, network_evaluator
from plyground.players.search.puct import PUCTSearch
from plyground.players.search.settings import SearchSettings
from plyground.plugins.trainers.alphazero.selfplay import SelfPlaySettings

#: The self-play searches' settings (root noise on).
SETTINGS = SearchSettings(leaf_batch=4, dirichlet_alpha=1.0, dirichlet_epsilon=0.25, cache_size=10_000,
                          repetition_draws=True)


def batched_run(game, network, games, parallel, settings, seed=0):
    evaluate = network_evaluator(network)
    stats = BatchStats()

    def make_search():
        return PUCTSearch(evaluate, SETTINGS)

    specs = [GameSpec(g, np.random.default_rng([seed, 1, g])) for g in range(games)]
    out = sorted(play_selfplay_games(game, specs, make_search, evaluate, settings, parallel_games=parallel,
                                     stats=stats), key=lambda item: item[0])
    return out, stats


def check_examples(game, examples, record):
    """Each example matches its position in the record: its observation, the mover, a policy over legal
    indices summing to 1, the final result for the mover."""
    assert len(examples) == len(record.moves)
    state = game.new_initial_state()
    for i, text in enumerate(record.moves):
        np.testing.assert_array_equal(examples.observations[i], state.observation())
        assert examples.players[i] == state.current_player()
        assert examples.values[i] == record.returns[state.current_player()]
        assert examples.values[i] in (-1.0, 0.0, 1.0)
        a, b = examples.policy_offsets[i], examples.policy_offsets[i + 1]
        legal = {state.action_index(m) for m in state.legal_moves()}
        assert set(examples.policy_actions[a:b].tolist()) <= legal
        assert examples.policy_probs[a:b].sum() == pytest.approx(1.0, abs=1e-5)
        state.apply(state.parse_move(text))
    if state.is_terminal():
        assert tuple(state.returns()) == record.returns
    else:
        assert record.returns == (0.0, 0.0)          # ply cap: a draw


@pytest.mark.parametrize("game_class, spec, settings", [
    (TicTacToe, "mlp:hidden=16,layers=1", SelfPlaySettings(simulations=16, temperature_plies=9)),
    (CheckersGame, "mlp:hidden=16,layers=1", SelfPlaySettings(simulations=12, temperature_plies=40, max_plies=40)),
])
def test_batched_self_play_gives_valid_examples_and_is_deterministic(game_class, spec, settings):
    game = game_class()
    network = build_network(game, spec, {"seed": 1})
    first, stats = batched_run(game, network, games=6, parallel=4, settings=settings)
    assert [g for g, _, _ in first] == list(range(6))
    for _, examples, record in first:
        assert record.finished
        check_examples(game, examples, record)
        # every example owns its observation
        for i in range(len(examples) - 1):
            assert not np.shares_memory(examples.observations[i], examples.observations[i + 1])
    # Leaves of several games share one network call.
    assert stats.network_calls > 0 and stats.mean_batch > 4
    again, _ = batched_run(game, network, games=6, parallel=4, settings=settings)
    for (_, e1, r1), (_, e2, r2) in zip(first, again):
        assert r1.moves == r2.moves and r1.returns == r2.returns
        for name, array in e1.arrays().items():
            np.testing.assert_array_equal(array, e2.arrays()[name])


def test_one_game_at_a_time_through_the_driver_matches_the_single_game_loop():
    from plyground.plugins.trainers.alphazero.selfplay import play_selfplay_game
    game = TicTacToe()
    network = build_network(game, "mlp:hidden=16,layers=1", {"seed": 1})
    settings = SelfPlaySettings(simulations=16, temperature_plies=9)
    batched, _ = batched_run(game, network, games=1, parallel=1, settings=settings)
    search = PUCTSearch(network_evaluator(network), SETTINGS, rng=np.random.default_rng([0, 1, 0]))
    _, record = play_selfplay_game(game, search, search.rng, settings)
    assert batched[0][2].moves == record.moves


@pytest.mark.parametrize("parallel_games", [1, 4])
def test_trainer_writes_replay_chunks_in_game_order(tmp_path, parallel_games):
    """Games finish out of order when batched; the chunks still cover games 0, 1, ... in order, each
    game once, with its own round number, and the same examples as the records."""
    from plyground.plugins.trainers.alphazero import AlphaZeroTrainer
    from plyground.plugins.trainers.alphazero.rundir import RunDirectory
    game = TicTacToe()
    trainer = AlphaZeroTrainer(game, tmp_path / "run", network="mlp:hidden=8,layers=1", selfplay_games=5,
                               simulations=8, save_every=2, parallel_games=parallel_games, iterations=1,
                               comparison_games=0, epochs=1, batch_size=8, plots=False)
    trainer.log = lambda line: None
    trainer.rundir.prepare()
    try:
        trainer._start(None)
        trainer.selfplay.run(1, 0, trainer.time_limit, "")
    finally:
        trainer.rundir.release()
    rundir = RunDirectory(tmp_path / "run", game)
    assert [(first, last) for first, last, _ in rundir.chunks(1)] == [(0, 1), (2, 3), (4, 4)]
    rounds = []
    for first, last, path in rundir.chunks(1):
        examples, records = rundir.read_chunk(path)
        rounds += [int(r.tags["Round"]) for r in records]
        assert len(examples) == sum(len(r.moves) for r in records)
    assert rounds == [1, 2, 3, 4, 5]


def test_the_learner_takes_self_plays_examples_from_memory_and_a_new_process_from_disk(tmp_path, monkeypatch):
    """Data passes once: the chunks self-play wrote reach the learner without being read back; the files are
    for resuming, and a new process reads the same examples from them."""
    from plyground.plugins.trainers.alphazero import AlphaZeroTrainer, rundir as rundir_module
    from plyground.plugins.trainers.alphazero.examples import Examples
    from plyground.plugins.trainers.alphazero.rundir import RunDirectory
    game = TicTacToe()
    trainer = AlphaZeroTrainer(game, tmp_path / "run", network="mlp:hidden=8,layers=1", selfplay_games=4,
                               simulations=8, save_every=2, iterations=1, comparison_games=0, epochs=1,
                               batch_size=8, plots=False)
    trainer.log = lambda line: None
    read = []
    load = rundir_module.load_npz
    monkeypatch.setattr(rundir_module, "load_npz", lambda path, **kw: read.append(path) or load(path, **kw))
    trainer.rundir.prepare()
    try:
        trainer._start(None)
        trainer.selfplay.run(1, 0, trainer.time_limit, "")
        trainer.learner.train_iteration(trainer.rundir, 1, "")
    finally:
        trainer.rundir.release()
    assert read == [] and trainer.rundir.checkpoint_path(1).exists()     # trained, with no chunk read back
    shape = tuple(game.observation_shape)
    kept = Examples.concatenate([e for e, _ in trainer.rundir.iter_chunks(range(1, 2))], shape)
    again = Examples.concatenate([e for e, _ in RunDirectory(tmp_path / "run", game).iter_chunks(range(1, 2))],
                                 shape)
    assert len(read) == 2                                                 # the new process: both chunk files
    for name, array in kept.arrays().items():
        assert np.array_equal(array, again.arrays()[name]), name
