"""The menu's Open game: a recorded game reviewed from the window's menu, by real pygame events (SDL dummy)."""
from __future__ import annotations

import pygame

from plyground.capabilities import record_reader
from plyground.registry import get_registry

from renderer_helpers import open_menu, saved_random_match


def _saved_match(folder, name: str) -> list[str]:
    """A finished random checkers game written by ``plyground match --save`` to ``folder/name``; its moves."""
    saved = saved_random_match(folder, name, seed=5)
    return record_reader(get_registry().make_game("checkers"))(saved.read_text())[-1].moves


def test_open_game_lists_the_saved_games_reviews_one_and_plays_from_a_position(make_renderer, registry, tmp_path):
    moves = _saved_match(tmp_path, "match.pdn")
    renderer, d, menu = open_menu(make_renderer, registry, save_dir=str(tmp_path))
    d.click(menu.buttons["open"].rect.center)
    screen = renderer.screen
    assert [p.name for p in screen.files] == ["match.pdn"]
    record = record_reader(get_registry().make_game("checkers"))((tmp_path / "match.pdn").read_text())[-1]
    label = screen.file_buttons[0].label                 # what each file holds: date, players, result, length
    assert label.startswith(f"match.pdn: {record.tags['Date']}, {record.players[0]} vs {record.players[1]}, "
                            f"{record.result_text}, {len(moves)} plies"), label
    d.click(screen.file_buttons[0].rect.center)
    review = renderer.game_screen
    assert renderer.screen is review and review.reviewing and review.moves == moves
    for _ in range(3):
        d.key(pygame.K_RIGHT)
    shown = review.shown_state.to_text()
    assert shown.endswith(":F2")                        # three plies in: White plays move 2
    d.key(pygame.K_p)                                   # Play from here: a new game, with the menu's players
    d.until(lambda: renderer.game_screen is not review and renderer.game_screen.state is not None,
            what="the new game")
    game_screen = renderer.game_screen
    assert not game_screen.reviewing and game_screen.start_text == shown
    d.until(lambda: game_screen.moves, what="the new game's first move")
    [(number, (first, second)), *_] = game_screen.move_lines()     # the move list goes on with the review's numbers
    assert number == 2 and first is None and second == (1, game_screen.moves[0])
    d.click(game_screen.buttons["leave"].rect.center)
    assert renderer.screen is renderer.menu


def test_open_game_with_a_typed_path_and_a_wrong_one(make_renderer, registry, tmp_path):
    moves = _saved_match(tmp_path, "elsewhere.pdn")
    (tmp_path / "notes.pdn").write_text("this is not a PDN game\n")
    renderer, d, menu = open_menu(make_renderer, registry, save_dir=str(tmp_path / "empty"))
    d.click(menu.buttons["open"].rect.center)
    screen = renderer.screen
    d.click(screen.path.rect.center)
    d.type(str(tmp_path / "notes.pdn"))
    d.key(pygame.K_RETURN)
    assert renderer.screen is screen and screen.error.startswith("Cannot open notes.pdn: ")
    screen.path.set_text(str(tmp_path / "elsewhere.pdn"))
    d.click(screen.open.rect.center)
    review = renderer.game_screen
    assert renderer.screen is review and review.moves == moves
    d.click(review.buttons["leave"].rect.center)          # Menu: back to the menu
    assert renderer.screen is renderer.menu
