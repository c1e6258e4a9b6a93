"""The pygame menu driven by real mouse and keyboard events (SDL dummy driver): the default opponent,
option lists that scroll, keyboard focus, Enter, and the "Starting..." message.

Every check posts MOUSEBUTTONDOWN/UP, MOUSEMOTION, MOUSEWHEEL and KEYDOWN events and lets the
renderer's own loop handle them; outcomes are read from the widgets and the rendered surface.
"""
from __future__ import annotations

from pathlib import Path

import pygame
import pytest

from plyground.levels import level_spec, level_table
from plyground.options import Spec
from plyground.protocols import Budget
from plyground.plugins.pygame_gui import theme
from plyground.plugins.pygame_gui.widgets import Cycler, TextField, wrap_text
from plyground.play.session import GameSession, PlaySettings

from renderer_helpers import GatedBot, choose, human_to_move, open_menu, show_advanced, wait_turn

SMALL = {"width": 800, "height": 600}


def test_the_menu_starts_at_the_strongest_level_and_each_level_fills_in_its_player(make_renderer, registry):
    from plyground.cli import _fill_sides
    renderer, d, menu = open_menu(make_renderer, registry)
    for name in menu.games:
        choose(d, menu.game_choice, name)
        game = menu.default_game()
        assert menu.level == "strongest"
        assert menu.sides[1].spec() == Spec.parse(registry.default_opponent(game))   # the console's opponent
        for level in level_table(game):
            choose(d, menu.level_choice, level)
            spec = level_spec(registry, game, level)
            assert menu.sides[0].player == "human" and menu.sides[1].spec() == spec   # options in the fields
            for option, value in spec.options.items():
                assert menu.sides[1].editor.text_of(option) == value
    choose(d, menu.game_choice, "checkers")
    choose(d, menu.level_choice, "hard")
    choose(d, menu.game_choice, "tictactoe")
    choose(d, menu.game_choice, "checkers")
    assert menu.level == "hard"                               # kept per game while the menu lives
    choose(d, menu.level_choice, "strongest")
    game = menu.default_game()
    first, second = _fill_sides(game, None, None)              # the console's opponent: the same
    assert first == "human" and menu.sides[1].spec() == Spec.parse(second)
    assert menu.sides[1].spec() == Spec.parse("alphabeta:eval=nnue,depth=8")


@pytest.mark.parametrize("stockfish", ["as installed", "missing"])
def test_chess_from_the_menu_at_the_medium_level_answers_within_seconds(
        stockfish, make_renderer, registry, monkeypatch):
    if stockfish == "missing":   # then the levels play our own alpha-beta with its learned evaluation
        from plyground.players.uci.player import StockfishPlayer
        monkeypatch.setattr(StockfishPlayer, "unsupported_reason", classmethod(lambda cls, game: "not installed"))
    renderer, d, menu = open_menu(make_renderer, registry)
    if "chess" not in menu.games:
        pytest.skip("the chess game is not installed")
    choose(d, menu.game_choice, "chess")
    installed = "stockfish" in registry.players_for(menu.default_game())
    expected = "stockfish:elo=1500" if installed else "alphabeta:eval=learned,depth=3"
    assert menu.level == "strongest"          # seconds=2 in the level, 2.0 in its field: the same player
    choose(d, menu.level_choice, "medium")
    assert menu.level == "medium" and menu.sides[1].spec() == Spec.parse(expected)
    d.click(menu.buttons["start"].rect.center)
    screen = renderer.game_screen
    assert renderer.screen is screen, menu.error
    wait_turn(d, screen)
    d.click(screen.view.square_center("e2"))
    d.click(screen.view.square_center("e4"))
    # Alpha-beta at depth 10 with the material evaluation (what the menu once picked) had not moved
    # after three minutes; the medium level answers in about a second.
    d.until(lambda: len(screen.moves) >= 2, timeout=30, what=f"{expected}'s first move")
    assert screen.moves[0] == "e4" and not screen.message


