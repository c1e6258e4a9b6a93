"""The alpha-beta player's compiled search, compiled into this machine's cache by a child process.

On a first run the compiled search takes tens of seconds to compile (35 s for chess on a 2-core machine), more
than a chess GUI or python-chess waits for an engine to say it is ready.  :meth:`AlphaBetaPlayer.warm_up_soon`
starts ``python -m plyground.players.alphabeta.background SETTINGS`` instead: the child builds the same player
(game and options as JSON), warms it up -- which compiles the search and writes it to numba's on-disk cache --
and exits; the parent searches through the State API meanwhile, and loads the compiled search from the cache on
the first move after the child is done.  The child runs at a lower priority, its output discarded (a protocol's
standard output is the parent's)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from plyground.options import value_text
from plyground.protocols import Game


def compile_in_child(game: Game, config: dict[str, Any]) -> subprocess.Popen:
    """Start the child that compiles the search of an ``alphabeta`` player with ``config`` for ``game``."""
    settings = json.dumps({"game": game.name, "params": {k: value_text(v) for k, v in game.params.items()},
                           "player": {k: value_text(v) for k, v in config.items()}})
    return subprocess.Popen([sys.executable, "-m", __name__, settings], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=_lower_priority)


def _lower_priority() -> None:
    try:
        os.nice(5)
    except OSError:
        pass


def stop(child: subprocess.Popen) -> None:
    """End the child (the player is closed before it was done); what it compiled so far is not kept."""
    if child.poll() is None:
        child.kill()
    child.wait()


def main(settings: str) -> int:
    from plyground.registry import get_registry
    from plyground.options import Spec
    found = json.loads(settings)
    registry = get_registry()
    game = registry.make_game(Spec(found["game"], found["params"]))
    player = registry.make_player(Spec("alphabeta", found["player"]), game)
    try:
        player.warm_up()
    finally:
        player.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
