"""``plyground web-screenshots``: the page in headless Chromium, as a person sees it, at a desktop's size
(1280 x 800) and a phone's (390 x 844): the start page; the position editor (Set up position) opened on the game's
position, a king being put down; a game of the default game with a hint's arrow and a piece picked up (its legal
moves lit); and the game report of its moves reviewed.  At the desktop's size also the same game after Offer draw,
the bot's answer shown, and after Copy position and Download game, their box and note shown.  The game is the last
of its view's own scenes (the window's screenshots use them too; checkers: a double jump), its moves replayed as a
resumed game, so the move list is full."""
from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

from plyground.boardview.base import Scene
from plyground.protocols import GameRecord
from plyground.play.review import GameReview
from plyground.play.session import GameSession

from .browser import PageDriver, start_browser, until

#: (file name, width, height, mobile)
SIZES = (("desktop", 1280, 800, False), ("phone", 390, 844, True))
#: The pictures, in the order taken (the first one marks a folder this command wrote).
PICTURES = tuple(f"{what}-{size}.png" for size, *_ in SIZES
                 for what in ("start", "editor", "game") + (("draw", "download") if size == "desktop" else ())
                 + ("report",))


def is_web_screenshot_dir(folder: Path) -> bool:
    """A folder an earlier run wrote: it holds the first picture and only PNG files."""
    names = [p.name for p in Path(folder).iterdir()]
    return PICTURES[0] in names and all(name.endswith(".png") for name in names)


def write_web_screenshots(out: Path, save_dir: Path) -> list[Path]:
    from plyground.boardview.views import view_for
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

            # The position editor: Set up position with the scene's position as the Start position, the palette's
            # second piece (checkers: Black's king) put on the first square it may stand on.
            opponent = registry.default_opponent(game)
            record = GameRecord(game=game.name, players=("human", opponent), start=game.new_initial_state().to_text(),
                                moves=list(scene.moves), finished=False)
            position = GameReview(game, record).position(len(scene.moves)).to_text()
            page.script("document.getElementById('menu-position').value = arguments[0];"
                        "document.getElementById('menu-setup').click();", position)
            until(lambda: page.script("return !document.getElementById('editor').hidden;"), "the position editor")
            with renderer.lock:
                editor = renderer.editor
                king = editor.editor.pieces[1]
                board, placement = editor.view, editor.editor.placement
                empty = next(cell for cell in ((row, col) for row in range(board.rows) for col in range(board.cols))
                             if cell not in placement and not board.setup_refusal(cell, king, placement))
                x, y = board.cell_center(empty)
            renderer.act({"type": "piece", "symbol": king})
            renderer.act({"type": "press", "x": x, "y": y, "button": 0})
            renderer.wake()
            until(lambda: page.script("return document.getElementById('editor-text').value;") != position,
                  "the king put down")
            written.append(_shoot(driver, out / f"editor-{size}.png"))
            renderer.close()
            menu.join(10)

            # A game: the scene's moves so far, a hint's arrow, the piece that must jump picked up.
            renderer = WebRenderer(open_browser=False, bot_delay=0.0, save_dir=save_dir)
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
                before = page.board_svg()
                page.click_cell(scene.clicks[0])
                until(lambda: page.board_svg() != before, "the click's picture")   # not the picture before it
            until(lambda: page.script("return document.querySelectorAll('#board circle').length > 0;"), "the board")
            if mobile:
                page.script("window.scrollTo(0, 0);")
            written.append(_shoot(driver, out / f"game-{size}.png"))
            renderer.close()
            thread.join(10)
            session.close_players()

            if not mobile:
                # The scene's game where the bot last had a choice: it searches and moves (so it has an
                # evaluation), then the person's Offer draw and the bot's answer (accepted: the game ends drawn;
                # declined: why).
                renderer = WebRenderer(open_browser=False, bot_delay=0.0, save_dir=save_dir)
                players = [registry.make_player("human", game), registry.make_player(opponent, game)]
                chosen = _bot_chooses(game, record)
                session = GameSession(game, players, ("human", opponent),
                                      resume=replace(record, moves=list(scene.moves[:chosen])))
                thread = threading.Thread(target=renderer.play, args=(session,), daemon=True)
                thread.start()
                until(lambda: renderer.screen is not None, "the game's screen")
                page = PageDriver(driver, renderer).open()
                until(lambda: "Your move" in page.text("status") and len(page.moves()) == chosen + 1,
                      "the bot's move")
                page.button("offer_draw")
                until(lambda: page.text("message") not in ("", "Draw offered."), "the bot's answer to the draw")
                written.append(_shoot(driver, out / f"draw-{size}.png"))
                # Copy position (the box with the position's text), then Download game (its note).
                downloads = save_dir / "downloads"       # not among the record files the start page lists
                downloads.mkdir(exist_ok=True)
                driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow",
                                                                      "downloadPath": str(downloads)})
                page.script("document.getElementById('copy-position').click();")
                until(lambda: page.script("return !document.getElementById('position-text').hidden;"),
                      "the position's box")
                page.script("document.getElementById('download-game').click();")
                until(lambda: page.text("tools-note").startswith("Downloaded as "), "the download's note")
                page.script("document.getElementById('page-tools').scrollIntoView({block: 'end'});")
                written.append(_shoot(driver, out / f"download-{size}.png"))
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


def _bot_chooses(game, record: GameRecord) -> int:
    """The most moves of ``record`` after which the bot (side 1) is to move with more than one move to choose
    from: played on from there it searches (a forced move is played without one)."""
    review = GameReview(game, record)
    for ply in range(review.plies - 1, -1, -1):
        state = review.position(ply)
        if state.current_player() == 1 and len(state.legal_moves()) > 1:
            return ply
    raise RuntimeError(f"the bot never has a choice in the first {review.plies} moves of the scene")


def _shoot(driver, path: Path) -> Path:
    """The page as it is now, written atomically."""
    part = path.with_name(path.name + ".part")
    part.write_bytes(driver.get_screenshot_as_png())
    part.replace(path)
    return path