def test_every_alphazero_option_can_be_scrolled_to_and_edited_at_800x600(make_renderer, registry):
    renderer, d, menu = open_menu(make_renderer, registry, **SMALL)
    show_advanced(d, menu)
    choose(d, menu.sides[1].cycler, "alphazero")
    side = menu.sides[1]
    editor = side.editor
    view = editor.scroll.rect
    assert len(editor.options) > 10 and editor.scroll.max_offset > 0
    screen = pygame.Rect(0, 0, 800, 600)
    for opt in editor.options:
        field = editor.field(opt.name)
        # Scroll with the wheel (down from the top) until the field is wholly in view.
        for _ in range(40):
            if view.contains(field.rect):
                break
            d.wheel(view.center, -1 if field.rect.bottom > view.bottom else 1)
        assert view.contains(field.rect), opt.name
        if isinstance(field, TextField):
            before = field.text
            d.click(field.rect.center)
            assert field.focused and menu.focused_help().startswith(opt.name)
            d.key(pygame.K_DELETE)
            d.type("x?")
            assert field.text == "x?"
            if opt.type not in (str, Path):                   # a wrong value: one message names it
                assert field.error == f"player alphazero: bad value 'x?' for option '{opt.name}': " \
                                      f"expected {opt.describe_type()}"
            d.key(pygame.K_DELETE)
            d.type(before)
            assert field.text == before and field.error is None
        else:
            before = field.value
            d.click(field.next_rect.center)
            assert field.value != before and field.focused
            d.key(pygame.K_LEFT)
            assert field.value == before
        # The start position and the buttons stay on screen, clear of the scrolled fields.
        assert view.bottom <= menu.position.rect.top
        for button in menu.buttons.values():
            assert screen.contains(button.rect)
        assert d.pixel(menu.buttons["start"].rect.move(6, 0).midleft) == theme.BUTTON_PRIMARY
    # Hidden rows take no clicks: the part of a field scrolled out of view is not clickable.
    first = editor.field(editor.options[0].name)
    assert first.rect.bottom < view.top
    assert not first.clip.collidepoint(first.rect.center)


def test_tab_walks_every_field_and_scrolls_it_into_view(make_renderer, registry):
    renderer, d, menu = open_menu(make_renderer, registry, **SMALL)
    show_advanced(d, menu)
    choose(d, menu.sides[1].cycler, "alphazero")
    editor = menu.sides[1].editor
    d.key(pygame.K_ESCAPE)                                    # the player's choice clicked last lets go of the focus
    assert not any(w.focused for w in menu._fields())
    order = menu._fields()
    seen = []
    for _ in range(len(order)):
        d.key(pygame.K_TAB)
        focused = [w for w in menu._fields() if w.focused]
        assert len(focused) == 1
        seen.append(focused[0])
        if focused[0] in editor.widgets.values():
            assert editor.scroll.rect.contains(focused[0].rect)
    assert seen[0] is menu.game_choice and seen[-1] is menu.position
    assert all(any(w is s for s in seen) for w in editor.widgets.values())
    d.key(pygame.K_TAB, pygame.KMOD_SHIFT)                    # Shift+Tab goes back
    last = editor.field(editor.options[-1].name)
    assert last.focused and editor.scroll.rect.contains(last.rect)
    # A focused choice changes with the arrow keys.
    while not isinstance(last, Cycler):
        d.key(pygame.K_TAB, pygame.KMOD_SHIFT)
        last = next(w for w in menu._fields() if w.focused)
    before = last.value
    d.key(pygame.K_RIGHT)
    assert last.value != before


