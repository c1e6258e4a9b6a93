"""The generic searchers play chess through the State API: mcts (Python path) and alphazero (learner encodings)."""
from __future__ import annotations

import pytest

from plyground.games.chess import ChessGame
from plyground.play.match import play_game
from plyground.players.mcts.player import MCTSPlayer
from plyground.players.random_player import RandomPlayer


def test_mcts_completes_a_game_of_chess():
    game = ChessGame(max_plies=40)
    mcts = MCTSPlayer(game, simulations=16, max_playout_plies=8, seed=1)
    record = play_game(game, [mcts, RandomPlayer(game, seed=2)], names=("mcts", "random"), seed=1)
    assert mcts.engine_kind == "generic"          # chess has no compiled kernels
    assert record.finished and len(record.moves) <= 40
    assert record.reason in ("ply cap", "checkmate", "stalemate", "insufficient material", "threefold repetition")
    assert mcts.analysis()["simulations"] >= 1


def test_mcts_finds_a_mate_in_one():
    game = ChessGame()
    state = game.new_state("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    mcts = MCTSPlayer(game, simulations=300, max_playout_plies=6, seed=1)
    assert state.move_to_text(mcts.choose_move(state.clone())) == "Ra8#"
    assert mcts.analysis()["proven"] == "win"


@pytest.mark.parametrize("encoding, network", [("planes", "resnet:channels=8,blocks=1"), ("deep_pepper", "mlp")])
def test_alphazero_plays_chess_with_an_untrained_network(encoding, network):
    from plyground.players.alphazero.networks import build_network
    from plyground.players.alphazero.player import AlphaZeroPlayer
    game = ChessGame(encoding=encoding, max_plies=12)
    net = build_network(game, network, {})
    player = AlphaZeroPlayer(game, network=net, simulations=6, seed=1)
    record = play_game(game, [player, RandomPlayer(game, seed=1)], seed=1)
    assert record.finished and record.reason == "ply cap" and len(record.moves) == 12
    assert player.analysis()["simulations"] >= 1
