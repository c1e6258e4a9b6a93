"""``plyground uci PLAYER-SPEC``: a plyground player as a UCI engine on standard input and output."""
from __future__ import annotations

import click


def register(cli) -> None:
    @cli.command("uci")
    @click.argument("spec", default="alphabeta:eval=learned")
    @click.option("--game", "game_spec", default=None,
                  help="The game the engine plays: one whose positions UCI can describe (default: the first "
                       "installed; UCI is a chess protocol, checkers engines speak Hub).")
    def uci_command(spec, game_spec):
        """Run the player SPEC as a UCI engine, e.g. `plyground uci alphazero` or `plyground uci
        alphabeta:depth=4`, for chess GUIs (cutechess, Arena, lichess-bot) and python-chess.  Without SPEC:
        our own chess engine, alpha-beta with the evaluation learned from master games."""
        from plyground.capabilities import supports_uci
        from plyground.engines.server import engine_spec
        from plyground.errors import UsageError
        from plyground.util.notices import set_quiet
        from plyground.registry import get_registry

        from .server import UciServer
        registry = get_registry()
        if game_spec is None:           # the first installed game UCI can describe, built once
            games = (registry.make_game(name) for name in registry.names("games"))
            game = next((game for game in games if supports_uci(game)), None)
            if game is None:
                raise UsageError("no installed game has positions UCI can describe (chess does: is it installed?)")
        else:
            game = registry.make_game(game_spec)
        if not supports_uci(game):
            raise UsageError(f"--game {game_spec}: UCI engines play games whose positions UCI can describe, such as "
                             f"chess; {game.name} is not one (a checkers engine speaks Hub: 'plyground hub {spec}')")
        parsed = engine_spec(registry, spec)
        set_quiet(True)                 # stdout belongs to the protocol; notes would only confuse a GUI
        UciServer(game, parsed, registry.make_player).run()
