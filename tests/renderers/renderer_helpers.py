"""Helpers for the renderer tests: the plugins they need, and a driver that posts real pygame events."""
from __future__ import annotations

import importlib
import os
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pygame

from plyground import plugin_manager
from plyground.protocols import Player
from plyground.registry import get_registry, reset_registry


#: Plugins these tests need: (kind, name, module).  Registered by hand when an installation
#: predates their entry points (an editable install made before they were added).
NEEDED = (("renderers", "pygame", "plyground.plugins.pygame_gui.plugin"),
          ("games", "checkers", "plyground.games.checkers.plugin"))


def ensure_pygame_plugin():
    """The registry with the pygame renderer and the checkers game in it."""
    registry = get_registry()
    missing = [(name, module) for kind, name, module in NEEDED
               if name not in registry.names(kind) and plugin_manager.pm.get_plugin(name) is None]
    for name, module in missing:
        plugin = importlib.import_module(module)
        plugin_manager.register(plugin, plugin_manager.PluginInfo(name, module, "plyground", "dev"))
    if missing:
        reset_registry()
        registry = get_registry()
    return registry


class Driver:
    """Posts mouse and keyboard events into the renderer's real event loop and runs frames."""

    def __init__(self, renderer) -> None:
        self.renderer = renderer

    def frames(self, n: int = 1) -> None:
        for _ in range(n):
            self.renderer.step()

    def until(self, condition, timeout: float = 20.0, what: str = "condition") -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            self.renderer.step()
            time.sleep(0.001)

    def click(self, pos, button: int = 1) -> None:
        self.press(pos, button, step=False)
        self.release(pos, button)

    def press(self, pos, button: int = 1, *, step: bool = True) -> None:
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=_point(pos), button=button))
        if step:
            self.renderer.step()

    def release(self, pos, button: int = 1) -> None:
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=_point(pos), button=button))
        self.renderer.step()

    def move(self, pos, *, held: bool = False) -> None:
        """The pointer moved to ``pos`` (with the left button down when ``held``: a drag)."""
        pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=_point(pos), rel=(0, 0),
                                             buttons=(1 if held else 0, 0, 0)))
        self.renderer.step()

    def wheel(self, pos, clicks: int) -> None:
        """The pointer moved to ``pos``, then the mouse wheel turned: ``clicks`` > 0 scrolls up, < 0 down."""
        self.move(pos)
        pygame.event.post(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=clicks, flipped=False))
        self.renderer.step()

    def type(self, text: str) -> None:
        for ch in text:
            pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text=ch))
        self.renderer.step()

    def key(self, key: int, mod: int = 0) -> None:
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod, unicode=""))
        self.renderer.step()

    def pixel(self, pos) -> tuple[int, int, int]:
        return tuple(pygame.display.get_surface().get_at((int(pos[0]), int(pos[1]))))[:3]


def _point(pos) -> tuple[int, int]:
    return int(pos[0]), int(pos[1])


@contextmanager
def renderer_factory():
    """``make(**options)`` -> (a pygame renderer without bot delays, its Driver); all closed on the way out."""
    from plyground.plugins.pygame_gui import PygameRenderer
    made = []

    def make(**options):
        options.setdefault("bot_delay", 0.0)
        renderer = PygameRenderer(**options)
        made.append(renderer)
        return renderer, Driver(renderer)

    try:
        yield make
    finally:
        for renderer in made:
            renderer.close()


def open_menu(make_renderer, registry, **options):
    """(renderer, driver, menu): a new renderer (``options``) showing its menu."""
    renderer, driver = make_renderer(**options)
    renderer.open_menu(registry)
    driver.frames(1)
    return renderer, driver, renderer.menu


def choose(driver, cycler, value: str) -> None:
    """Click a cycler's right arrow until it shows ``value``."""
    for _ in range(len(cycler.choices)):
        if cycler.value == value:
            return
        driver.click(cycler.next_rect.center)
    assert cycler.value == value, f"{value!r} is not offered: {cycler.choices}"


def show_advanced(driver, menu) -> None:
    """Click Advanced options, which shows the game's and the players' own option fields (hidden at first)."""
    if not menu.advanced:
        driver.click(menu.buttons["advanced"].rect.center)
    assert menu.advanced


def start_from_menu(renderer, driver, registry, *, game="checkers", seed="1", position=""):
    """The game screen after the menu is clicked through: ``game``, the human against
    ``random:seed=SEED``, from ``position`` (FEN) when one is given."""
    renderer.open_menu(registry)
    driver.frames(1)
    menu = renderer.menu
    choose(driver, menu.game_choice, game)
    assert menu.sides[0].player == "human"
    choose(driver, menu.sides[1].cycler, "random")
    show_advanced(driver, menu)
    field = menu.sides[1].editor.field("seed")
    driver.click(field.rect.center)
    driver.key(pygame.K_DELETE)
    driver.type(seed)
    if position:
        driver.click(menu.position.rect.center)
        driver.type(position)
    driver.click(menu.buttons["start"].rect.center)
    screen = renderer.game_screen
    assert renderer.screen is screen, menu.error
    assert screen.view.game_name == game
    return screen


def wait_turn(driver, screen):
    driver.until(lambda: screen.input is not None or screen.over, what="the human's turn or the end")


def human_to_move(make_renderer, registry, **menu):
    """(renderer, driver, game screen) of a game started from the menu (``start_from_menu``'s options),
    at the human's turn."""
    renderer, driver = make_renderer()
    screen = start_from_menu(renderer, driver, registry, **menu)
    wait_turn(driver, screen)
    return renderer, driver, screen


class GatedBot(Player):
    """A bot that thinks until the test sets ``go``, then plays the first legal move; ``per_move``: each move
    waits for a go of its own."""

    name = "gated"
    description = "the first legal move, on a go"

    def __init__(self, game, per_move: bool = False, **options):
        super().__init__(game, **options)
        self.go = threading.Event()
        self.per_move = per_move

    def choose_move(self, state, budget):
        self.go.wait(10)
        if self.per_move:
            self.go.clear()
        return state.legal_moves()[0]


def saved_random_match(folder: Path, name: str, *, seed: int, game: str = "checkers",
                       max_plies: int | None = None) -> Path:
    """``folder/name``: one finished game of two random players (``seed``; cut at ``max_plies``), written by
    ``plyground match --save`` in a process of its own."""
    cut = ("--max-plies", str(max_plies)) if max_plies is not None else ()
    done = subprocess.run([sys.executable, "-m", "plyground", "match", "--game", game, "--black", "random",
                           "--white", "random", "-n", "1", "--seed", str(seed), *cut, "--save", name],
                          capture_output=True, text=True, cwd=folder, timeout=120,
                          env=dict(os.environ, PLYGROUND_GAMES=str(folder / "games")))
    assert done.returncode == 0, done.stderr
    return folder / name
