"""Fixtures for driving renderers (the pygame one frame by frame, with the SDL dummy video driver)."""
from __future__ import annotations

import pytest

from renderer_helpers import ensure_pygame_plugin, renderer_factory


@pytest.fixture
def registry():
    return ensure_pygame_plugin()


@pytest.fixture
def make_renderer(registry):
    with renderer_factory() as make:
        yield make
