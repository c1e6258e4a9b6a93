"""The pygame chess view driven by real mouse events (SDL dummy driver), as tests/renderers does for checkers."""
from __future__ import annotations

import random
import sys
from pathlib import Path

import chess
import pygame
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "renderers"))   # renderer_helpers

from chess_helpers import needs_stockfish, plugins_registered  # noqa: E402
from plyground.boardview import theme  # noqa: E402
from plyground.plugins.pygame_gui.canvas import PygameCanvas  # noqa: E402
from plyground.games.chess.view import (PROMOTION_BACKGROUND, PieceArt,  # noqa: E402
                                                      square_cell)
from plyground.play.session import GameSession  # noqa: E402
from renderer_helpers import human_to_move, renderer_factory, start_from_menu, wait_turn  # noqa: E402

CORNER = (4, 4)


@pytest.fixture
def gui_registry():
    with plugins_registered("chess", "uci", "pygame") as registry:
        yield registry


@pytest.fixture
def make_renderer(gui_registry):
    with renderer_factory() as make:
        yield make


def corner(view, name):
    rect = view.cell_rect(square_cell(chess.parse_square(name)))
    return rect.left + CORNER[0], rect.top + CORNER[1]


def click(d, view, name):
    d.click(view.square_center(name))


def test_clicked_moves_highlights_and_reasons(make_renderer, gui_registry):
    renderer, d = make_renderer()
    screen = start_from_menu(renderer, d, gui_registry, game="chess")
    view = screen.view
    assert not view.flipped                        # the human plays White: White at the bottom
    wait_turn(d, screen)
    d.frames(1)
    assert d.pixel(view.square_center("e2")) != theme.LIGHT_SQUARE   # a piece is drawn there
    click(d, view, "e7")
    assert screen.message == "That is a Black pawn: you play White."
    click(d, view, "e4")
    assert screen.message == "e4 is empty: click one of your (White) pieces first."
    assert d.pixel(screen.message_rect.move(3, 3).topleft) == theme.ERROR_BOX
    click(d, view, "e2")
    assert screen.input.selected == chess.E2 and screen.input.targets() == {chess.E3, chess.E4}
    d.frames(1)
    assert d.pixel(corner(view, "e2")) == theme.HIGHLIGHT["selected"]
    assert d.pixel(view.square_center("e4")) == theme.TARGET_DOT
    click(d, view, "e5")
    assert screen.message == "A pawn moves one square forward (two from its starting square)."
    click(d, view, "g1")                           # another own piece: selected instead
    assert screen.input.selected == chess.G1
    click(d, view, "g3")
    assert screen.message.startswith("The knight on g1 cannot reach g3: a knight moves in an L")
    click(d, view, "g1")                           # put it down
    assert screen.input.selected is None
    click(d, view, "e2")
    click(d, view, "e4")
    assert screen.input is None and screen.message == ""
    wait_turn(d, screen)
    assert screen.moves[0] == "e4" and len(screen.moves) == 2
    reply = screen.state.board.peek()
    d.frames(1)
    assert d.pixel(corner(view, chess.square_name(reply.to_square))) == theme.HIGHLIGHT["last"]
    # Drag the knight from g1 to f3.
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=view.square_center("g1"), button=1))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=view.square_center("f3"), button=1))
    d.frames(1)
    wait_turn(d, screen)
    assert screen.moves[2] == "Nf3" and len(screen.moves) == 4
    d.click(screen.buttons["undo"].rect.center)    # take back Nf3 and the reply
    wait_turn(d, screen)
    assert screen.moves == ["e4", screen.moves[1]] and screen.state.ply == 2
    d.key(pygame.K_f)
    assert view.flipped and view.square_center("a1")[1] < view.square_center("a8")[1]
    d.key(pygame.K_n)
    assert view.show_numbers and view.cell_label(square_cell(chess.E4)) == "e4"


def test_promotion_choice_by_clicks(make_renderer, gui_registry):
    renderer, d, screen = human_to_move(make_renderer, gui_registry, game="chess",
                                         position="1r2k3/P7/8/8/8/8/8/K7 w - - 0 1")
    view = screen.view
    click(d, view, "a7")
    assert screen.input.targets() == {chess.A8, chess.B8}
    click(d, view, "a8")                           # a promotion: the choice opens over the a-file
    assert screen.input is not None and screen.input.promotion_squares() == {
        chess.A8: chess.QUEEN, chess.A7: chess.ROOK, chess.A6: chess.BISHOP, chess.A5: chess.KNIGHT}
    d.frames(1)
    for name in ("a8", "a7", "a6", "a5"):
        assert d.pixel(corner(view, name)) == PROMOTION_BACKGROUND
    assert "Promotion: click the piece" in screen.input.hint()
    click(d, view, "h1")                           # anywhere else: cancelled, nothing played
    assert screen.input is not None and screen.message.startswith("Promotion cancelled")
    assert screen.input.promotion is None and screen.state.ply == 0
    click(d, view, "b8")                           # the capture, then an under-promotion to a rook
    assert screen.input.promotion_squares()[chess.B5] == chess.KNIGHT
    click(d, view, "b7")
    d.until(lambda: len(screen.moves) >= 1, what="the promotion played")
    assert screen.moves[0] == "axb8=R+"


