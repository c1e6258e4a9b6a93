"""Live analysis in the window: a bot's search shown while it thinks (lines, evaluation bar, best-move arrow),
a hint cleared when the position changes, and infinite analysis of a reviewed position -- real pygame events
(SDL dummy driver), real searches."""
from __future__ import annotations

import re
import time

import pygame
import pytest

from plyground.play.review import open_review
from plyground.play.session import GameSession

from quiet_threads import assert_all_ended, threads_now
from renderer_helpers import saved_random_match, wait_turn


def _start(renderer, registry, game_name, specs):
    game = registry.make_game(game_name)
    players = [registry.make_player(spec, game) for spec in specs]
    renderer.start_game(GameSession(game, players, tuple(specs)), from_menu=False)
    return game, renderer.game_screen


def _play(driver, screen, move: str) -> None:
    """Click a checkers move such as ``11-15`` (squares numbered from 1, as PDN does)."""
    for square in re.split("[-x]", move):
        driver.click(screen.view.square_center(int(square) - 1))


def _best_and_line(lines: list[str]) -> tuple[str, str]:
    """The best move (so far) and the first move of the line, as the analysis view writes them."""
    best = next(line for line in lines if line.startswith(("best so far ", "best move "))).split()[-1]
    line = next(line for line in lines if line.startswith("line: "))
    return best, line.split()[1]


def _watch_think(d, screen, seconds_at_most: float = 30.0) -> list[tuple[float, str, tuple[str, ...]]]:
    """Frames until the bot has moved; every distinct analysis the view showed meanwhile, with its time."""
    seen, deadline = [], time.monotonic() + seconds_at_most
    d.until(lambda: screen.thinking is not None, what="the bot thinking")
    while screen.thinking is not None:
        assert time.monotonic() < deadline, "the bot did not move"
        d.frames(1)
        if screen.analysis is not None and (not seen or seen[-1][1:] != (screen.analysis[0],
                                                                         tuple(screen.analysis[1]))):
            title, lines = screen.analysis
            seen.append((time.monotonic(), title, tuple(lines)))
            if "thinking" in title:
                # while it thinks: the bar and the arrow of the best move so far, on the position searched
                best, first = _best_and_line(lines)
                assert best == first, lines                  # the shown best move and line agree
                assert screen.eval_bar_rect.height > 0
                assert screen.arrow_cells == screen.view.move_cells(screen.state, best) != []
        time.sleep(0.01)
    return seen


@pytest.mark.parametrize("bot", ["mcts:simulations=1000000000,seconds=3",
                                 "alphabeta:eval=learned,depth=60,seconds=3,book=none"])   # no book: it thinks
def test_the_analysis_view_follows_a_bot_as_it_thinks(make_renderer, registry, bot):
    game = registry.make_game("checkers")    # compile the search first: the think then searches all along
    registry.make_player(bot.split(":")[0], game).warm_up()      # a search (an opening book does not compile it)
    renderer, d = make_renderer()
    _, screen = _start(renderer, registry, "checkers", ["human", bot])
    wait_turn(d, screen)
    d.key(pygame.K_a)                                   # the analysis view, with its bar and arrow
    _play(d, screen, "9-13")
    seen = _watch_think(d, screen)
    live = [(t, lines) for t, title, lines in seen if title == f"{bot} thinking"]
    # the lines change during the one think: simulations, or depth after depth, and the time
    # Updated all along the think (four different pictures of it at least), not only at its end.
    assert len(live) >= 4, seen
    assert len({lines for _, lines in live}) >= 4
    wait_turn(d, screen)
    title, lines = screen.analysis                     # the move made: the bot's final analysis
    assert title == bot and any(line.startswith("best move ") for line in lines)
    assert screen.moves[1] == _best_and_line(lines)[0]
    d.frames(1)
    # that search was of the position before its move: no arrow now; its value still holds here: the bar stays
    assert screen.arrow_cells == [] and screen.eval_bar_rect.height > 0
    d.click(screen.buttons["leave"].rect.center)


