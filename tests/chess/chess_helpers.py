"""Helpers shared by the chess and UCI tests: their fixtures, plugins registered by hand for a test."""
from __future__ import annotations

import importlib
from contextlib import contextmanager

import pytest

from plyground import plugin_manager
from plyground.players.uci import stockfish_path
from plyground.registry import get_registry, reset_registry

#: (kind, name, module) of the plugins these tests use.
PLUGINS = {
    "chess": ("games", "plyground.games.chess.plugin"),
    "uci": ("players", "plyground.players.uci.plugin"),
    "pygame": ("renderers", "plyground.plugins.pygame_gui.plugin"),
}

STOCKFISH = stockfish_path()
needs_stockfish = pytest.mark.skipif(
    STOCKFISH is None, reason="Stockfish is not installed (no 'stockfish' on PATH or in /usr/games; "
                              "Debian/Ubuntu: apt install stockfish)")


@pytest.fixture
def registry():
    """The registry of the installed plugins (chess and the UCI players among them)."""
    return get_registry()


@pytest.fixture
def game():
    from plyground.games.chess import ChessGame
    return ChessGame()


@contextmanager
def plugins_registered(*names: str):
    """The registry with the named plugins in it; those registered here are unregistered afterwards."""
    get_registry()   # loads the installed entry points first
    added = []
    for name in names:
        kind, module = PLUGINS[name]
        if plugin_manager.pm.get_plugin(name) is None:
            plugin_manager.register(importlib.import_module(module),
                                    plugin_manager.PluginInfo(name, module, "plyground", "dev"))
            added.append(name)
    if added:
        reset_registry()
    try:
        yield get_registry()
    finally:
        for name in added:
            plugin_manager.unregister(name)
        if added:
            reset_registry()