def test_the_scroll_bar_can_be_dragged(make_renderer, registry):
    renderer, d, menu = open_menu(make_renderer, registry, **SMALL)
    show_advanced(d, menu)
    choose(d, menu.sides[1].cycler, "alphazero")
    scroll = menu.sides[1].editor.scroll
    thumb = scroll.thumb_rect
    d.press(thumb.center)
    d.move((thumb.centerx, scroll.rect.bottom + 50), held=True)
    d.release((thumb.centerx, scroll.rect.bottom + 50))
    assert scroll.offset == scroll.max_offset
    d.click((scroll.bar_rect.centerx, scroll.rect.top + 2))    # the track above the thumb: a page up
    assert scroll.offset < scroll.max_offset


def test_enter_starts_the_game_or_shows_the_error(make_renderer, registry):
    renderer, d, menu = open_menu(make_renderer, registry, **SMALL)
    show_advanced(d, menu)
    choose(d, menu.sides[1].cycler, "random")
    field = menu.sides[1].editor.field("seed")
    d.click(field.rect.center)
    d.key(pygame.K_DELETE)
    d.type("seven")
    d.key(pygame.K_RETURN)
    assert renderer.screen is menu
    assert menu.error == "player random: bad value 'seven' for option 'seed': expected integer or none"
    assert field.focused                                      # the wrong field, ready to be corrected
    d.key(pygame.K_DELETE)
    d.type("7")
    assert menu.error == ""
    d.key(pygame.K_RETURN)                                    # Enter in the text field starts the game
    assert renderer.screen is renderer.game_screen
    assert renderer.game_screen.names == ("human", "random:seed=7")


def test_the_command_lines_move_limit_holds_for_a_game_the_menu_starts(make_renderer, registry):
    """``plyground play --renderer pygame --move-limit 1``: the host hands the limit to the menu
    (``menu_settings``), and a bot of the menu's game that would think for a billion simulations forfeits."""
    renderer, d, menu = open_menu(make_renderer, registry, **SMALL)
    renderer.menu_settings = PlaySettings(move_limit_seconds=1.0)
    show_advanced(d, menu)
    choose(d, menu.sides[0].cycler, "random")
    choose(d, menu.sides[1].cycler, "mcts")
    field = menu.sides[1].editor.field("simulations")
    d.click(field.rect.center)
    d.key(pygame.K_DELETE)
    d.type("1000000000")
    d.click(menu.buttons["start"].rect.center)
    screen = renderer.game_screen
    assert renderer.screen is screen, menu.error
    d.until(lambda: screen.record is not None, timeout=60, what="the end of the game")
    assert "exceeded its 1 s move limit" in screen.record.reason and screen.record.score(1) == 0.0


def test_every_flag_of_the_command_line_holds_for_the_menus_games(make_renderer, registry):
    """``plyground play --renderer pygame --max-plies 4 --seed 3 --simulations 5``: the settings reach every
    game the menu starts (they used to be dropped there, all but the move limit)."""
    renderer, d, menu = open_menu(make_renderer, registry, **SMALL)
    renderer.menu_settings = PlaySettings(budget=Budget(simulations=5), max_plies=4, seed=3)
    show_advanced(d, menu)
    choose(d, menu.sides[0].cycler, "random")
    choose(d, menu.sides[1].cycler, "mcts")
    d.click(menu.buttons["start"].rect.center)
    screen = renderer.game_screen
    assert renderer.screen is screen, menu.error
    d.until(lambda: screen.record is not None, timeout=60, what="the end of the game")
    record = screen.record
    assert record.reason == "ply cap (4 plies)" and len(record.moves) == 4
    mcts = renderer.game_thread.session.players[1]
    assert mcts.analysis()["simulations"] == 5                # the budget of --simulations
    first = list(record.moves)
    d.until(lambda: not renderer.game_thread.running, what="the game thread's end")

    game = registry.make_game("checkers")
    again = registry.make_player("random", game)              # --seed 3: the same game again
    again.reset(3 * 2)
    state = game.new_initial_state()
    assert state.move_to_text(again.choose_move(state.clone(), Budget())) == first[0]


