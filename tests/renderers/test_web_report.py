"""The game report on the web page (issue #73, point 7), in headless Chromium: Report in a review of a recorded game
judges every move on the server (the screen's own report: the judge is chosen there, nothing from the page names
one); the page then shows each side's accuracy, the marks and best moves in the move list, and the evaluation graph
as SVG, where a real click on a point goes to that ply.  A fixed-seed random game, a depth-1 judge."""
from __future__ import annotations

import threading

import pytest

from plyground.protocols import Budget
from plyground.registry import get_registry
from plyground.play.review import open_review
from plyground.plugins.web.browser import PageDriver as Page, until
from plyground.screen.game import GameScreenModel as GameScreen
from web_helpers import make_web_renderer

from test_pygame_report import JUDGE, random_game  # noqa: F401 - the fixture: a recorded random game

pytest.importorskip("aiohttp", reason="the web renderer needs aiohttp: pip install 'plyground[web]'")
pytest.importorskip("selenium", reason="the browser tests need selenium (the dev extra)")

SHOWN = "const m = document.querySelector('#moves .move.shown'); return m ? Number(m.dataset.ply) : 0;"


def test_the_report_of_a_reviewed_game_on_the_page(browser, save_dir, random_game, monkeypatch):  # noqa: F811
    from selenium.webdriver.common.actions.action_builder import ActionBuilder

    monkeypatch.setattr(GameScreen, "REPORT_JUDGE", JUDGE)
    monkeypatch.setattr(GameScreen, "REPORT_BUDGET", Budget())
    checkers = get_registry().make_game("checkers")
    review = open_review(checkers, random_game)
    renderer = make_web_renderer(save_dir)
    thread = threading.Thread(target=lambda: renderer.review(review, lambda s: None), daemon=True)
    thread.start()
    page = Page(browser, renderer)
    until(lambda: renderer.screen is not None, "the review's screen")
    page.open()
    try:
        until(lambda: page.text("status").startswith("Game 1 of 1"), "the review on the page")
        assert page.script("return document.getElementById('report').hidden")
        page.button("report")
        until(lambda: page.text("report-title").startswith("Report by alphabeta"), "the report on the page", 60)
        with renderer.lock:
            report = renderer.screen.report
        lines = page.text("report-lines").split("\n")
        for side, line in enumerate(lines):
            assert line.startswith(f"{checkers.side_names[side]}: accuracy {report.accuracy(side):.1f}%")
        # The move list: marks and best moves.
        moves = page.moves()
        assert moves == [f"{m.move}{m.mark} ({m.best})" if m.judgement else m.move for m in report.moves]
        assert any("?" in text for text in moves)
        # The graph, as SVG; a real click on a point's x goes to that ply.
        assert page.script("return document.querySelector('#report-graph svg polygon') !== null")
        plies = review.plies
        for ply in (plies // 2, plies // 4):
            left, top, width, height = page.script(
                "const g = document.querySelector('#report-graph svg'); g.scrollIntoView({block: 'center'});"
                "const r = g.getBoundingClientRect(); return [r.left, r.top, r.width, r.height];")
            actions = ActionBuilder(browser)
            actions.pointer_action.move_to_location(int(left + width * ply / plies + 0.5), int(top + height / 2))
            actions.pointer_action.click()
            actions.perform()
            until(lambda: page.script(SHOWN) == ply, f"ply {ply} shown after a click on the graph")
            with renderer.lock:
                assert renderer.screen.review.ply == ply
    finally:
        renderer.close()
        thread.join(10)
