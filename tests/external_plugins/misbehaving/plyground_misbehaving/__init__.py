"""Players that hang, exit or die: a plugin author's bugs that must cost only their own games."""
import os
import time

from plyground.hookspecs import hookimpl
from plyground.options import Option
from plyground.protocols import Player


class SleeperPlayer(Player):
    name = "sleeper"
    description = "Sleeps instead of answering (a hung engine)."
    options = (Option("seconds", float, 3600.0, "how long each move sleeps", min=0.0),)

    def choose_move(self, state, budget):
        time.sleep(self.config["seconds"])
        return state.legal_moves()[0]


class QuitterPlayer(Player):
    name = "quitter"
    description = "Raises SystemExit on its first move (a plugin calling sys.exit)."

    def choose_move(self, state, budget):
        raise SystemExit("quitter gives up")


class InterrupterPlayer(Player):
    name = "interrupter"
    description = "Raises KeyboardInterrupt on its first move."

    def choose_move(self, state, budget):
        raise KeyboardInterrupt


class DierPlayer(Player):
    name = "dier"
    description = "Ends its process with os._exit on its first move (a crashing native library)."

    def choose_move(self, state, budget):
        os._exit(3)


@hookimpl
def register_players():
    return [SleeperPlayer, QuitterPlayer, InterrupterPlayer, DierPlayer]
