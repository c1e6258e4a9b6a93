"""Options, capability checks and plugin registration of the mcts player."""
import math
from types import SimpleNamespace

import pytest

from plyground.errors import OptionError, UsageError
from plyground.games.tictactoe import TicTacToe
from plyground.options import Spec, resolve_options
from plyground.players.mcts import MCTSPlayer
from plyground.players.mcts import plugin
from plyground.protocols import Budget, Game, State

from testgames import DoubleTake, DoubleTakeState


def test_plugin_registers_the_player():
    assert plugin.register_players() == [MCTSPlayer]
    assert MCTSPlayer.name == "mcts"


def test_defaults():
    player = MCTSPlayer(TicTacToe())
    cfg = player.config
    assert cfg["simulations"] == 1000 and cfg["seconds"] is None
    assert cfg["c"] == pytest.approx(math.sqrt(2))
    assert cfg["playouts"] == 1 and cfg["reuse"] and cfg["solver"] and cfg["seed"] is None


def test_options_from_a_command_line_spec():
    spec = Spec.parse("mcts:simulations=800,c=1.4,seconds=none,solver=off,seed=3")
    cfg = resolve_options(MCTSPlayer.options, spec.options, "player mcts")
    assert cfg["simulations"] == 800 and cfg["c"] == 1.4 and cfg["seconds"] is None
    assert cfg["solver"] is False and cfg["seed"] == 3


@pytest.mark.parametrize("bad", [{"simulations": -5}, {"simulations": 0}, {"c": 0.0}, {"c": -1.0},
                                 {"playouts": 0}, {"seconds": -1.0}, {"max_playout_plies": 0},
                                 {"simulations": "many"}])
def test_bad_options_give_clear_errors(bad):
    (name, value), = bad.items()
    with pytest.raises(OptionError, match=f"option '{name}'"):
        resolve_options(MCTSPlayer.options, bad, "player mcts")
    with pytest.raises(OptionError, match=f"option '{name}'"):
        MCTSPlayer(TicTacToe(), **bad)


def test_unknown_option_lists_the_valid_ones():
    with pytest.raises(OptionError, match="valid options: simulations, seconds, c"):
        MCTSPlayer(TicTacToe(), simulation=10)


def test_zero_simulation_budget_is_refused():
    with pytest.raises(UsageError, match="at least 1"):
        MCTSPlayer(TicTacToe()).choose_move(TicTacToe().new_initial_state(), Budget(simulations=0))


class NoUndoState(DoubleTakeState):
    undo = State.undo


class NoUndoGame(DoubleTake):
    name = "noundo"

    def new_initial_state(self):
        return NoUndoState(self, 5)


class NoStateGame(Game):
    name = "nostate"
    description = "cannot make states"


def test_games_without_the_needed_api_are_refused_with_a_reason():
    assert MCTSPlayer.unsupported_reason(TicTacToe()) is None
    assert MCTSPlayer.unsupported_reason(DoubleTake()) is None
    reason = MCTSPlayer.unsupported_reason(NoUndoGame())
    assert reason == "its states do not implement undo (the State API that tree search needs)"
    assert "starting position" in MCTSPlayer.unsupported_reason(NoStateGame())
    with pytest.raises(UsageError, match="player mcts cannot play noundo: its states do not implement undo"):
        MCTSPlayer(NoUndoGame())


def test_incomplete_kernels_fall_back_to_the_generic_search():
    class HalfKernels(DoubleTake):
        def kernels(self):
            return SimpleNamespace(pos_size=4, max_moves=3)

    game = HalfKernels(pile=6)
    player = MCTSPlayer(game, simulations=2000, seed=1)
    with pytest.warns(UserWarning, match="lack gen_moves"):
        move = player.choose_move(game.new_initial_state(), Budget())
    assert move == 4 and player.engine_kind == "generic"


def test_analysis_reports_visits_value_and_timing():
    game = TicTacToe()
    player = MCTSPlayer(game, simulations=400, seed=2)
    assert player.analysis() is None
    move = player.choose_move(game.new_initial_state(), Budget())
    info = player.analysis()
    assert set(info) >= {"visits", "value", "proven", "simulations", "seconds"}
    assert info["simulations"] == 400 and info["seconds"] > 0
    assert sum(info["visits"].values()) == 399          # the first simulation expands the root
    assert max(info["visits"], key=info["visits"].get) == game.new_initial_state().move_to_text(move)
    assert -1.0 <= info["value"] <= 1.0
    player.reset(1)
    assert player.analysis() is None