def test_a_hint_is_drawn_on_the_board_and_cleared_by_a_take_back(make_renderer, registry):
    renderer, d = make_renderer()
    game, screen = _start(renderer, registry, "checkers",
                          ["human:hint=alphabeta,hint_seconds=0.5", "alphabeta:eval=learned,depth=2"])
    wait_turn(d, screen)
    _play(d, screen, "9-13")
    wait_turn(d, screen)
    d.key(pygame.K_h)
    d.until(lambda: not screen.hinting and screen.analysis is not None and screen.analysis[0].startswith("hint"),
            what="the hint")
    d.frames(1)
    best, first = _best_and_line(screen.analysis[1])
    assert best == first
    cells = screen.view.move_cells(screen.state, best)
    assert len(cells) >= 2 and screen.arrow_cells == cells and screen.eval_bar_rect.height > 0
    d.key(pygame.K_u)                                   # take back: the hint's position is gone
    wait_turn(d, screen)
    assert screen.moves == []
    d.frames(1)
    assert screen.analysis is None and screen.analysis_of is None and screen.arrow_cells == []
    assert screen.eval_bar_rect.height == 0
    d.click(screen.buttons["leave"].rect.center)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A finished random checkers game, written by ``plyground match --save``."""
    return saved_random_match(tmp_path_factory.mktemp("live-review"), "games.pdn", seed=3)


def test_infinite_analysis_follows_the_reviewed_position_until_stopped(make_renderer, registry, recorded):
    game = registry.make_game("checkers")
    review = open_review(game, recorded)
    renderer, d = make_renderer()
    hinter = registry.make_player("human:hint=mcts", game)
    hinter.renderer = renderer
    renderer.open_review(review, hinter.hint)
    screen = renderer.game_screen
    d.frames(1)
    # a ply whose position and the next have a choice of moves (a forced move is not searched)
    ply = next(p for p in range(2, review.plies - 1)
               if min(len(review.position(q).legal_moves()) for q in (p, p + 1)) > 1)
    for _ in range(ply):
        d.key(pygame.K_RIGHT)
    before = threads_now()
    d.key(pygame.K_i)                                   # analyse the position shown until stopped
    assert screen.analysing and screen.buttons["analyse"].label == "Stop analysis (I)"
    d.until(lambda: screen.analysis is not None and screen.analysis[0].startswith("analysis"),
            what="the analysis")
    shown = set()
    d.until(lambda: shown.add(tuple(screen.analysis[1])) or len(shown) >= 3, what="three updates")
    assert screen.analysis[0] == f"analysis from mcts at ply {ply}"
    assert screen.analysis_of[2] == review.position(ply).to_text()
    d.key(pygame.K_RIGHT)                               # it goes on with the next position
    d.until(lambda: screen.analysis[0] == f"analysis from mcts at ply {ply + 1}",
            what="the next position's analysis")
    assert screen.analysing and screen.analysis_of[2] == review.position(ply + 1).to_text()
    d.frames(1)
    best = _best_and_line(screen.analysis[1])[0]
    assert screen.arrow_cells == screen.view.move_cells(review.position(ply + 1), best) != []
    d.key(pygame.K_i)                                   # stopped: the search ends, its last findings stay
    assert not screen.analysing and not screen._hint_thread.is_alive()
    assert_all_ended(before, "the analysis")            # nothing searches any more
    assert screen.analysis[0] == f"analysis from mcts at ply {ply + 1}"
    d.click(screen.buttons["leave"].rect.center)


def test_infinite_analysis_of_your_position_in_a_game_then_your_move(make_renderer, registry):
    renderer, d = make_renderer()
    game, screen = _start(renderer, registry, "checkers", ["human:hint=mcts", "alphabeta:eval=learned,depth=2"])
    wait_turn(d, screen)
    position = screen.state.to_text()
    before = threads_now()
    d.key(pygame.K_i)                                   # analyse the position you are to move in
    assert screen.analysing and screen.input is None
    shown = set()
    d.until(lambda: screen.analysis is not None and screen.analysis[0] == "analysis from mcts"
            and (shown.add(tuple(screen.analysis[1])) or len(shown) >= 3), what="three updates of the analysis")
    assert screen.analysis_of[2] == position
    best = _best_and_line(screen.analysis[1])[0]
    d.frames(1)
    assert screen.arrow_cells == screen.view.move_cells(screen.state, best) != []
    d.key(pygame.K_i)                                   # stopped: asked for your move again, nothing searches
    wait_turn(d, screen)
    assert not screen.analysing and screen.moves == []
    assert_all_ended(before, "the analysis")
    _play(d, screen, "9-13")                            # and the game goes on
    wait_turn(d, screen)
    assert screen.moves[0] == "9-13" and len(screen.moves) == 2
    d.click(screen.buttons["leave"].rect.center)


@pytest.mark.parametrize("game_name, people, bottom", [("checkers", ("human", "human"), "White"),
                                                       ("checkers", ("human", "random"), "Black"),
                                                       ("chess", ("human", "random"), "White")])
def test_the_evaluation_bar_fills_from_the_bottom_in_the_colour_of_the_side_there(
        make_renderer, registry, game_name, people, bottom):
    """The same way in every game: the side at the bottom of the board has its colour at the bar's bottom, as
    much of it as its expected score (checkers draws White at the bottom unflipped, chess too)."""
    renderer, d = make_renderer()
    game, screen = _start(renderer, registry, game_name, list(people))
    d.frames(1)
    assert game.side_names[screen.view.bottom_side] == bottom
    screen.show_analysis = True
    # a search of the position by the side to move that finds the bottom side far ahead (90%)
    mover = game.side_names[screen.state.current_player()]
    value = 0.8 if mover == bottom else -0.8
    screen._on_analysis("test", {"move": None, "value": value, "visits": {}}, mover)
    d.frames(1)
    bar = screen.eval_bar_rect
    colours = screen.view.side_colours
    bottom_colour = colours[game.side_names.index(bottom)]
    assert d.pixel((bar.centerx, bar.bottom - 4)) == bottom_colour
    assert d.pixel((bar.centerx, bar.top + int(bar.height * 0.05))) == colours[1 - game.side_names.index(bottom)]
    assert d.pixel((bar.centerx, bar.top + int(bar.height * 0.2))) == bottom_colour
