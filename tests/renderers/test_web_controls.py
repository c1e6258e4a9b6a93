"""The page's controls every board has (issue #73 point 8), driven in headless Chromium: Download game (the game so
far as its record, PGN for chess), Copy position (the position as ``--fen`` takes it: the clipboard, else the text
selected in a box).  Skipped with one line where Chromium is not installed."""
from __future__ import annotations

import pytest

from plyground.capabilities import record_reader
from plyground.play.resume import game_so_far, load_unfinished

from plyground.plugins.web.browser import until
from web_helpers import game_page, make_web_renderer

pytest.importorskip("aiohttp", reason="the web renderer needs aiohttp: pip install 'plyground[web]'")
pytest.importorskip("selenium", reason="the browser tests need selenium (the dev extra)")

AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def _play_by_clicks(renderer, page, moves: list[str]) -> None:
    """Play ``moves`` (chess SAN, people at one board) by clicking each move's squares on the page."""
    until(page.board_svg, "the board on the page")
    for text in moves:
        n = len(page.moves())
        with renderer.lock:
            state = renderer.screen.state
            move = state.parse_move(text)
            view = renderer.screen.view
            cells = view.square_cell(move.from_square), view.square_cell(move.to_square)
        until(lambda: renderer.screen.input is not None, f"the turn for {text}")
        page.click_cell(cells[0])
        page.click_cell(cells[1])
        until(lambda: len(page.moves()) == n + 1, f"{text} on the page")


def _e4(renderer, page) -> None:
    """Two people at one board (no bot: nothing left to chance): White plays e2-e4 by two clicks."""
    _play_by_clicks(renderer, page, ["e4"])
    assert page.moves() == ["e4"]


def _origin(renderer) -> str:
    return renderer.url.split("/?token=")[0]


def test_download_game_saves_the_game_so_far_as_pgn(browser, save_dir, tmp_path):
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    browser.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    with game_page(browser, save_dir, "chess", ("human", "human")) as (renderer, served, page):
        _e4(renderer, page)
        until(lambda: page.script("return document.getElementById('download-game').textContent;")
              == "Download game (PGN)", "the Download game (PGN) button")
        page.script("document.getElementById('download-game').click();")
        saved = until(lambda: [p for p in downloads.iterdir() if p.suffix == ".pgn"], "the downloaded file")
        assert saved[0].name.startswith("chess-")
        text = saved[0].read_text()
        with renderer.lock:
            expected = served.game.format_records([game_so_far(renderer.screen.live_record, saved=False)])
        assert text == expected
        assert '[Result "*"]' in text and "\n1. e4 " in text
        assert [list(r.moves) for r in record_reader(served.game)(text)] == [["e4"]]    # --resume reads it back
        assert "Downloaded as " in page.text("tools-note")
        page.button("leave")
        served.finish()