@pytest.mark.parametrize("flags, words", [
    (["--save", "kept.pdn"], "a game started from the window's menu is saved with its Save button"),
    (["--fen", "B:W21,22:B1,2"], "give its start position there (Start position)"),
    (["--tc", "5+0"], "choose its clock there (Clock)"),
])
def test_the_flags_of_one_named_game_are_refused_with_the_menu_saying_how_the_menu_does_it(
        flags, words, tmp_path, monkeypatch, capsys):
    from plyground.cli import main
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["play", "--renderer", "pygame", *flags])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and words in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []                     # nothing written


def test_start_shows_what_it_is_loading_before_the_slow_work(make_renderer, registry, monkeypatch):
    renderer, d, menu = open_menu(make_renderer, registry, **SMALL)
    choose(d, menu.sides[1].cycler, "random")
    seen = []
    make_player = registry.make_player

    def loading(spec, game):   # what the window shows while a player is being built
        seen.append((str(spec), menu.progress, pygame.display.get_surface().copy()))
        return make_player(spec, game)
    monkeypatch.setattr(registry, "make_player", loading)
    d.click(menu.buttons["start"].rect.center)
    assert renderer.screen is renderer.game_screen
    spec, progress, picture = seen[-1]
    assert spec == "random" and progress == "Starting\u2026 (loading random)"
    rect = menu.message_rect
    text_pixels = sum(picture.get_at((x, y))[:3] == theme.ACCENT
                      for x in range(rect.left, rect.right, 2) for y in range(rect.top, rect.bottom))
    assert text_pixels > 20                                   # the message was on the screen
    assert menu.progress == ""


def test_a_please_wait_note_goes_when_the_bot_has_moved_and_saved_names_fit(make_renderer, registry, tmp_path):
    renderer, d = make_renderer(**SMALL)
    game = registry.make_game("tictactoe")
    bot = GatedBot(game)
    renderer.start_game(GameSession(game, [bot, registry.make_player("human", game)], ("gated", "human")), from_menu=False)
    screen = renderer.game_screen
    d.until(lambda: screen.thinking is not None, what="the bot thinking")
    d.click(screen.view.cell_center((0, 0)))
    assert screen.message == "Please wait: gated is thinking."
    bot.go.set()
    wait_turn(d, screen)
    assert screen.moves == ["a3"] and screen.message == ""
    screen.leave()

    bots = [registry.make_player(f"random:seed={seed}", game) for seed in (1, 2)]
    renderer.start_game(GameSession(game, bots, ("random", "random")), from_menu=False)
    screen = renderer.game_screen
    d.until(lambda: screen.record is not None, what="the end of the game")
    folder = tmp_path / "a-folder-with-a-rather-long-name-for-saved-games"
    folder.mkdir()
    d.click(screen.save_field.rect.center)
    d.key(pygame.K_DELETE)
    d.type(str(folder / "tictactoe-20250101-120000.jsonl"))
    d.click(screen.buttons["save"].rect.center)
    assert screen.message.startswith("Saved to tictactoe-20250101-120000.jsonl in ")
    # The file's name is in the lines the message box has room for (a long folder's end is cut).
    box = screen.message_rect.inflate(-14, -10)
    room = (box.height + 2) // (theme.font(20).get_linesize() + 2)
    lines = wrap_text(screen.message, 20, box.width)
    assert "tictactoe-20250101-120000.jsonl" in " ".join(lines[:room]), lines
    assert screen.message_rect.right <= 800
    d.frames(1)
    assert d.pixel(screen.message_rect.move(3, 3).topleft) == theme.GOOD_BOX


