"""The web renderer in a real browser (headless Chromium through Selenium): a checkers game with a multi-jump
clicked landing by landing, the bot's answer, a hint's arrow, take back, save, the saved game reviewed; a chess
promotion; the start page.  Skipped with one line where Chromium is not installed."""
from __future__ import annotations

import threading

import pytest

from plyground.play.resume import load_unfinished
from plyground.play.review import open_review

from plyground.plugins.web.browser import PageDriver as Page, until
from web_helpers import ServedGame, game_page, make_web_renderer

pytest.importorskip("aiohttp", reason="the web renderer needs aiohttp: pip install 'plyground[web]'")
pytest.importorskip("selenium", reason="the browser tests need selenium (the dev extra)")

#: The arrow colour of the best move (theme.ARROW without its alpha), as the SVG writes it.
ARROW = "rgb(40,170,90)"


def _multijump_scene(game):
    """The checkers view's own double-jump position (the window's screenshot scene): the position, the double
    jump's text and its cells (start, landing, landing), from the view's marks of the move."""
    from plyground.boardview.views import view_for
    view = view_for(game)
    scene = next(s for s in view.scenes() if s.name == "multijump")
    state = game.new_initial_state()
    for text in scene.moves:
        state.apply(state.parse_move(text))
    double = max(state.legal_moves(), key=lambda m: len(state.move_path(m)))
    cells = [cell for cell, kinds in view.move_marks(state, double).items() if "last" in kinds]
    assert len(cells) == len(state.move_path(double)) >= 3
    return game.new_state(state.to_text()), state.move_to_text(double), cells   # as --fen gives it


def test_a_checkers_game_in_the_browser(browser, save_dir):
    from plyground.registry import get_registry
    checkers = get_registry().make_game("checkers")
    start, jump_text, cells = _multijump_scene(checkers)
    players = ("human", "alphabeta:depth=3")
    with game_page(browser, save_dir, "checkers", players, start=start) as (renderer, served, page):
        until(lambda: "Your move" in page.text("status"), "the page to show the person's move")
        assert page.board_svg().count("<circle") > 20          # the pieces, drawn by the view as SVG
        # The token was needed once: the address bar (history, bookmarks) no longer holds it (issue #72).
        assert "token" not in browser.current_url, browser.current_url

        # The double jump, landing by landing: the move is made only at its last landing.
        page.click_cell(cells[0])
        page.click_cell(cells[1])
        with renderer.lock:
            assert renderer.screen.moves == [] and renderer.screen.input is not None   # half-entered
        page.click_cell(cells[2])
        until(lambda: len(page.moves()) == 2 and "Your move" in page.text("status"), "the bot's answer on the page")
        assert page.moves()[0] == jump_text

        # Flip: the other side at the bottom, and back.
        board = page.board_svg()
        page.button("flip")
        until(lambda: page.board_svg() != board, "the flipped board")
        with renderer.lock:
            assert renderer.screen.view.bottom_side == 1
        page.button("flip")
        until(lambda: page.board_svg() == board, "the board flipped back")

        # A hint: the analysis view opens and the best move's arrow is drawn over the board.
        page.button("hint")
        until(lambda: ARROW in page.board_svg(), "the hint's arrow")
        assert page.text("analysis-title").startswith("Analysis: hint")

        # Take back: the person's move and the bot's answer.
        page.button("undo")
        until(lambda: page.moves() == [], "the moves taken back")
        with renderer.lock:
            assert renderer.screen.state.to_text() == start.to_text()

        # The jump again, then save the game so far.
        for cell in cells:
            page.click_cell(cell)
        until(lambda: len(page.moves()) == 2 and "Your move" in page.text("status"), "the bot's answer again")
        moves = page.moves()
        page.button("save_now")
        until(lambda: "Saved the game so far" in page.text("message"), "the save's message")
        saved = list(save_dir.glob("checkers-saved*.pdn"))
        assert len(saved) == 1
        assert load_unfinished(checkers, saved[0]).moves == moves
        page.button("leave")
        served.finish()
        assert served.record is not None and not served.record.finished and served.record.moves == moves

        # The saved game reviewed on the same page: it opens at the start; Forward, a click on a move, Back, Play
        # from here.
        review = open_review(checkers, saved[0])
        result = {}
        thread = threading.Thread(target=lambda: result.setdefault("from", renderer.review(review, lambda s: None)),
                                  daemon=True)
        thread.start()
        until(lambda: page.text("status").startswith("Game 1 of 1"), "the review on the page")
        assert page.moves() == moves
        shown = "const m = document.querySelector('#moves .move.shown'); return m ? m.dataset.ply : null;"
        page.button("forward")
        until(lambda: page.script(shown) == "1", "the first move shown after Forward")
        page.script("document.querySelector('#moves .move[data-ply=\"2\"]').click();")
        until(lambda: page.script(shown) == "2", "the move clicked in the move list")
        page.button("back")
        until(lambda: page.script(shown) == "1", "the first move shown after Back")
        page.button("play")
        thread.join(30)
        assert result["from"] is not None and result["from"].ply == start.ply + 1


