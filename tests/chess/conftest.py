import pytest

from chess_helpers import plugins_registered


@pytest.fixture
def registry():
    """The registry with chess and the UCI players (registered by hand where their entry points are missing)."""
    with plugins_registered("chess", "uci") as registry:
        yield registry


@pytest.fixture
def game():
    from plyground.games.chess import ChessGame
    return ChessGame()
