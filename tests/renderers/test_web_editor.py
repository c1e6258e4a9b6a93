"""The position editor on the web page (issue #73 point 8): Set up position on the start page, pieces put by
clicks on the board (a right click empties a square), the side to move, then Play or Analyse.  The server's side is
driven by the page's own messages (checked as the server checks them, then acted on: the start page served by
``plyground play --renderer web``); one test clicks through it in headless Chromium."""
from __future__ import annotations

import importlib.util
import json
import threading

import chess
import pytest

from plyground.plugins.web.browser import PageDriver as Page, until
from plyground.plugins.web.messages import BadMessage, Refused, check

from test_web_safety import StartPage

pytest.importorskip("aiohttp", reason="the web renderer needs aiohttp: pip install 'plyground[web]'")

#: The chess setup the tests make: kings on e1 and e8, a rook on h1 (castling king's side allowed), Black to move.
ROOK_ENDING = "4k3/8/8/8/8/8/8/4K2R b K - 0 1"


def _send(renderer, message: dict) -> None:
    """``message`` as the page sends it: checked as the server checks it, then acted on."""
    renderer.act(check(json.dumps(message)))


def _refusal(renderer, message: dict) -> str:
    """The reason ``message`` is refused (a failed check, or the renderer's Refused)."""
    with pytest.raises((BadMessage, Refused)) as refused:
        _send(renderer, message)
    return str(refused.value)


def _set_up(renderer, game: str, players=("human", "human"), position: str = "") -> dict:
    """Set up position on the start page; the editor's first picture."""
    _send(renderer, {"type": "setup", "game": game, "players": list(players), "clock": "no clock",
                     "position": position})
    return renderer.snapshot()


def _press(renderer, cell, button: int = 0) -> dict:
    """A click on ``cell`` of the board being set up (button 2: a right click), at the point of the page's picture
    where the editor's view draws it; the editor's picture after it."""
    with renderer.lock:
        x, y = renderer.editor.view.cell_center(cell)
    _send(renderer, {"type": "press", "x": x, "y": y, "button": button})
    return renderer.snapshot()


def _square_cell(renderer, square: int):
    """The cell of the editor's board where the game's ``square`` is drawn."""
    with renderer.lock:
        return renderer.editor.view.square_cell(square)


def _chess_cell(renderer, name: str):
    return _square_cell(renderer, chess.parse_square(name))


def test_set_up_position_opens_the_editor_on_the_start_position_given(save_dir):
    with StartPage(save_dir) as served:
        renderer = served.renderer
        shown = _set_up(renderer, "chess", position=" " + ROOK_ENDING + " ")
        assert shown["type"] == "editor" and shown["game"] == "Chess"
        assert shown["text"] == ROOK_ENDING and shown["side"] == 1 and shown["sides"] == ["White", "Black"]
        assert shown["can_play"] and not shown["problem"]
        assert shown["board"].startswith("<svg")
        palette = [(piece["symbol"], piece["name"], piece["chosen"]) for piece in shown["pieces"]]
        assert palette[0] == ("K", "White king", True) and palette[-1][0] == ""        # the eraser last
        assert [symbol for symbol, *_ in palette[:-1]] == list("KQRBNPkqrbnp")
        assert all(piece["svg"].startswith("<svg") for piece in shown["pieces"])
        assert [b["name"] for b in shown["buttons"]] == ["clear", "initial", "flip", "play", "analyse", "menu"]
        # The start page's own messages wait until Menu goes back to it.
        assert "position editor is shown" in _refusal(renderer, {"type": "start", "game": "chess",
                                                                 "players": ["human", "human"]})
        _send(renderer, {"type": "button", "name": "initial"})
        assert renderer.snapshot()["text"] == chess.STARTING_FEN
        _send(renderer, {"type": "button", "name": "menu"})
        assert renderer.snapshot()["type"] == "menu" and renderer.editor is None
        # A Start position that cannot be read: the usual start, and the status says why.
        shown = _set_up(renderer, "checkers", position="no such position")
        assert shown["text"] == served.registry.make_game("checkers").new_initial_state().to_text()
        assert shown["problem"] and shown["status"].startswith("The Start position could not be read (bad FEN")
        assert served.registry.built == []            # nothing was built: the players are built by Play


