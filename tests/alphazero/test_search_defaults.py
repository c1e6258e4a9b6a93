"""One source of search defaults: the player's and the trainer's effective search settings are pinned to
their values, and a search built with no settings is the player's default search."""
import dataclasses
import inspect

from plyground.games.tictactoe import TicTacToe
from plyground.plugins.trainers.alphazero.playbook import Playbook
from plyground.players.alphazero.player import AlphaZeroPlayer
from plyground.plugins.trainers.alphazero.trainer import AlphaZeroTrainer
from plyground.players.search.gumbel import GumbelSearch
from plyground.players.search.puct import PUCTSearch
from plyground.players.search.settings import SearchSettings

from aztestgames import UniformEvaluator, tiny_model

#: The alphazero player's search with no options given.
PLAYER = dict(simulations=200, c_puct=1.5, fpu=0.2, leaf_batch=8, cache_size=100_000, repetition_draws=True,
              pass_forced=True, policy_temperature=1.0, dirichlet_alpha=0.3, dirichlet_epsilon=0.0, search="puct",
              gumbel_actions=16, gumbel_c_visit=50.0, gumbel_c_scale=1.0, gumbel_scale=None, endgame="auto",
              compiled=True, virtual_loss=1.0, q_normalisation="range")
#: What the trainer's self-play search changes (more root noise, fewer simulations, mctx's c_scale, no endgame).
TRAINER = dict(PLAYER, simulations=100, dirichlet_alpha=1.0, dirichlet_epsilon=0.25, gumbel_c_scale=0.1,
               endgame="off")


def tree_settings(search) -> dict:
    """The settings a built search tree runs with, read from the tree itself."""
    out = dict(c_puct=search.c_puct, fpu=search.fpu, leaf_batch=search.leaf_batch,
               cache_size=search.evaluator.cache.size, repetition_draws=search.repetition_draws,
               pass_forced=search.pass_forced, policy_temperature=search.policy_temperature, kind=search.kind)
    if search.kind == "gumbel":
        out.update(simulations=search.simulations, gumbel_actions=search.max_considered,
                   gumbel_c_visit=search.c_visit, gumbel_c_scale=search.c_scale, gumbel_scale=search.gumbel_scale)
    else:
        out.update(dirichlet_alpha=search.dirichlet_alpha, dirichlet_epsilon=search.dirichlet_epsilon)
    return out


def test_the_player_and_the_trainer_keep_their_search_defaults(tmp_path):
    game = TicTacToe()
    player = AlphaZeroPlayer(game, model=tiny_model(game, tmp_path / "m.npz"))
    assert dataclasses.asdict(player.settings) == PLAYER
    assert player.settings == SearchSettings(simulations=200)
    trainer = AlphaZeroTrainer(game, tmp_path / "run", workers=1)
    playbook = Playbook(game, trainer.config)
    assert dataclasses.asdict(playbook.search) == TRAINER
    assert playbook.match_search == dataclasses.replace(playbook.search, dirichlet_epsilon=0.0)


def test_a_search_built_with_no_settings_is_the_players_default_search(tmp_path):
    game = TicTacToe()
    model = tiny_model(game, tmp_path / "m.npz")
    for kind, bare in (("puct", PUCTSearch), ("gumbel", GumbelSearch)):
        player = AlphaZeroPlayer(game, model=model, search=kind, compiled=False)
        built = tree_settings(player.search)
        assert built == tree_settings(bare(UniformEvaluator(9)))
        expected = {name: PLAYER[name] for name in built if name != "kind"}
        assert {name: value for name, value in built.items() if name != "kind"} == expected
    # The trainer's settings reach the tree it builds.
    playbook = Playbook(game, AlphaZeroTrainer(game, tmp_path / "run", workers=1, search="gumbel").config)
    tree = playbook.selfplay_search(UniformEvaluator(9))
    assert (tree.kind, tree.c_scale, tree.simulations) == ("gumbel", 0.1, 100)
    noisy = Playbook(game, AlphaZeroTrainer(game, tmp_path / "run2", workers=1, compiled=False).config) \
        .selfplay_search(UniformEvaluator(9))
    assert (noisy.dirichlet_alpha, noisy.dirichlet_epsilon, noisy.evaluator.cache.size) == (1.0, 0.25, 100_000)


def test_the_searches_take_their_settings_whole():
    """Nothing but the settings (and what is no setting: the random generator, the compiled loop's kernels)
    reaches a search's constructor: no default is written twice."""
    from plyground.players.search.compiled import CompiledGumbelSearch, CompiledPUCTSearch
    from plyground.players.search.gumbel import GumbelRoot
    for cls in (PUCTSearch, GumbelRoot, GumbelSearch, CompiledPUCTSearch, CompiledGumbelSearch):
        parameters = inspect.signature(cls.__init__).parameters
        assert set(parameters) - {"self", "evaluate", "settings", "rng", "kernels", "observation_shape",
                                  "search"} == set(), cls
        assert parameters["settings"].default == SearchSettings()
