"""Optional game abilities are named protocols in plyground.capabilities; nothing else probes a game."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from plyground import capabilities
from plyground.games.checkers import CheckersGame
from plyground.games.chess.game import ChessGame
from plyground.games.tictactoe import TicTacToe
from plyground.players.alphabeta.player import AlphaBetaPlayer
from plyground.players.uci.player import UciPlayer
from plyground.protocols import GameRecord

REPO = Path(__file__).resolve().parents[2]


def test_record_reading_is_the_read_records_ability():
    assert capabilities.reads_records(CheckersGame()) and capabilities.reads_records(ChessGame())
    assert not capabilities.reads_records(TicTacToe())
    assert capabilities.record_reader(TicTacToe()) is None
    game = ChessGame()
    record = GameRecord("chess", ("a", "b"), game.new_initial_state().to_text(), ["e4", "e5"], finished=False)
    assert capabilities.record_reader(game)(game.format_records([record]))[0].moves == ["e4", "e5"]
    for game in (TicTacToe(), CheckersGame(), ChessGame()):
        assert isinstance(game, capabilities.RecordWriter)          # every game writes (JSON lines by default)


def test_uci_is_an_ability_of_states_not_a_game_name():
    assert capabilities.supports_uci(ChessGame())
    assert not capabilities.supports_uci(CheckersGame())
    assert "UCI engines play chess only" in UciPlayer.unsupported_reason(TicTacToe())

    class Chess960ish(ChessGame):
        name = "chess-variant"
        description = "chess under another name: its states still speak UCI"

    assert capabilities.supports_uci(Chess960ish()) and UciPlayer.unsupported_reason(Chess960ish()) is None


def test_kernels_and_layouts():
    assert capabilities.kernels_of(TicTacToe()) is not None
    assert capabilities.kernels_of(CheckersGame()) is not None
    assert capabilities.kernels_of(ChessGame()) is None
    assert capabilities.missing_kernel_attributes(CheckersGame().kernels()) == []
    assert capabilities.missing_kernel_attributes(object())[:2] == ["gen_moves", "apply_move"]
    assert capabilities.has_position_layout(CheckersGame(), "checkers-bitboard")
    assert not capabilities.has_position_layout(TicTacToe(), "checkers-bitboard")


def test_a_checkers_variant_that_keeps_the_layout_gets_alphabetas_compiled_search():
    class Pool(CheckersGame):
        name = "checkers-renamed"
        description = "checkers under another name"

    player = AlphaBetaPlayer(Pool(), depth=2)
    assert player.engine_kind == "compiled"
    assert player.choose_move(Pool().new_initial_state()) in Pool().new_initial_state().legal_moves()
    assert AlphaBetaPlayer(TicTacToe(), depth=2).engine_kind == "generic"


def test_learning_and_action_decoding():
    assert capabilities.supports_learning(TicTacToe()) and capabilities.supports_learning(ChessGame())
    chess_state, ttt_state = ChessGame().new_initial_state(), TicTacToe().new_initial_state()
    assert capabilities.shares_action_indices(chess_state) and not capabilities.shares_action_indices(ttt_state)
    assert capabilities.decodes_actions(ttt_state)


@pytest.mark.skipif(not (REPO / ".git").exists(), reason="needs the source tree")
def test_no_game_name_checks_or_probing_outside_the_capability_module():
    """The issue's acceptance check: grep -rn 'game.name ==\\|hasattr(state\\|hasattr(game' ..."""
    found = subprocess.run(["grep", "-rn", "--include=*.py", r"game.name ==\|hasattr(state\|hasattr(game",
                            "framework", "games", "players", "plugins"], cwd=REPO, capture_output=True, text=True)
    lines = [line for line in found.stdout.splitlines() if not line.startswith("framework/capabilities.py:")]
    assert lines == [], "\n".join(lines)