def test_clicks_put_pieces_take_them_away_and_are_refused_with_the_reason(save_dir):
    with StartPage(save_dir) as served:
        renderer = served.renderer
        _set_up(renderer, "chess")
        _send(renderer, {"type": "button", "name": "clear"})
        shown = renderer.snapshot()
        assert shown["problem"] and not shown["can_play"] and "White has no king" in shown["status"]
        assert {b["name"]: b["enabled"] for b in shown["buttons"]} == {
            "clear": True, "initial": True, "flip": True, "play": False, "analyse": False, "menu": True}
        _press(renderer, _chess_cell(renderer, "e1"))                      # the White king, chosen at first
        _send(renderer, {"type": "piece", "symbol": "k"})
        _press(renderer, _chess_cell(renderer, "e8"))
        _send(renderer, {"type": "piece", "symbol": "R"})
        assert [p["symbol"] for p in renderer.snapshot()["pieces"] if p["chosen"]] == ["R"]
        _press(renderer, _chess_cell(renderer, "a1"))
        _press(renderer, _chess_cell(renderer, "h1"))
        assert renderer.snapshot()["text"] == "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1"
        shown = _press(renderer, _chess_cell(renderer, "a1"), button=2)     # a right click empties a square
        assert shown["text"] == "4k3/8/8/8/8/8/8/4K2R w K - 0 1"
        _press(renderer, _chess_cell(renderer, "d4"))
        shown = _press(renderer, _chess_cell(renderer, "d4"))               # the same piece again: taken away
        assert shown["text"] == "4k3/8/8/8/8/8/8/4K2R w K - 0 1"
        _send(renderer, {"type": "piece", "symbol": ""})                  # the eraser
        shown = _press(renderer, _chess_cell(renderer, "h1"))
        assert shown["text"] == "4k3/8/8/8/8/8/8/4K3 w - - 0 1" and shown["status"] == "Click a square to empty it."
        # Refused squares leave the board as it was, the status saying why.
        _send(renderer, {"type": "piece", "symbol": "P"})
        shown = _press(renderer, _chess_cell(renderer, "b8"))
        assert shown["problem"] and shown["status"] == "Pawns never stand on the first or the last rank."
        assert shown["text"] == "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
        _send(renderer, {"type": "piece", "symbol": "K"})
        shown = _press(renderer, _chess_cell(renderer, "a5"))
        assert shown["status"] == "White king is on the board already: a side has one king."
        shown = _press(renderer, (99, 99))                               # off the board: nothing happens
        assert not shown["problem"] and shown["text"] == "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
        # The side to move.
        _send(renderer, {"type": "side", "side": 1})
        shown = renderer.snapshot()
        assert shown["side"] == 1 and shown["text"] == "4k3/8/8/8/8/8/8/4K3 b - - 0 1"
        # Flip: the board drawn the other way round, a click still reaches the square under it.
        _send(renderer, {"type": "button", "name": "flip"})
        with renderer.lock:
            assert renderer.editor.view.flipped
        _send(renderer, {"type": "piece", "symbol": "q"})
        assert _press(renderer, _chess_cell(renderer, "d8"))["text"] == "3qk3/8/8/8/8/8/8/4K3 b - - 0 1"

        # Checkers: the light squares and a thirteenth man refused.
        _send(renderer, {"type": "button", "name": "menu"})
        _set_up(renderer, "checkers")
        shown = _press(renderer, (0, 0))
        assert shown["status"] == "Pieces stand on the dark squares only."
        shown = _press(renderer, _square_cell(renderer, 14))       # 15, empty at the start; Black's man, chosen first
        assert shown["status"] == "Black has 12 pieces already: a side has at most 12."