def test_a_chess_promotion_in_the_browser(browser, save_dir):
    promotion = "8/P6k/8/8/8/8/8/4K3 w - - 0 1"
    with game_page(browser, save_dir, "chess", ("human", "random"), start=promotion) as (renderer, served, page):
        until(lambda: "Your move" in page.text("status"), "the person's move")
        with renderer.lock:
            view = renderer.screen.view
            a7, a8, e1, d2 = (view.square_cell(s) for s in (48, 56, 4, 11))
        page.drag(e1, d2)                    # a piece dragged and dropped on its square
        until(lambda: len(page.moves()) == 2 and "Your move" in page.text("status"), "the drag's move and the answer")
        assert page.moves()[0] == "Kd2"
        page.click_cell(a7)
        page.click_cell(a8)

        def offered():
            with renderer.lock:
                return renderer.screen.input.promotion_squares()
        choices = until(offered, "the promotion's choices")     # the clicks reach the server in their own time
        assert sorted(choices.values()) == [2, 3, 4, 5]     # knight, bishop, rook, queen offered
        knight = next(square for square, piece in choices.items() if piece == 2)
        page.click_cell(view.square_cell(knight))
        until(lambda: len(page.moves()) >= 3, "the promotion made")
        assert page.moves()[2] == "a8=N"
        page.button("leave")
        served.finish()
        assert served.record.moves[2] == "a8=N"


def test_the_start_page_starts_a_game(browser, save_dir):
    from plyground.registry import get_registry
    from selenium.webdriver.support.ui import Select
    renderer = make_web_renderer(save_dir)
    thread = threading.Thread(target=renderer.run_menu, args=(get_registry(),), daemon=True)
    thread.start()
    until(lambda: renderer.server is not None, "the server")
    page = Page(browser, renderer).open()
    try:
        until(lambda: page.script("return !document.getElementById('menu').hidden;"), "the start page")
        Select(browser.find_element("id", "menu-game")).select_by_value("tictactoe")
        until(lambda: page.script("return document.getElementById('menu-player-0').value === 'human';"),
              "tic-tac-toe's players")
        Select(browser.find_element("id", "menu-player-1")).select_by_value("random")
        Select(browser.find_element("id", "menu-clock")).select_by_value("1 min")
        browser.find_element("id", "menu-start").click()
        until(lambda: page.text("game-title") == "Tictactoe" and "Your move" in page.text("status"),
              "the game started from the start page")
        with renderer.lock:
            assert renderer.screen.names == ("human", "random")
        clocks = page.script("return [...document.querySelectorAll('.player .clock')].map(e => e.textContent);")
        assert len(clocks) == 2 and clocks[1] == "1:00"
        page.click_cell((1, 1))
        until(lambda: len(page.moves()) == 2, "the move and the bot's answer")
    finally:
        renderer.close()
        renderer.done.set()
        thread.join(10)