def test_copy_position_puts_the_fen_on_the_clipboard(browser, save_dir):
    with game_page(browser, save_dir, "chess", ("human", "human")) as (renderer, served, page):
        browser.execute_cdp_cmd("Browser.grantPermissions", {
            "origin": _origin(renderer), "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        _e4(renderer, page)
        assert page.script("return document.getElementById('copy-position').textContent;") == "Copy position (FEN)"
        page.script("document.getElementById('copy-position').click();")
        until(lambda: "copied" in page.text("tools-note"), "the position copied")
        copied = browser.execute_async_script(
            "const done = arguments[0]; navigator.clipboard.readText().then(done, (e) => done('refused: ' + e));")
        assert copied == AFTER_E4
        assert served.game.new_state(copied).to_text() == AFTER_E4      # what --fen takes
        page.button("leave")
        served.finish()


def test_copy_position_without_the_clipboard_selects_the_text(browser, save_dir):
    with game_page(browser, save_dir, "chess", ("human", "human")) as (renderer, served, page):
        _e4(renderer, page)
        page.script("Object.defineProperty(navigator, 'clipboard', {value: undefined, configurable: true});"
                    "document.getElementById('copy-position').click();")
        until(lambda: "selected" in page.text("tools-note"), "the position selected")
        box = page.script("const b = document.getElementById('position-text');"
                          "return [b.hidden, b.value, b.value.substring(b.selectionStart, b.selectionEnd)];")
        assert box == [False, AFTER_E4, AFTER_E4]
        page.button("leave")
        served.finish()


def test_new_game_keeps_the_game_going_on_and_starts_again(browser, save_dir):
    """New game on a game begun as ``plyground play`` begins it: the game so far kept (as leaving keeps it), a new
    one with the same players; the command's record is the new game's."""
    with game_page(browser, save_dir, "chess", ("human", "human")) as (renderer, served, page):
        _e4(renderer, page)
        with renderer.lock:
            first, players = renderer.screen, [id(p) for p in renderer.game_thread.session.players]
        page.button("new")
        until(lambda: page.moves() == [] and "saved in" in page.text("message"), "the new game, the old one kept")
        with renderer.lock:
            assert renderer.screen is not first and renderer.screen.names == ("human", "human")
            assert [id(p) for p in renderer.game_thread.session.players] == players
        kept = load_unfinished(served.game, renderer.saved_game_path(served.game))
        assert list(kept.moves) == ["e4"]
        _play_by_clicks(renderer, page, ["d4"])
        page.button("leave")
        served.finish()
        assert list(served.record.moves) == ["d4"]


def test_offer_draw_to_a_bot_in_an_even_position_ends_the_game_as_a_draw(browser, save_dir):
    with game_page(browser, save_dir, "checkers", ("human", "alphabeta:depth=4")) as (renderer, served, page):
        until(lambda: renderer.screen.input is not None and page.board_svg(), "the person's turn on the page")
        with renderer.lock:
            view = renderer.screen.view
            cells = view.square_cell(10), view.square_cell(14)       # 11-15
        page.click_cell(cells[0])
        page.click_cell(cells[1])
        until(lambda: len(page.moves()) == 2 and renderer.screen.input is not None, "the bot's answer")
        page.button("offer_draw")
        until(lambda: "draw by agreement" in page.text("message"), "the draw agreed")
        page.button("leave")
        served.finish()
        assert served.record.returns == (0.0, 0.0) and served.record.reason == "draw by agreement"
        assert served.record.finished and len(served.record.moves) == 2


def test_claim_draw_after_a_threefold_repetition_ends_the_game(browser, save_dir):
    """Chess where the game leaves the threefold claim to the players (repetitions=0): the knights go out and back
    twice, the third time the start position stands Claim draw takes the place of Offer draw, and claiming ends
    the game."""
    with game_page(browser, save_dir, "chess:repetitions=0", ("human", "human")) as (renderer, served, page):
        shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"]
        _play_by_clicks(renderer, page, shuffle)
        names = page.script("return [...document.querySelectorAll('#buttons button')].map(b => b.dataset.name);")
        assert "offer_draw" in names and "claim_draw" not in names      # twice: nothing to claim yet
        _play_by_clicks(renderer, page, shuffle)
        page.button("claim_draw")
        until(lambda: "draw claimed: threefold repetition" in page.text("message"), "the claim")
        page.button("leave")
        served.finish()
        assert served.record.returns == (0.0, 0.0)
        assert served.record.reason == "draw claimed: threefold repetition"
        assert len(served.record.moves) == 8


def test_a_game_a_match_shows_offers_no_new_game_and_no_draw(save_dir):
    """A game the page only shows (``plyground match --renderer web`` calls start/show/ask_move) belongs to the
    match: New game and the draw offer are not offered, and a page asking for them is refused in one line."""
    from plyground.plugins.web.messages import Refused
    from plyground.registry import get_registry
    renderer = make_web_renderer(save_dir)
    game = get_registry().make_game("checkers")
    try:
        renderer.start(game, game.new_initial_state(), ["human", "human"])
        with renderer.lock:
            shown = {name for name, button in renderer.screen.buttons.items()
                     if button in renderer.screen._visible_buttons()}
        assert {"new", "offer_draw"}.isdisjoint(shown) and "resign" in shown, shown
        with pytest.raises(Refused, match="no 'new' button now"):
            renderer.act({"type": "button", "name": "new"})
    finally:
        renderer.close()
