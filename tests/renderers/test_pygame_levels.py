"""The menu's Level and Clock choices, driven by real pygame events (SDL dummy driver): a level is the
player the game gets, and a clock reaches the game as --tc's does."""
from __future__ import annotations

from pathlib import Path

import pygame
import pytest

from plyground.play.clock import TimeControl
from plyground.levels import level_spec, level_table
from plyground.registry import get_registry

from renderer_helpers import choose, open_menu, show_advanced, wait_turn

DOCS = Path(__file__).resolve().parents[2] / "docs" / "gui.md"


def test_a_level_chosen_in_the_menu_is_the_player_the_game_gets(make_renderer, registry):
    renderer, d, menu = open_menu(make_renderer, registry)
    choose(d, menu.level_choice, "easy")
    d.click(menu.buttons["start"].rect.center)
    assert renderer.screen is renderer.game_screen, menu.error
    assert renderer.game_screen.names == ("human", "alphabeta:depth=1,eval=material,book=none")
    bot = renderer.game_thread.session.players[1]
    assert bot.name == "alphabeta" and bot.config["depth"] == 1 and bot.config["eval"] == "material"


def test_an_option_changed_by_hand_makes_the_level_custom_and_is_played(make_renderer, registry):
    renderer, d, menu = open_menu(make_renderer, registry)
    choose(d, menu.level_choice, "hard")
    show_advanced(d, menu)
    field = menu.sides[1].editor.field("depth")
    assert field.text == "5"
    d.click(field.rect.center)
    d.key(pygame.K_DELETE)
    d.type("2")
    d.frames(1)
    assert menu.level == "custom"
    d.key(pygame.K_RETURN)
    assert renderer.game_screen.names == ("human", "alphabeta:depth=2,eval=learned")
    assert renderer.game_thread.session.players[1].config["depth"] == 2


@pytest.mark.parametrize("label, tc", [("no clock", None), ("3 min + 2 s", "3m+2"), ("15 min + 10 s", "15m+10")])
def test_the_clock_chosen_in_the_menu_reaches_the_game_as_tc_gives_it(label, tc, make_renderer, registry):
    renderer, d, menu = open_menu(make_renderer, registry)
    choose(d, menu.sides[1].cycler, "random")
    choose(d, menu.clock_choice, label)
    d.click(menu.buttons["start"].rect.center)
    screen = renderer.game_screen
    assert renderer.screen is screen, menu.error
    wait_turn(d, screen)
    if tc is None:
        assert screen.game_clock is None and "TimeControl" not in screen.live_record.tags
        return
    control = TimeControl.parse(tc)                  # what `plyground play --tc 3m+2` plays with
    assert screen.game_clock.control == control
    assert (control.seconds, control.increment) == {"3m+2": (180, 2), "15m+10": (900, 10)}[tc]
    assert screen.live_record.tags["TimeControl"] == str(control)
    assert 0 < screen.game_clock.remaining(0) <= control.seconds     # the person's clock runs


def test_levels_are_documented_with_every_player_spec():
    text = DOCS.read_text(encoding="utf-8")
    registry = get_registry()
    for name in ("checkers", "chess", "tictactoe"):                 # the bundled games docs/gui.md tabulates
        for level, specs in level_table(registry.make_game(name)).items():
            for spec in specs:
                assert f"`{spec}`" in text, (name, level, spec)


def test_an_unknown_level_names_the_games_levels(registry):
    from plyground.errors import OptionError
    game = registry.make_game("checkers")
    assert list(level_table(game)) == ["easy", "medium", "hard", "strongest"]
    with pytest.raises(OptionError, match="checkers has no level 'expert'; its levels are easy, medium, hard, "
                                          "strongest"):
        level_spec(registry, game, "expert")
