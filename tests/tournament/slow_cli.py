"""``plyground`` with a slow test player registered, for the kill-and-resume test.

Run as a script: ``python slow_cli.py tournament ...``.  The player is
registered at import time, so spawned worker processes (which import this
script again as their main module) know it too.
"""
import sys
import time

from plyground import plugin_manager
from plyground.hookspecs import hookimpl
from plyground.protocols import Player


class SlowPlayer(Player):
    name = "slow"
    description = "Plays the first legal move after a short pause (tests only)."

    def choose_move(self, state, budget):
        time.sleep(0.05)
        return state.legal_moves()[0]


class _Plugin:
    @hookimpl
    def register_players(self):
        return [SlowPlayer]


plugin_manager.load_plugins()
plugin_manager.register(_Plugin(), plugin_manager.PluginInfo("slow-test-player", __name__, "tests", "0"))

if __name__ == "__main__":
    from plyground.cli import main
    main(sys.argv[1:])
