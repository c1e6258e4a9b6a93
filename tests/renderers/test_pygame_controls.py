"""The window's controls every board has (issue #73 point 8), driven by real pygame events under the SDL dummy
driver: New game (the game going on kept first, then a new one with the same players and settings)."""
from __future__ import annotations

import pygame

from plyground.resume import load_unfinished

from renderer_helpers import start_from_menu, wait_turn


def test_new_game_keeps_the_game_going_on_and_starts_again_with_the_same_players(make_renderer, registry,
                                                                                  save_dir):
    renderer, d = make_renderer(save_dir=str(save_dir))
    screen = start_from_menu(renderer, d, registry, seed="1")
    wait_turn(d, screen)
    view = screen.view
    d.click(view.square_center(10))
    d.click(view.square_center(14))                   # 11-15, and the bot's answer
    d.until(lambda: len(screen.moves) == 2 and screen.input is not None, what="the bot's answer")
    played = list(screen.moves)
    players = [id(p) for p in renderer.game_thread.session.players]
    d.click(screen.buttons["new"].rect.center)
    new = renderer.game_screen
    assert new is not screen and renderer.screen is new
    wait_turn(d, new)
    assert new.moves == [] and new.state.ply == 0 and new.names == screen.names
    assert [id(p) for p in renderer.game_thread.session.players] == players      # the same players, kept open
    assert "saved in" in new.message
    kept = load_unfinished(screen.game, renderer.saved_game_path(screen.game))
    assert list(kept.moves) == played
    d.click(view.square_center(10))                   # the new game plays on
    d.click(view.square_center(14))
    d.until(lambda: len(new.moves) == 2 and new.input is not None, what="the new game's answer")
    assert new.moves == played                        # the same seed, the same answer
    d.key(pygame.K_ESCAPE)