def test_the_start_page_shows_the_saved_games_of_the_game_chosen_at_once(browser, save_dir, monkeypatch):
    """Issue #73 point 5: switching Game on the start page shows that game's own Resume saved and record files at
    once (they stayed the last game's until the next message from the server)."""
    from plyground.protocols import GameRecord
    from plyground.files.recordio import write_records
    from plyground.registry import get_registry
    from selenium.webdriver.support.ui import Select
    monkeypatch.chdir(save_dir)                     # Open game lists the files here too: only this test's
    checkers = get_registry().make_game("checkers")
    write_records(checkers, [GameRecord(game="checkers", players=("human", "random"),
                                        start=checkers.new_initial_state().to_text(), moves=["9-13", "22-18"],
                                        finished=False)],
                  save_dir / "checkers-saved.pdn")
    renderer = make_web_renderer(save_dir)
    thread = threading.Thread(target=renderer.run_menu, args=(get_registry(),), daemon=True)
    thread.start()
    until(lambda: renderer.server is not None, "the server")
    page = Page(browser, renderer).open()
    resume = "const b = document.getElementById('menu-resume'); return b.hidden ? null : b.textContent;"
    try:
        until(lambda: page.script(resume) == "Resume saved (checkers-saved.pdn)", "checkers' saved game offered")
        assert page.text("menu-files") == "checkers-saved.pdn"
        Select(browser.find_element("id", "menu-game")).select_by_value("chess")
        until(lambda: page.script(resume) is None, "no Resume saved for chess")
        assert page.text("menu-files") == "No saved games of this game yet."
        Select(browser.find_element("id", "menu-game")).select_by_value("checkers")
        until(lambda: page.script(resume) == "Resume saved (checkers-saved.pdn)", "checkers' saved game again")
        assert page.text("menu-files") == "checkers-saved.pdn"
    finally:
        renderer.close()
        renderer.done.set()
        thread.join(10)


