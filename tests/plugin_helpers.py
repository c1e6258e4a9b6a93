"""Registering a throwaway plugin (an object with hook implementations) for one test."""
from __future__ import annotations

from contextlib import contextmanager

from plyground import plugin_manager, registry


@contextmanager
def registered(plugin, name: str):
    """The registry with ``plugin`` registered as ``name``; unregistered again on the way out.

    Registered in this process only: a test that plays with worker processes does not see it there.
    """
    plugin_manager.load_plugins()
    plugin_manager.register(plugin, plugin_manager.PluginInfo(name, "tests", "tests", "0"))
    registry.reset_registry()
    try:
        yield registry.get_registry()
    finally:
        plugin_manager.unregister(name)
        registry.reset_registry()