def test_play_starts_the_players_chosen_from_the_position_set_up(save_dir):
    with StartPage(save_dir) as served:
        renderer = served.renderer
        _set_up(renderer, "checkers", players=("human", "random"))
        _send(renderer, {"type": "piece", "symbol": "B"})
        _press(renderer, _square_cell(renderer, 8))               # 9: a king where a man of Black's stood
        _press(renderer, _square_cell(renderer, 9), button=2)     # 10: Black's man taken away
        setup = renderer.snapshot()["text"]
        assert "K9" in setup and ",10," not in setup
        _send(renderer, {"type": "button", "name": "play"})
        assert renderer.editor is None
        until(lambda: renderer.snapshot()["type"] == "game" and renderer.screen.state is not None,
              "the game from the setup")        # (a picture taken reads what the game's thread said)
        with renderer.lock:
            assert renderer.screen.state.to_text() == renderer.screen.game.new_state(setup).to_text()
            assert renderer.screen.names == ("human", "random") and renderer.screen.from_menu
        assert served.registry.built == ["human", "random"]


def test_analyse_opens_a_review_of_the_position_with_its_analysis_running(save_dir):
    with StartPage(save_dir) as served:
        renderer = served.renderer
        _set_up(renderer, "checkers", players=("human", "alphabeta:depth=2"))
        _send(renderer, {"type": "button", "name": "clear"})
        _send(renderer, {"type": "piece", "symbol": "W"})
        _press(renderer, _square_cell(renderer, 0))
        _send(renderer, {"type": "piece", "symbol": "b"})
        _press(renderer, _square_cell(renderer, 17))
        _press(renderer, _square_cell(renderer, 26))
        setup = renderer.snapshot()["text"]
        assert setup == "B:WK1:B18,27"
        _send(renderer, {"type": "button", "name": "analyse"})
        with renderer.lock:
            screen = renderer.screen
            assert renderer.editor is None and screen.reviewing and screen.analysing and screen.from_menu
            assert screen.review.record.start == setup and screen.review.record.moves == []
            assert screen.names == ("human", "alphabeta:depth=2")
            assert screen.shown_state.to_text() == setup
        until(lambda: renderer.snapshot()["analysis"] is not None and renderer.snapshot()["analysis"]["lines"],
              "the analysis on the page")
        # Menu goes back to the start page, and the analysis stops.
        _send(renderer, {"type": "button", "name": "leave"})
        assert renderer.screen is None and renderer.snapshot()["type"] == "menu"
        until(lambda: not any(t.name == "plyground-hint" for t in threading.enumerate()), "the analysis stopped")


def test_an_impossible_setup_is_neither_played_nor_analysed_and_the_reason_is_named(save_dir):
    with StartPage(save_dir) as served:
        renderer = served.renderer
        _set_up(renderer, "chess")
        _send(renderer, {"type": "button", "name": "clear"})
        for name in ("e1", "e8"):
            _send(renderer, {"type": "piece", "symbol": "K" if name == "e1" else "k"})
            _press(renderer, _chess_cell(renderer, name))
        _send(renderer, {"type": "piece", "symbol": "Q"})
        _press(renderer, _chess_cell(renderer, "e7"))                  # Black, in check, is not to move
        shown = renderer.snapshot()
        assert shown["problem"] and not shown["can_play"] and "impossible chess position" in shown["status"]
        for name in ("play", "analyse"):
            reason = _refusal(renderer, {"type": "button", "name": name})
            assert reason.startswith("this position cannot be played: impossible chess position") and "check" in reason
        assert renderer.editor is not None and renderer.screen is None and served.registry.built == []
        _send(renderer, {"type": "side", "side": 1})
        assert renderer.snapshot()["can_play"]


