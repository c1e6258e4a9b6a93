"""The page's controls every board has (issue #73 point 8), driven in headless Chromium: Download game (the game so
far as its record, PGN for chess), Copy position (the position as ``--fen`` takes it: the clipboard, else the text
selected in a box).  Skipped with one line where Chromium is not installed."""
from __future__ import annotations

import pytest

from plyground.recordio import record_reader
from plyground.resume import game_so_far, load_unfinished

from plyground.plugins.web.browser import PageDriver as Page, until
from web_helpers import ServedGame, make_web_renderer

pytest.importorskip("aiohttp", reason="the web renderer needs aiohttp: pip install 'plyground[web]'")
pytest.importorskip("selenium", reason="the browser tests need selenium (the dev extra)")

AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def _e4(renderer, page) -> None:
    """Two people at one board (no bot: nothing left to chance): White plays e2-e4 by two clicks."""
    until(lambda: "Your move" in page.text("status") or "to move" in page.text("status"), "the first move asked")
    with renderer.lock:
        view = renderer.screen.view
        e2, e4 = view.square_cell(12), view.square_cell(28)
    page.click_cell(e2)
    page.click_cell(e4)
    until(lambda: page.moves() == ["e4"], "e4 on the page")


def _origin(renderer) -> str:
    return renderer.url.split("/?token=")[0]


def test_download_game_saves_the_game_so_far_as_pgn(browser, save_dir, tmp_path):
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    browser.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    renderer = make_web_renderer(save_dir, "chess")
    served = ServedGame(renderer, "chess", ("human", "human")).start()
    page = Page(browser, renderer).open()
    try:
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
    finally:
        renderer.close()


def test_copy_position_puts_the_fen_on_the_clipboard(browser, save_dir):
    renderer = make_web_renderer(save_dir, "chess")
    served = ServedGame(renderer, "chess", ("human", "human")).start()
    page = Page(browser, renderer).open()
    try:
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
    finally:
        renderer.close()


def test_copy_position_without_the_clipboard_selects_the_text(browser, save_dir):
    renderer = make_web_renderer(save_dir, "chess")
    served = ServedGame(renderer, "chess", ("human", "human")).start()
    page = Page(browser, renderer).open()
    try:
        _e4(renderer, page)
        page.script("Object.defineProperty(navigator, 'clipboard', {value: undefined, configurable: true});"
                    "document.getElementById('copy-position').click();")
        until(lambda: "selected" in page.text("tools-note"), "the position selected")
        box = page.script("const b = document.getElementById('position-text');"
                          "return [b.hidden, b.value, b.value.substring(b.selectionStart, b.selectionEnd)];")
        assert box == [False, AFTER_E4, AFTER_E4]
        page.button("leave")
        served.finish()
    finally:
        renderer.close()


def test_new_game_keeps_the_game_going_on_and_starts_again(browser, save_dir):
    """New game on a game begun as ``plyground play`` begins it: the game so far kept (as leaving keeps it), a new
    one with the same players; the command's record is the new game's."""
    renderer = make_web_renderer(save_dir, "chess")
    served = ServedGame(renderer, "chess", ("human", "human")).start()
    page = Page(browser, renderer).open()
    try:
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
        with renderer.lock:
            view = renderer.screen.view
            d2, d4 = view.square_cell(11), view.square_cell(27)
        page.click_cell(d2)
        page.click_cell(d4)
        until(lambda: page.moves() == ["d4"], "d4 in the new game")
        page.button("leave")
        served.finish()
        assert list(served.record.moves) == ["d4"]
    finally:
        renderer.close()
