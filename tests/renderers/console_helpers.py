"""Playing a game in the console renderer with the person's lines typed through a real stdin stream."""
from __future__ import annotations

import io
from plyground.play.match import play_game
from plyground.plugins.console import ConsoleRenderer
from plyground.protocols import GameRecord
from plyground.registry import get_registry


def play_in_console(game_spec: str, specs: tuple[str, str], typed: list[str],
                    start: str | None = None) -> tuple[GameRecord, str]:
    """(record, everything printed) of a game of ``game_spec`` between the players ``specs`` (by move
    order) from the position ``start`` (default: the initial one), the person typing the lines
    ``typed`` at the prompt (end of input quits)."""
    registry = get_registry()
    game = registry.make_game(game_spec)
    out = io.StringIO()
    renderer = ConsoleRenderer(stdin=io.StringIO("".join(line + "\n" for line in typed)), stdout=out, color="never")
    players = [registry.make_player(spec, game) for spec in specs]
    record = play_game(game, players, names=specs, renderer=renderer,
                       start=None if start is None else game.new_state(start))
    return record, out.getvalue()


def answers(out: str, side: str) -> list[str]:
    """What was printed after each of ``side``'s prompts, up to the next prompt: the answer to each line
    the person typed, in order (for a move, the boards that followed it)."""
    return out.split(f"{side} move (or 'help'): ")[1:]