def test_bad_editor_messages_are_refused_with_their_reason(save_dir, tmp_path):
    with StartPage(save_dir) as served:
        renderer = served.renderer
        # Before the editor is shown, and what Set up position refuses.
        assert "position editor is not shown" in _refusal(renderer, {"type": "piece", "symbol": "K"})
        assert "position editor is not shown" in _refusal(renderer, {"type": "side", "side": 0})
        assert "tictactoe has no position editor" in _refusal(
            renderer, {"type": "setup", "game": "tictactoe", "players": ["human", "human"]})
        assert "no game 'go'" in _refusal(renderer, {"type": "setup", "game": "go", "players": ["human", "human"]})
        assert "list of two player specs" in _refusal(renderer, {"type": "setup", "game": "chess",
                                                                 "players": ["human"]})
        assert "no clock 'forever'" in _refusal(renderer, {"type": "setup", "game": "chess", "clock": "forever",
                                                           "players": ["human", "human"]})
        program = f"alphabeta:eval={tmp_path / 'secret.npz'}"
        assert _refusal(renderer, {"type": "setup", "game": "chess", "players": ["human", program]}).startswith(
            "Black's player")
        assert renderer.editor is None and served.registry.built == []
        # In the editor.
        _set_up(renderer, "chess")
        before = renderer.snapshot()
        for message, words in [
            ({"type": "piece", "symbol": "Z"}, "no piece 'Z' to set up in chess; the pieces are K, Q, R"),
            ({"type": "piece", "symbol": 5}, "piece.symbol must be text"),
            ({"type": "piece", "symbol": "K" * 21}, "at most 20"),
            ({"type": "piece"}, "needs its 'symbol' field"),
            ({"type": "side", "side": 5}, "side.side must be a whole number from 0 to 1, not 5"),
            ({"type": "side", "side": "1"}, "side.side must be a whole number from 0 to 1"),
            ({"type": "side", "side": True}, "side.side must be a whole number from 0 to 1"),
            ({"type": "side", "side": 0, "cell": 3}, "has no field 'cell'"),
            ({"type": "press", "x": "e4", "y": 1}, "press.x must be a number"),
            ({"type": "press", "x": 1, "y": 1, "button": 3}, "press.button must be a whole number from 0 to 2"),
            ({"type": "button", "name": "explode"}, "no 'explode' button in the position editor; its buttons are "
                                                    "clear, initial, flip, play, analyse, menu"),
            ({"type": "button", "name": ["play"]}, "button.name must be text"),
            ({"type": "key", "key": "U"}, "the position editor is shown"),
            ({"type": "open", "game": "chess", "file": "/etc/passwd"}, "the position editor is shown"),
        ]:
            assert words in _refusal(renderer, message), message
        assert renderer.snapshot() == before


# ---------------------------------------------------------------- in the browser

def _editor_click(page, renderer, cell, *, right: bool = False) -> None:
    """A real click (``right``: a right click) on ``cell`` of the editor's board, at the screen point where the
    editor's view draws its centre."""
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.mouse_button import MouseButton
    with renderer.lock:
        x, y = renderer.editor.view.cell_center(cell)
    px, py = page.script("const svg = document.querySelector('#editor-board svg'); const p = svg.createSVGPoint();"
                         "p.x = arguments[0]; p.y = arguments[1]; const q = p.matrixTransform(svg.getScreenCTM());"
                         "return [q.x, q.y];", x, y)
    actions = ActionBuilder(page.driver)
    actions.pointer_action.move_to_location(int(px), int(py))
    actions.pointer_action.click(button=MouseButton.RIGHT if right else MouseButton.LEFT)
    actions.perform()


def _click_in(page, selector: str, what: str) -> None:
    """Click the element ``selector`` once it is there and enabled (found and clicked in one step: the page
    redraws the editor's panel with every picture)."""
    until(lambda: page.script("const b = document.querySelector(arguments[0]);"
                              "if (!b || b.disabled) return false; b.click(); return true;", selector), what)


@pytest.mark.skipif(importlib.util.find_spec("selenium") is None,
                    reason="the browser tests need selenium (the dev extra)")