def _served_command(args: list[str]):
    """``plyground ARGS`` in a process of its own; (the process, the page's address it printed)."""
    import re
    import subprocess
    import sys
    process = subprocess.Popen([sys.executable, "-m", "plyground", *args], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    for line in process.stderr:
        lines.append(line)
        found = re.search(r"the game is at (http://\S+)", line)
        if found:
            return process, found.group(1)
    raise AssertionError(f"plyground {' '.join(args)} printed no address: {''.join(lines)}")


class _ByAddress:
    """What PageDriver needs of a renderer served by another process: its address, and the board view laid out
    as that process's page lays it out (the cells' places on the picture)."""

    def __init__(self, url: str, game_name: str) -> None:
        import types

        import pygame

        from plyground.screen.game import EVAL_BAR_ROOM
        from plyground.boardview.views import view_for
        from plyground.plugins.web.screen import BOARD, MARGIN
        from plyground.registry import get_registry
        view = view_for(get_registry().make_game(game_name))
        view.layout(pygame.Rect(MARGIN + EVAL_BAR_ROOM, MARGIN, BOARD, BOARD))
        self.url, self.lock, self.screen = url, threading.Lock(), types.SimpleNamespace(view=view)


def test_play_and_match_from_the_command_line_in_the_browser(browser, save_dir, monkeypatch):
    monkeypatch.setenv("PLYGROUND_GAMES", str(save_dir))
    # plyground play: the person's moves by clicks until the game is over; Close ends the command.
    process, url = _served_command(["play", "--game", "tictactoe", "--black", "human", "--white", "random",
                                    "--seed", "3", "--renderer", "web:open_browser=false,bot_delay=0"])
    over = "return document.getElementById('status').className === 'over';"
    count = "return document.querySelectorAll('#moves .move').length;"
    try:
        page = Page(browser, _ByAddress(url, "tictactoe")).open()
        cells = [(row, col) for row in range(3) for col in range(3)]
        while not page.script(over):
            until(lambda: "Your move" in page.text("status") or page.script(over), "the person's turn")
            if page.script(over):
                break
            before = page.script(count)
            for cell in cells:         # the first free cell: a click on a taken one is refused with its reason
                page.click_cell(cell)
                if until(lambda: page.script(count) > before or "error" in page.script(
                        "return document.getElementById('message').className;"), "the click's answer"):
                    if page.script(count) > before:
                        break
            until(lambda: page.script(count) >= before + 2 or page.script(over), "the bot's answer")
        page.button("leave")
        assert process.wait(30) == 0
    finally:
        process.kill()
        process.wait()

    # plyground match: the bots' games shown on the page as they are played.
    process, url = _served_command(["match", "--game", "tictactoe", "--black", "random", "--white", "random",
                                    "--games", "2", "--renderer",
                                    "web:open_browser=false,bot_delay=0.3,end_pause=0.5"])
    try:
        page = Page(browser, _ByAddress(url, "tictactoe")).open()
        until(lambda: page.script(count) >= 1, "a bot's move on the page")
        out, _ = process.communicate(timeout=60)
        assert process.returncode == 0 and "2 games" in out
    finally:
        process.kill()
        process.wait()


def test_live_analysis_while_the_bot_thinks(browser, save_dir):
    thinker = "alphabeta:depth=64,seconds=3,book=none"     # it thinks
    with game_page(browser, save_dir, "checkers", ("human", thinker)) as (renderer, served, page):
        until(lambda: "Your move" in page.text("status"), "the person's move")
        page.button("analysis")                # the analysis view on (A)
        with renderer.lock:
            view = renderer.screen.view
        page.click_cell(view.square_cell(10))  # 11-15
        page.click_cell(view.square_cell(14))
        # While the bot thinks: its search so far, with its depth, and the bar and arrow over the board.
        until(lambda: "thinking" in page.text("status") and "depth" in page.text("analysis-lines"),
              "the bot's search shown while it thinks")
        assert page.text("analysis-title").startswith("Analysis: alphabeta")
        assert ARROW in page.board_svg()
        until(lambda: "Your move" in page.text("status"), "the bot's move")
        page.button("leave")
        served.finish()


def test_a_phone_plays_by_taps_with_the_panel_under_the_board(save_dir):
    from selenium.webdriver.common.actions import interaction
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.pointer_input import PointerInput

    from plyground.plugins.web.browser import chromium, start_browser
    if chromium() is None:
        pytest.skip("no headless Chromium here (apt-get install chromium chromium-driver)")
    phone = start_browser(390, 844, mobile=True)
    renderer = make_web_renderer(save_dir)
    served = ServedGame(renderer, "checkers", ("human", "random")).start()
    page = Page(phone, renderer).open()
    try:
        until(lambda: "Your move" in page.text("status"), "the person's move")
        board = page.script("return document.getElementById('board').getBoundingClientRect().toJSON();")
        panel = page.script("return document.getElementById('panel').getBoundingClientRect().toJSON();")
        assert board["width"] >= 370 and panel["top"] >= board["bottom"] - 1     # the whole width, then the panel
        with renderer.lock:
            view = renderer.screen.view
        for square in (10, 14):                 # 11-15 by two taps of a finger
            with renderer.lock:
                x, y = view.cell_center(view.square_cell(square))
            px, py = page.screen_point(x, y)
            actions = ActionBuilder(phone, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
            actions.pointer_action.move_to_location(int(px), int(py))
            actions.pointer_action.click()
            actions.perform()
        until(lambda: len(page.moves()) == 2, "the tapped move and the bot's answer")
        assert page.moves()[0] == "11-15"
        page.button("leave")
        served.finish()
    finally:
        renderer.close()
        phone.quit()
