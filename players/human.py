"""The ``human`` player: asks the renderer, which asks the person."""
from __future__ import annotations

from plyground.errors import UsageError
from plyground.hookspecs import hookimpl
from plyground.protocols import Player


class HumanPlayer(Player):
    name = "human"
    description = "You: moves are entered through the renderer (console or pygame)."
    needs_renderer = True

    def choose_move(self, state, budget):
        if self.renderer is None or not self.renderer.interactive:
            raise UsageError("player 'human' needs an interactive renderer: use --renderer console or pygame")
        return self.renderer.ask_move(state)


@hookimpl
def register_players():
    return [HumanPlayer]
