"""Fixtures for driving renderers (the pygame one frame by frame, with the SDL dummy video driver)."""
from __future__ import annotations

import pytest

from renderer_helpers import Driver, ensure_pygame_plugin


@pytest.fixture
def registry():
    return ensure_pygame_plugin()


@pytest.fixture
def make_renderer(registry):
    made = []

    def make(**options):
        from plyground.plugins.pygame_gui import PygameRenderer
        options.setdefault("bot_delay", 0.0)
        renderer = PygameRenderer(**options)
        made.append(renderer)
        return renderer, Driver(renderer)

    yield make
    for renderer in made:
        renderer.close()