def test_promotion_to_a_knight_for_black_on_a_flipped_board(make_renderer, gui_registry):
    renderer, d = make_renderer()
    game = gui_registry.make_game("chess")
    human = gui_registry.make_player("human", game)
    bot = gui_registry.make_player("random:seed=1", game)
    start = game.new_state("4k3/8/8/8/8/8/p7/4K3 b - - 0 1")
    renderer.start_game(GameSession(game, [bot, human], ("random", "human"), start=start), from_menu=False)
    screen = renderer.game_screen
    view = screen.view
    assert view.flipped                            # the human plays Black: Black at the bottom
    wait_turn(d, screen)
    click(d, view, "a2")
    click(d, view, "a1")
    assert screen.input.promotion_squares() == {chess.A1: chess.QUEEN, chess.A2: chess.ROOK,
                                                chess.A3: chess.BISHOP, chess.A4: chess.KNIGHT}
    click(d, view, "a4")
    d.until(lambda: len(screen.moves) >= 1, what="the promotion played")
    assert screen.moves[0] == "a1=N"


def test_castling_check_and_pins_by_clicks(make_renderer, gui_registry):
    renderer, d, screen = human_to_move(make_renderer, gui_registry, game="chess",
                                         position="r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    view = screen.view
    click(d, view, "e1")
    assert {chess.G1, chess.C1} <= screen.input.targets()
    click(d, view, "h1")                           # the king onto its own rook: castling that way
    d.until(lambda: len(screen.moves) >= 1, what="castling played")
    assert screen.moves[0] == "O-O"
    screen.leave()

    # In check: the king glows red; a piece that cannot help says so; a pinned piece says so.
    screen = start_from_menu(renderer, d, gui_registry, game="chess", position="4k3/8/8/b7/8/8/3N4/4K2r w - - 0 1")
    view = screen.view
    wait_turn(d, screen)
    d.frames(1)
    rect = view.cell_rect(square_cell(chess.E1))
    r, g, b = d.pixel((rect.left + rect.width * 0.2, rect.top + rect.height * 0.2))
    square = view.square_color(square_cell(chess.E1))
    assert r > square[0] and g < square[1], (r, g, b)   # the red glow behind the king in check
    click(d, view, "d2")
    assert screen.message.startswith("You are in check: the knight on d2 cannot help")
    screen.leave()
    screen = start_from_menu(renderer, d, gui_registry, game="chess", position="4k3/8/8/b7/8/8/3N4/4K3 w - - 0 1")
    view = screen.view
    wait_turn(d, screen)
    click(d, view, "d2")
    assert screen.message == "The knight on d2 is pinned: moving it would leave your king in check."


def _piece_picture(art, piece, size=64):
    image = pygame.Surface((size, size), pygame.SRCALPHA)
    art.draw(PygameCanvas(image), piece, size, center=(size // 2, size // 2))
    return image


def test_pieces_are_drawn_as_glyphs_or_letters():
    pygame.display.init()
    art = PieceArt()
    image = _piece_picture(art, chess.Piece(chess.QUEEN, chess.WHITE))
    opaque = sum(1 for x in range(64) for y in range(64) if image.get_at((x, y))[3] > 200)
    assert 300 < opaque < 64 * 64 * 0.8
    black = _piece_picture(art, chess.Piece(chess.QUEEN, chess.BLACK))
    assert black.get_at((32, 40))[:3] != image.get_at((32, 40))[:3]


@needs_stockfish
def test_a_full_gui_game_against_stockfish(make_renderer, gui_registry):
    renderer, d = make_renderer()
    game = gui_registry.make_game("chess:max_plies=300")
    human = gui_registry.make_player("human", game)
    stockfish = gui_registry.make_player("stockfish:skill=0,depth=1,threads=1,hash=16", game)
    renderer.start_game(GameSession(game, [human, stockfish], ("human", "stockfish")), from_menu=True)
    screen = renderer.game_screen
    view = screen.view
    rng = random.Random(4)
    promotions = 0
    while True:
        wait_turn(d, screen)
        if screen.over:
            break
        state = screen.state
        moves = state.legal_moves()
        promoting = [m for m in moves if m.promotion]
        move = rng.choice(promoting or moves)
        click(d, view, chess.square_name(move.from_square))
        click(d, view, chess.square_name(move.to_square))
        if move.promotion:
            choice = {s: p for s, p in screen.input.promotion_squares().items()}
            square = next(s for s, p in choice.items() if p == move.promotion)
            click(d, view, chess.square_name(square))
            promotions += 1
        assert screen.input is None, screen.message
    d.frames(1)
    record = screen.record
    assert record.finished and screen.moves == record.moves
    assert record.players == ("human", "stockfish")
    assert d.pixel(screen.message_rect.move(3, 3).topleft) == theme.GOOD_BOX
    assert renderer.game_thread.session.players[1].engine.alive() is False    # the menu's game closes its players
