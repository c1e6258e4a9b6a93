"""The pygame renderer: a window with a main menu, option editor, rules page and a clickable board.

Importing this package does not import pygame; the window's modules are
imported when a window opens (so ``plyground --help`` and the registry stay fast).
"""
import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # pygame's banner would pollute stdout (e.g. --json)

from .renderer import PygameRenderer  # noqa: E402

__all__ = ["PygameRenderer"]
