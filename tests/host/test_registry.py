import pytest

from plyground import plugin_manager, registry
from plyground.errors import OptionError, PluginError, UsageError
from plyground.hookspecs import hookimpl
from plyground.options import Option
from plyground.protocols import Player


class EchoPlayer(Player):
    name = "random"  # deliberately clashes with the built-in
    description = "Clashes with the built-in random player."


class NoDescription(Player):
    name = "nodesc"


class ThrowawayPlugin:
    def __init__(self, classes):
        self.classes = classes

    @hookimpl
    def register_players(self):
        return self.classes


@pytest.fixture
def throwaway():
    """Register a plugin object for one test, then remove it and rebuild the registry."""
    names = []

    def add(classes, name):
        plugin_manager.load_plugins()
        plugin_manager.register(ThrowawayPlugin(classes), plugin_manager.PluginInfo(name, "test", "test-dist", "9.9"))
        names.append(name)
        registry.reset_registry()

    try:
        yield add
    finally:
        for name in names:
            plugin_manager.unregister(name)
        registry.reset_registry()


def test_builtins_are_discovered_from_entry_points():
    reg = registry.get_registry()
    assert {"tictactoe"} <= set(reg.names("games"))
    assert {"random", "human"} <= set(reg.names("players"))
    assert "console" in reg.names("renderers")
    assert plugin_manager.plugin_infos()["random"].distribution == "plyground"


def test_a_duplicate_name_is_an_error_naming_both(throwaway):
    throwaway([EchoPlayer], "clasher")
    with pytest.raises(PluginError) as info:
        registry.get_registry()
    message = str(info.value)
    assert "player name 'random' is registered twice" in message
    assert "plugin 'random' (plyground.players.random_player.RandomPlayer)" in message
    assert "plugin 'clasher' (test_registry.EchoPlayer)" in message or "EchoPlayer" in message
    assert "PLYGROUND_DISABLE_PLUGINS=clasher" in message


def test_an_invalid_class_is_skipped_with_a_warning(throwaway, capsys):
    throwaway([NoDescription], "nodesc-plugin")
    reg = registry.get_registry()
    assert "nodesc" not in reg.names("players")
    assert "without a one-line description" in capsys.readouterr().err


def test_unknown_names_list_the_valid_ones():
    reg = registry.get_registry()
    with pytest.raises(UsageError, match=r"unknown player 'mtcs'; valid players: .*human.*random"):
        reg.get("players", "mtcs")
    game = reg.make_game("tictactoe")
    with pytest.raises(OptionError, match="unknown option"):
        reg.make_player("random:depth=3", game)


def test_a_player_that_cannot_play_the_game_is_refused(throwaway):
    class OnlyChess(Player):
        name = "onlychess"
        description = "Plays nothing but chess."
        options = (Option("depth", int, 1, "depth", min=1),)

        @classmethod
        def unsupported_reason(cls, game):
            return None if game.name == "chess" else "it only plays chess"

    throwaway([OnlyChess], "onlychess")
    reg = registry.get_registry()
    game = reg.make_game("tictactoe")
    with pytest.raises(UsageError, match="player 'onlychess' cannot play tictactoe: it only plays chess; "
                                         "players for tictactoe: .*random"):
        reg.make_player("onlychess", game)
