"""Acceptance: AlphaZero trained from scratch on tic-tac-toe never loses to a perfect player.

Trains with the documented config (configs/alphazero-tictactoe.toml) through the real
`plyground train` command - about a minute on one core - then plays 100 games as X
and 100 as O against memoized negamax choosing randomly (seeded) among optimal moves.
"""
import time
from pathlib import Path

import pytest

from plyground.cli import main
from plyground.games.tictactoe import TicTacToe
from plyground.match import play_game
from plyground.players.alphazero import AlphaZeroPlayer

from mcts_testgames import PerfectTicTacToe

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "alphazero-tictactoe.toml"


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("ttt") / "run"
    started, cpu_started = time.perf_counter(), time.process_time()
    try:
        main(["train", "alphazero", "--run", str(run_dir), "--config", str(CONFIG), "--quiet",
              "--workers", "1"])  # one process: its CPU time is the whole cost
    except SystemExit as exc:
        assert not exc.code
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    print(f"\ntic-tac-toe training: {cpu:.1f} s of CPU ({seconds:.1f} s wall)")
    # CPU time, not the wall clock: other jobs on a shared machine must not fail the test.
    assert cpu < 180, "the acceptance budget is 3 minutes on one core"
    return run_dir


@pytest.mark.parametrize("side", [0, 1], ids=["alphazero-X", "alphazero-O"])
def test_never_loses_to_perfect_play(trained, side):
    game = TicTacToe()
    agent = AlphaZeroPlayer(game, model=trained, simulations=64)
    perfect = PerfectTicTacToe(game)
    players = [perfect, perfect]
    players[side] = agent
    losses = []
    for i in range(100):
        record = play_game(game, players, seed=7000 + 1000 * side + i)
        assert record.finished
        if record.score(side) == 0.0:
            losses.append(record.moves)
    assert losses == []
