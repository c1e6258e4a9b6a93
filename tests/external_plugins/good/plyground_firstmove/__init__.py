"""A third-party player, packaged exactly as docs/plugins.md describes."""
from plyground.hookspecs import hookimpl
from plyground.options import Option
from plyground.protocols import Player


class FirstMovePlayer(Player):
    name = "firstmove"
    description = "Plays the first legal move, or the last one with reverse=true."
    options = (Option("reverse", bool, False, "play the last legal move instead"),)

    def choose_move(self, state, budget):
        moves = state.legal_moves()
        return moves[-1] if self.config["reverse"] else moves[0]


@hookimpl
def register_players():
    return [FirstMovePlayer]
