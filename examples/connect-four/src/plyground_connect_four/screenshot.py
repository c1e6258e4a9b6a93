"""Connect Four played by clicks in plyground's window, off-screen (SDL's dummy display): two people at one
window drop discs into the columns given, each by a mouse click on its column, as the pygame renderer reads
them.  The package's window test plays a game this way, and

    python -m plyground_connect_four.screenshot examples/connect-four/window.png

writes the README's picture (a won game, its four in a row lit).
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Sequence

#: The README's game: Red fills column 7 with Yellow (a click on the full column is refused), then wins
#: along the bottom row, 2-3-4-5, while Yellow stacks on top.
PICTURE_GAME = "7 7 7 7 7 7 7 2 2 3 3 4 4 5"


def _until(renderer, condition, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"the window never showed {what}")
        renderer.step()
        time.sleep(0.001)


def play_in_window(columns: Sequence[str], size: tuple[int, int] = (900, 640), out: Path | None = None):
    """Open a window on a new game between two people and click ``columns`` (1-7) in turn; returns the game
    screen and the messages the window answered each click with ("" when the disc dropped).  With ``out``,
    the window is saved there as PNG after the last click."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    from plyground.plugins.pygame_gui import PygameRenderer
    from plyground.registry import get_registry
    from plyground.play.session import GameSession

    registry = get_registry()
    game = registry.make_game("connect-four")
    players = [registry.make_player("human", game) for _ in range(2)]
    renderer = PygameRenderer(width=size[0], height=size[1], bot_delay=0.0)
    answers = []
    try:
        renderer.start_game(GameSession(game, players, ("human", "human")), from_menu=False)
        screen = renderer.game_screen
        for text in columns:
            _until(renderer, lambda: screen.input is not None, "a person to move")
            played = len(screen.moves)
            spot = screen.view.cell_rect((0, int(text) - 1)).center      # the column's top hole
            for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
                pygame.event.post(pygame.event.Event(kind, pos=spot, button=1))
                renderer.step()
            if screen.message_kind == "error":
                answers.append(screen.message)
                continue
            _until(renderer, lambda: len(screen.moves) > played, f"the disc dropped into column {text}")
            answers.append("")
        _until(renderer, lambda: screen.over or screen.input is not None, "the end of the game or the next turn")
        renderer.step()
        if out is not None:
            pygame.image.save(pygame.display.get_surface(), str(out))
        return screen, answers
    finally:
        renderer.close()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m plyground_connect_four.screenshot OUT.png")
    play_in_window(PICTURE_GAME.split(), out=Path(sys.argv[1]))
    print(sys.argv[1])
