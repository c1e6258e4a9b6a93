"""The game report in the pygame window (issue #73, point 7): R (or the Report button) in a review judges every move
in the background, as ``plyground analyse`` does; then the panel shows each side's accuracy and ?!/?/?? counts, the
move list the marks and best moves, and the evaluation graph, whose points a click goes to.  Real pygame events
(SDL dummy driver), a game written by ``plyground match --save`` with a fixed seed, a depth-1 judge."""
from __future__ import annotations

from pathlib import Path

import pygame
import pytest

from plyground.protocols import Budget
from plyground.play.review import open_review
from plyground.plugins.pygame_gui.game_screen import GameScreen
from plyground.screen.report import GRAPH_DARK, GRAPH_LIGHT

from renderer_helpers import saved_random_match

#: The judge of these tests: the default judge's engine, one ply deep (seconds at most).
JUDGE = "alphabeta:contempt=0,depth=1"


@pytest.fixture(scope="module")
def random_game(tmp_path_factory) -> Path:
    """games.pdn: one finished checkers game of two random players (seed 1), as ``plyground match --save`` writes."""
    return saved_random_match(tmp_path_factory.mktemp("window-report"), "games.pdn", seed=1)


@pytest.fixture
def tiny_judge(monkeypatch):
    monkeypatch.setattr(GameScreen, "REPORT_JUDGE", JUDGE)
    monkeypatch.setattr(GameScreen, "REPORT_BUDGET", Budget())


def test_the_report_of_a_reviewed_game_in_the_window(make_renderer, registry, random_game, tiny_judge):
    game = registry.make_game("checkers")
    review = open_review(game, random_game)
    renderer, d = make_renderer()
    renderer.open_review(review, lambda state: None)
    d.frames(1)
    screen = renderer.game_screen
    assert screen.buttons["report"] in screen._visible_buttons() and screen.buttons["report"].enabled
    d.key(pygame.K_r)
    assert screen.report_progress is not None or screen.report is not None
    d.until(lambda: screen.report is not None, what="the game report")
    d.frames(1)
    report = screen.report
    assert report.engine.startswith("alphabeta") and len(report.moves) == review.plies
    assert not screen.buttons["report"].enabled                  # made once for this game

    # The panel: each side's accuracy and counts, as the report has them.
    view = screen.report_view()
    assert view["title"] == f"Report by {report.engine}"
    for side, line in enumerate(view["lines"]):
        assert line.startswith(f"{game.side_names[side]}: accuracy {report.accuracy(side):.1f}%")
        assert f"{report.count(side, 'blunder')} ??" in line and f"{report.count(side, 'inaccuracy')} ?!" in line

    # The move list: each judged move with its mark and the best move (random players blunder).
    judged = [m for m in report.moves if m.judgement]
    assert judged
    texts = {ply: text for _, pair in screen.move_lines() for ply, text in filter(None, pair)}
    for m in report.moves:
        assert texts[m.ply + 1] == (f"{m.move}{m.mark} ({m.best})" if m.judgement else m.move)

    # The graph, drawn in the panel; a click on a point shows that ply.
    graph = screen.graph_rect
    assert graph.width > 100 and graph.height >= 24
    colours = {d.pixel((x, y)) for x in range(graph.left + 2, graph.right - 2, 7)
               for y in range(graph.top + 2, graph.bottom - 2, 5)}
    assert GRAPH_LIGHT in colours and GRAPH_DARK in colours
    plies = review.plies
    for ply in (plies // 3, judged[0].ply + 1, 0):
        d.click((round(graph.left + ply * graph.width / plies), graph.centery))
        assert screen.review.ply == ply


def test_leaving_a_finished_game_stops_its_report(make_renderer, registry, monkeypatch):
    """Menu/Close on a finished game whose report is being made: the report's thread stops at the next move it
    would judge (it used to judge the whole game for a screen nobody sees, its engine open until the end)."""
    import threading

    from plyground.play.session import GameSession
    monkeypatch.setattr(GameScreen, "REPORT_JUDGE", "alphabeta:contempt=0,depth=12")   # many seconds a game
    monkeypatch.setattr(GameScreen, "REPORT_BUDGET", Budget())
    renderer, d = make_renderer()
    game = registry.make_game("checkers")
    players = [registry.make_player("random:seed=1", game), registry.make_player("random:seed=2", game)]
    renderer.start_game(GameSession(game, players, ("random:seed=1", "random:seed=2")), from_menu=False)
    screen = renderer.game_screen
    d.until(lambda: screen.over and screen.record is not None, what="the end of the random game")
    d.frames(1)
    assert screen.buttons["report"] in screen._visible_buttons() and screen.buttons["report"].enabled
    d.key(pygame.K_r)
    assert screen.report_progress is not None
    d.click(screen.buttons["leave"].rect.center)
    d.until(lambda: not any(t.name == "plyground-report" for t in threading.enumerate()),
            what="the report's thread to stop", timeout=60)
    assert not any(message[0] == "report" for message in screen.link.messages())
