"""``plyground web-screenshots``: the page in headless Chromium, as a person sees it, at a desktop's size
(1280 x 800) and a phone's (390 x 844): the start page, and a game of the default game with a hint's arrow and a
piece picked up (its legal moves lit), and the game report of its moves reviewed.  The game is the last of its view's own scenes (the window's screenshots
use them too; checkers: a double jump), its moves replayed as a resumed game, so the move list is full."""
from __future__ import annotations

import threading
from pathlib import Path

from plyground.boardview.base import Scene
from plyground.protocols import GameRecord
from plyground.review import GameReview
from plyground.session import GameSession

from .browser import PageDriver, start_browser, until

#: (file name, width, height, mobile)
SIZES = (("desktop", 1280, 800, False), ("phone", 390, 844, True))
#: The pictures, in the order taken (the first one marks a folder this command wrote).
PICTURES = tuple(f"{what}-{size}.png" for size, *_ in SIZES for what in ("start", "game", "report"))


def is_web_screenshot_dir(folder: Path) -> bool:
    """A folder an earlier run wrote: it holds the first picture and only PNG files."""
    names = [p.name for p in Path(folder).iterdir()]
    return PICTURES[0] in names and all(name.endswith(".png") for name in names)


def write_web_screenshots(out: Path, save_dir: Path) -> list[Path]:
    from plyground.plugins.pygame_gui.views import view_for
    from plyground.registry import get_registry

    from .renderer import WebRenderer
    registry = get_registry()
    game = registry.make_game(registry.default_game())
    view = view_for(game)
    scenes = view.scenes()              # the game's own ways of entering moves: the last, usually the richest
    scene = scenes[-1] if scenes else Scene("start", ())
    out = Path(out)
    written = []
    for size, width, height, mobile in SIZES:
        driver = start_browser(width, height, mobile=mobile)
        try:
            # The start page.
            renderer = WebRenderer(open_browser=False, bot_delay=0.0, save_dir=save_dir)
            menu = threading.Thread(target=renderer.run_menu, args=(registry,), daemon=True)
            menu.start()
            until(lambda: renderer.server is not None and renderer.menu is not None, "the start page's server")
            page = PageDriver(driver, renderer).open()
            until(lambda: page.script("return !document.getElementById('menu').hidden;"), "the start page")
            written.append(_shoot(driver, out / f"start-{size}.png"))
            renderer.close()
            menu.join(10)

            # A game: the scene's moves so far, a hint's arrow, the piece that must jump picked up.
            renderer = WebRenderer(open_browser=False, bot_delay=0.0, save_dir=save_dir)
            opponent = registry.default_opponent(game)
            record = GameRecord(game=game.name, players=("human", opponent), start=game.new_initial_state().to_text(),
                                moves=list(scene.moves), finished=False)
            players = [registry.make_player("human", game), registry.make_player(opponent, game)]
            session = GameSession(game, players, ("human", opponent), resume=record)
            thread = threading.Thread(target=renderer.play, args=(session,), daemon=True)
            thread.start()
            until(lambda: renderer.screen is not None, "the game's screen")
            page = PageDriver(driver, renderer).open()
            until(lambda: "Your move" in page.text("status"), "the person's move")
            with renderer.lock:
                renderer.screen.view.show_numbers = True
            page.button("hint")
            until(lambda: "rgb(40,170,90)" in page.board_svg() and "Your move" in page.text("status"), "the hint")
            if scene.clicks:
                page.click_cell(scene.clicks[0])
            until(lambda: page.script("return document.querySelectorAll('#board circle').length > 0;"), "the board")
            if mobile:
                page.script("window.scrollTo(0, 0);")
            written.append(_shoot(driver, out / f"game-{size}.png"))
            renderer.close()
            thread.join(10)
            session.close_players()

            # The game report of those moves reviewed (Report): accuracy, marks and best moves, the graph.
            renderer = WebRenderer(open_browser=False, bot_delay=0.0, save_dir=save_dir)
            review = GameReview(game, record)
            thread = threading.Thread(target=renderer.review, args=(review, lambda state: None), daemon=True)
            thread.start()
            until(lambda: renderer.screen is not None, "the review's screen")
            page = PageDriver(driver, renderer).open()
            page.button("report")
            until(lambda: page.text("report-title").startswith("Report by"), "the game report", 300)
            page.script("document.getElementById('report').scrollIntoView({block: 'center'});")
            written.append(_shoot(driver, out / f"report-{size}.png"))
            renderer.close()
            thread.join(10)
        finally:
            driver.quit()
    return written


def _shoot(driver, path: Path) -> Path:
    """The page as it is now, written atomically."""
    part = path.with_name(path.name + ".part")
    part.write_bytes(driver.get_screenshot_as_png())
    part.replace(path)
    return path