@pytest.mark.parametrize("game, frm, to", [("chess", "e2", "e4"), ("checkers", 10, 14)])
def test_a_dragged_piece_follows_the_pointer(game, frm, to, make_renderer, registry):
    renderer, d, screen = human_to_move(make_renderer, registry, game=game)
    view = screen.view
    other = {"chess": "d2", "checkers": 9}[game]              # a piece like the dragged one, at rest
    piece = d.pixel(view.square_center(other))
    start, end = view.square_center(frm), view.square_center(to)
    halfway = ((start[0] + end[0]) // 2 + 7, (start[1] + end[1]) // 2 + 5)
    d.press(start)
    d.frames(1)
    assert d.pixel(halfway) != piece
    d.move(halfway, held=True)
    assert d.pixel(halfway) == piece                          # the piece is under the pointer ...
    assert d.pixel(start) == theme.HIGHLIGHT["selected"]      # ... and no longer on its square
    d.move(end, held=True)
    assert d.pixel(end) == piece
    d.release(end)
    assert screen.drag_pos is None
    d.until(lambda: len(screen.moves) >= 1, what="the dropped move")
    assert screen.moves[0] in ("e4", "11-15")


def test_play_again_says_what_it_loads_and_a_failure_shows_in_the_menu(make_renderer, registry, monkeypatch):
    from plyground.errors import PlygroundError
    renderer, d, menu = open_menu(make_renderer, registry, **SMALL)
    choose(d, menu.game_choice, "tictactoe")
    for side in menu.sides:
        choose(d, side.cycler, "random")
    d.click(menu.buttons["start"].rect.center)
    screen = renderer.game_screen
    d.until(lambda: screen.record is not None, what="the end of the game")
    seen = []
    make_player = registry.make_player

    def loading(spec, game):
        seen.append(renderer.game_screen.message)
        return make_player(spec, game)
    monkeypatch.setattr(registry, "make_player", loading)
    d.click(screen.buttons["again"].rect.center)
    assert seen == ["Starting\u2026 (loading random)"] * 2    # on the finished game's screen, still shown
    assert renderer.game_screen is not screen and renderer.screen is renderer.game_screen
    screen = renderer.game_screen
    d.until(lambda: screen.record is not None, what="the end of the second game")

    def broken(spec, game):
        raise PlygroundError("player random: cannot start (a test)")
    monkeypatch.setattr(registry, "make_player", broken)
    d.click(screen.buttons["again"].rect.center)
    assert renderer.screen is menu and menu.error == "player random: cannot start (a test)"


def test_option_fields_stay_put_whatever_the_players_description(make_renderer, registry):
    renderer, d, menu = open_menu(make_renderer, registry, **SMALL)
    show_advanced(d, menu)
    cycler = menu.sides[1].cycler
    tops = {}
    for name in cycler.choices:
        choose(d, cycler, name)
        editor = menu.sides[1].editor
        if editor.options:
            first = editor.field(editor.options[0].name)
            tops[name] = (first.rect.top, first.rect.right)
            if isinstance(first, Cycler):
                tops[name] = (first.rect.top, first.next_rect.right)
    descriptions = {len(registry.get("players", name).description) for name in tops}
    assert len(tops) >= 3 and len(descriptions) >= 3
    assert len(set(tops.values())) == 1, tops


def test_the_menu_offers_only_players_that_can_play_the_game_as_they_are(make_renderer, registry):
    """AlphaZero with no model of chess to play, or bayes with no model at all, is not offered; a side that
    had one picked gets the game's own opponent instead when the game changes, so Start works."""
    renderer, d, menu = open_menu(make_renderer, registry)
    choose(d, menu.game_choice, "checkers")
    choose(d, menu.sides[1].cycler, "alphazero")
    assert "bayes" not in menu.sides[1].cycler.choices
    if "chess" not in menu.games:
        pytest.skip("the chess game is not installed")
    choose(d, menu.game_choice, "chess")
    chess = menu.default_game()
    assert "alphazero" not in menu.sides[1].cycler.choices and "alphazero" in registry.players_for(chess)
    assert menu.sides[1].spec() == Spec.parse(registry.default_opponent(chess))
    choose(d, menu.game_choice, "tictactoe")
    assert "alphazero" in menu.sides[1].cycler.choices          # tic-tac-toe bundles a model
