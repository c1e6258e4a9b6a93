"""Connect Four in plyground's browser page (the ``web`` renderer), by real clicks in headless Chromium: plyground
has no Connect Four code; the page draws the board with this package's own view (registered through
``register_board_views``, as for the window).  Skipped where aiohttp, Selenium or Chromium is missing."""
import threading

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("selenium")

from plyground.plugins.web.browser import PageDriver, chromium, start_browser, until  # noqa: E402
from plyground.registry import get_registry  # noqa: E402
from plyground.play.session import GameSession  # noqa: E402


def test_the_page_plays_connect_four_with_the_packages_view(tmp_path):
    if chromium() is None:
        pytest.skip("no headless Chromium (apt-get install chromium chromium-driver)")
    registry = get_registry()
    game = registry.make_game("connect-four")
    renderer = registry.make_renderer(f"web:open_browser=false,bot_delay=0,save_dir={tmp_path}", game)
    session = GameSession(game, [registry.make_player("human", game), registry.make_player("random", game)],
                          ("human", "random"))
    thread = threading.Thread(target=renderer.play, args=(session,), daemon=True)
    thread.start()
    driver = start_browser()
    try:
        until(lambda: renderer.screen is not None, "the game's screen")
        page = PageDriver(driver, renderer).open()
        until(lambda: "Your move" in page.text("status"), "Red's move")
        assert page.board_svg().count("<circle") >= 42          # the board's holes, drawn by the package's view
        page.click_cell((5, 3))                                  # the bottom of column 4
        until(lambda: len(page.moves()) == 2, "the disc dropped and Yellow's answer")
        assert page.moves()[0] == "4"
        page.button("leave")
        thread.join(30)
        assert session.record is not None and session.record.moves[0] == "4"
    finally:
        driver.quit()
        renderer.close()
        session.close_players()
