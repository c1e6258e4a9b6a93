"""Fixtures for driving renderers (the pygame one frame by frame, with the SDL dummy video driver)."""
from __future__ import annotations

import pytest

from renderer_helpers import ensure_pygame_plugin, renderer_factory
from plyground.plugins.web.browser import start_browser
from web_helpers import CHROMEDRIVER, CHROMIUM, NO_BROWSER


@pytest.fixture
def registry():
    return ensure_pygame_plugin()


@pytest.fixture
def make_renderer(registry):
    with renderer_factory() as make:
        yield make


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM and CHROMEDRIVER):
        pytest.skip(NO_BROWSER)
    driver = start_browser()
    yield driver
    driver.quit()


@pytest.fixture
def save_dir(tmp_path):
    folder = tmp_path / "saved-games"
    folder.mkdir()
    return folder
