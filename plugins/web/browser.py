"""Headless Chromium driven by Selenium: the page's screenshots (``plyground web-screenshots``) and its tests.

Debian's ``chromium`` and ``chromedriver`` (packages ``chromium`` and ``chromium-driver``); Selenium is in the
``dev`` extra.  As root on a machine without a network Chromium needs the flags of :data:`CHROMIUM_FLAGS`
(without the background-networking ones it keeps trying to reach Google's hosts)."""
from __future__ import annotations

import shutil
import tempfile
import time
from typing import Any, Callable

from plyground.errors import UsageError

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--hide-scrollbars")


def chromium() -> tuple[str, str] | None:
    """(the browser, its driver) where both are installed, else None."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


def start_browser(width: int = 1280, height: int = 800, *, mobile: bool = False):
    """Headless Chromium showing pages ``width`` x ``height`` CSS pixels at one device pixel each (``mobile``: a
    phone's screen, touch and all); a UsageError saying what to install where it cannot start."""
    found = chromium()
    if found is None:
        raise UsageError("headless Chromium is not installed: apt-get install chromium chromium-driver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        raise UsageError("driving Chromium needs Selenium: pip install selenium (or the dev extra)") from None
    options = webdriver.ChromeOptions()
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='plyground-chromium-')}")
    options.add_argument(f"--window-size={width},{height}")
    options.binary_location = found[0]
    driver = webdriver.Chrome(options=options, service=Service(found[1]))
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    if mobile:
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    return driver


def until(condition: Callable[[], Any], what: str, timeout: float = 60.0, every: float = 0.02) -> Any:
    """Wait for ``condition()`` to be true (an event: a page drawn, a move made), looking ``every`` seconds; fail
    naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(every)


class PageDriver:
    """A renderer's page in the browser ``driver``: what it shows, and a person's clicks on it (real pointer
    events at the screen points of the board view's own cells)."""

    def __init__(self, driver, renderer) -> None:
        self.driver, self.renderer = driver, renderer

    def open(self) -> "PageDriver":
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
        """Press the panel's ``name`` button once it is shown and enabled (found and clicked in one step: the page
        redraws its buttons with every picture)."""
        until(lambda: self.script(f"const b = document.querySelector('#buttons button[data-name=\"{name}\"]');"
                                  "if (!b || b.disabled) return false; b.click(); return true;"), f"the {name} button")
