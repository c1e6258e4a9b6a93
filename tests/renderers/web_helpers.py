"""Helpers for the web renderer's tests: a game served in this process, and headless Chromium driving its page.

The browser is Debian's ``chromium`` with its ``chromedriver`` (``.ci/run`` installs both), driven by Selenium;
where they are not installed the browser tests skip with one line.  Clicks on the board are real pointer events
at the screen point of a cell's centre (the view's own geometry, mapped through the page's SVG)."""
from __future__ import annotations

import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from plyground.registry import get_registry
from plyground.session import GameSession, PlaySettings

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
NO_BROWSER = ("no headless Chromium here (apt-get install chromium chromium-driver; .ci/run does): "
              "browser tests skipped")
#: The flags Chromium needs as root on a machine with no network (docs/web.md).
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--hide-scrollbars")


def start_browser(width: int = 1280, height: int = 800, *, mobile: bool = False):
    """Headless Chromium showing pages ``width`` x ``height`` CSS pixels (a phone's touch screen: ``mobile``)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='plyground-chromium-')}")
    options.add_argument(f"--window-size={width},{height}")
    options.binary_location = CHROMIUM
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    return driver


def until(condition: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    """Wait for ``condition()`` to be true (an event: a page drawn, a move made); fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def make_web_renderer(save_dir: Path, game: str = "checkers", **options: Any):
    """The web renderer as ``--renderer web:...`` makes it for ``game``: no browser opened, no bot delay, games
    saved in ``save_dir``."""
    spec = {"open_browser": "false", "bot_delay": "0", "save_dir": str(save_dir), **options}
    registry = get_registry()
    return registry.make_renderer("web:" + ",".join(f"{k}={v}" for k, v in spec.items()), registry.make_game(game))


class ServedGame:
    """A game played by the web renderer in a thread, as ``plyground play --renderer web`` plays it."""

    def __init__(self, renderer, game_spec: str, players: tuple[str, str], *, start=None,
                 settings: PlaySettings = PlaySettings()) -> None:
        registry = get_registry()
        self.renderer = renderer
        self.game = registry.make_game(game_spec)
        if isinstance(start, str):
            start = self.game.new_state(start)
        self.session = GameSession(self.game, [registry.make_player(p, self.game) for p in players], players,
                                   settings, start=start)
        self.record = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._play, daemon=True)

    def _play(self) -> None:
        try:
            self.record = self.renderer.play(self.session)
        except BaseException as exc:  # noqa: BLE001 - the test reports it
            self.error = exc

    def start(self) -> "ServedGame":
        self.thread.start()
        until(lambda: self.renderer.screen is not None, "the game's screen")
        return self

    def finish(self, timeout: float = 30.0) -> None:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the game did not end"
        if self.error is not None:
            raise self.error
        self.session.close_players()


class Page:
    """The page in the browser: what it shows, and a person's clicks on it."""

    def __init__(self, driver, renderer) -> None:
        self.driver, self.renderer = driver, renderer

    def open(self) -> "Page":
        self.driver.get(self.renderer.url)
        return self

    def script(self, code: str, *args: Any) -> Any:
        return self.driver.execute_script(code, *args)

    def text(self, element_id: str) -> str:
        return self.script("const e = document.getElementById(arguments[0]); return e ? e.textContent : '';",
                           element_id)

    def moves(self) -> list[str]:
        return self.script("return [...document.querySelectorAll('#moves .move')].map(e => e.textContent);")

    def board_svg(self) -> str:
        return self.script("const s = document.querySelector('#board svg'); return s ? s.outerHTML : '';")

    def screen_point(self, x: float, y: float) -> tuple[float, float]:
        """The page's point (CSS pixels) of the board picture's point (x, y)."""
        return tuple(self.script(
            "const svg = document.querySelector('#board svg'); const p = svg.createSVGPoint();"
            "p.x = arguments[0]; p.y = arguments[1]; const q = p.matrixTransform(svg.getScreenCTM());"
            "return [q.x, q.y];", x, y))

    def click_cell(self, cell) -> None:
        """A click (pointer down and up) on ``cell``'s centre, where the screen's view draws it."""
        from selenium.webdriver.common.actions.action_builder import ActionBuilder
        with self.renderer.lock:
            x, y = self.renderer.screen.view.cell_center(cell)
        px, py = self.screen_point(x, y)
        actions = ActionBuilder(self.driver)
        actions.pointer_action.move_to_location(int(px), int(py))
        actions.pointer_action.click()
        actions.perform()

    def drag(self, from_cell, to_cell) -> None:
        """Press on ``from_cell``, move to ``to_cell`` in steps, release there (a drag and drop)."""
        from selenium.webdriver.common.actions.action_builder import ActionBuilder
        with self.renderer.lock:
            view = self.renderer.screen.view
            a, b = view.cell_center(from_cell), view.cell_center(to_cell)
        (ax, ay), (bx, by) = self.screen_point(*a), self.screen_point(*b)
        actions = ActionBuilder(self.driver)
        pointer = actions.pointer_action
        pointer.move_to_location(int(ax), int(ay))
        pointer.pointer_down()
        for step in range(1, 6):
            pointer.move_to_location(int(ax + (bx - ax) * step / 5), int(ay + (by - ay) * step / 5))
        pointer.pointer_up()
        actions.perform()

    def button(self, name: str) -> None:
        from selenium.webdriver.common.by import By
        until(lambda: self.script(f"const b = document.querySelector('#buttons button[data-name=\"{name}\"]');"
                                  "return b && !b.disabled;"), f"the {name} button")
        self.driver.find_element(By.CSS_SELECTOR, f'#buttons button[data-name="{name}"]').click()


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
