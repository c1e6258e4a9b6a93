"""The player's and the trainer's effective search settings, pinned to their values."""
import dataclasses

from plyground.games.tictactoe import TicTacToe
from plyground.players.alphazero.playbook import Playbook
from plyground.players.alphazero.player import AlphaZeroPlayer
from plyground.players.alphazero.settings import SearchSettings
from plyground.players.alphazero.trainer import AlphaZeroTrainer

from aztestgames import tiny_model

#: The alphazero player's search with no options given.
PLAYER = dict(simulations=200, c_puct=1.5, fpu=0.2, leaf_batch=8, cache_size=100_000, repetition_draws=True,
              pass_forced=True, dirichlet_alpha=0.3, dirichlet_epsilon=0.0, search="puct", gumbel_actions=16,
              gumbel_c_visit=50.0, gumbel_c_scale=1.0, gumbel_scale=None, endgame="auto", compiled=True)
#: What the trainer's self-play search changes (more root noise, fewer simulations, mctx's c_scale, no endgame).
TRAINER = dict(PLAYER, simulations=100, dirichlet_alpha=1.0, dirichlet_epsilon=0.25, gumbel_c_scale=0.1,
               endgame="off")


def test_the_player_and_the_trainer_keep_their_search_defaults(tmp_path):
    game = TicTacToe()
    player = AlphaZeroPlayer(game, model=tiny_model(game, tmp_path / "m.npz"))
    assert dataclasses.asdict(player.settings) == PLAYER
    assert player.settings == SearchSettings(simulations=200)
    trainer = AlphaZeroTrainer(game, tmp_path / "run", workers=1)
    playbook = Playbook(game, trainer.config)
    assert dataclasses.asdict(playbook.search) == TRAINER
    assert playbook.match_search == playbook.search.replace(dirichlet_epsilon=0.0)