def test_the_editor_in_the_browser_sets_up_a_position_and_plays_it(browser, save_dir):
    from selenium.webdriver.support.ui import Select
    with StartPage(save_dir) as served:
        renderer = served.renderer
        page = Page(browser, renderer).open()
        fen = "return document.getElementById('editor-text').value;"
        until(lambda: page.script("return !document.getElementById('menu').hidden;"), "the start page")
        Select(browser.find_element("id", "menu-game")).select_by_value("tictactoe")
        assert page.script("return document.getElementById('menu-setup').hidden;")   # no setup pieces
        Select(browser.find_element("id", "menu-game")).select_by_value("chess")
        until(lambda: page.script("return document.getElementById('menu-player-1').options.length > 1;"),
              "chess's players")
        Select(browser.find_element("id", "menu-player-1")).select_by_value("human")
        browser.find_element("id", "menu-setup").click()
        until(lambda: page.script("return !document.getElementById('editor').hidden;"), "the position editor")
        assert page.text("editor-title") == "Chess: set up a position"
        assert page.script(fen) == chess.STARTING_FEN

        _click_in(page, '#editor-buttons button[data-name="clear"]', "Clear board")
        until(lambda: page.script(fen) == "8/8/8/8/8/8/8/8 w - - 0 1", "the board cleared")
        assert "White has no king" in page.text("editor-status")
        assert page.script("return document.getElementById('editor-status').className;") == "message error"
        assert page.script("return document.querySelector('#editor-buttons [data-name=\"play\"]').disabled;")
        for symbol, squares in (("K", ["e1"]), ("k", ["e8"]), ("R", ["a1", "h1"])):
            _click_in(page, f'#palette button[data-symbol="{symbol}"]', f"the palette's {symbol}")
            until(lambda: page.script("return document.querySelector('#palette .chosen').dataset.symbol;") == symbol,
                  f"{symbol} marked chosen")
            for square in squares:
                _editor_click(page, renderer, _chess_cell(renderer, square))
        until(lambda: page.script(fen) == "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", "the pieces put")
        _editor_click(page, renderer, _chess_cell(renderer, "a1"), right=True)
        until(lambda: page.script(fen) == "4k3/8/8/8/8/8/8/4K2R w K - 0 1", "the rook on a1 taken away")
        Select(browser.find_element("id", "editor-side")).select_by_visible_text("Black")
        until(lambda: page.script(fen) == ROOK_ENDING, "Black to move")
        assert page.script("return document.getElementById('editor-status').className;") == "message info"

        _click_in(page, '#editor-buttons button[data-name="play"]', "Play")
        until(lambda: page.script("return !document.getElementById('game').hidden;") and renderer.screen is not None
              and renderer.screen.state is not None, "the game from the position set up")
        with renderer.lock:
            assert renderer.screen.state.to_text() == ROOK_ENDING
            assert renderer.screen.names == ("human", "human")
        assert page.text("game-title") == "Chess" and page.moves() == []
        until(lambda: "Black" in page.text("status"), "Black to move on the page")


def test_play_from_here_plays_the_reviewed_game_whatever_was_chosen_before(save_dir):
    """Play from here starts a game of the game reviewed: after a chess set-up, a checkers file opened from the start
    page plays on as checkers (it was started as chess, and refused: a checkers position is no chess FEN)."""
    from plyground.protocols import GameRecord
    from plyground.registry import get_registry
    checkers = get_registry().make_game("checkers")
    record = GameRecord(game="checkers", players=("human", "human"), start=checkers.new_initial_state().to_text(),
                        moves=["11-15", "23-19"], finished=False)
    (save_dir / "two-moves.pdn").write_text(checkers.format_records([record]))
    with StartPage(save_dir) as served:
        renderer = served.renderer
        _set_up(renderer, "chess")
        _send(renderer, {"type": "button", "name": "menu"})
        renderer.menu.refresh()
        _send(renderer, {"type": "open", "game": "checkers", "file": "two-moves.pdn"})
        with renderer.lock:
            assert renderer.screen.reviewing and renderer.screen.game.name == "checkers"
        _send(renderer, {"type": "key", "key": "End"})
        _send(renderer, {"type": "key", "key": "P"})
        until(lambda: renderer.snapshot()["type"] == "game" and not renderer.screen.reviewing
              and renderer.screen.state is not None, "the new game")
        with renderer.lock:
            screen = renderer.screen
            assert screen.game.name == "checkers" and not renderer.menu.error
            assert screen.state.to_text() == record_end(checkers, record)


def record_end(game, record) -> str:
    state = game.new_state(record.start)
    for move in record.moves:
        state.apply(state.parse_move(move))
    return state.to_text()
