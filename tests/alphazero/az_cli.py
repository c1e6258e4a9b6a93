"""``plyground`` with the alphazero plugin registered, until its entry point is installed.

Run as a script: ``python az_cli.py train alphazero ...``.  Used by the
kill-and-resume test, which runs the real command in a subprocess.
"""
import sys

from plyground import plugin_manager, registry


def register_alphazero() -> None:
    """Register the alphazero plugin by hand unless an entry point already did."""
    plugin_manager.load_plugins()
    if "alphazero" not in plugin_manager.plugin_infos():
        from plyground.players.alphazero import plugin
        plugin_manager.register(plugin, plugin_manager.PluginInfo("alphazero", plugin.__name__, "plyground", "dev"))
        registry.reset_registry()


if __name__ == "__main__":
    register_alphazero()
    from plyground.cli import main
    main(sys.argv[1:])
