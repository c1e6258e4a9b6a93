"""``plyground hub PLAYER-SPEC``: a plyground checkers player as a Hub engine on standard input and output."""
from __future__ import annotations

import click


def register(cli) -> None:
    @cli.command("hub")
    @click.argument("spec")
    @click.option("--game", "game_spec", default="checkers", show_default=True,
                  help="The game and its rules, e.g. checkers:repetitions=0 (Hub engines play checkers).")
    def hub_command(spec, game_spec):
        """Run the player SPEC as a Hub engine (the protocol of Scan and pydraughts), e.g. `plyground hub
        alphabeta:eval=learned,depth=8` or `plyground hub mcts:simulations=2000`.  See docs/hub.md."""
        from plyground.capabilities import has_position_layout
        from plyground.engines.server import engine_spec
        from plyground.errors import UsageError
        from plyground.util.notices import set_quiet
        from plyground.registry import get_registry

        from .server import HubServer
        registry = get_registry()
        game = registry.make_game(game_spec)
        if not has_position_layout(game, "checkers-bitboard"):
            raise UsageError(f"--game {game_spec}: Hub engines play checkers; for chess use 'plyground uci {spec}'")
        parsed = engine_spec(registry, spec)
        set_quiet(True)                 # stdout belongs to the protocol; notes would only confuse a client
        HubServer(game, parsed, registry.make_player).run()
