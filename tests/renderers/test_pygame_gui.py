"""The pygame renderer driven by real mouse and keyboard events, frame by frame (SDL dummy driver).

Every click is a MOUSEBUTTONDOWN/UP pair posted with pygame.event.post at a
square's computed centre and handled by the renderer's own event loop
(``renderer.step()``); what the board shows is checked by reading colours of
the rendered surface at square corners and centres.
"""
from __future__ import annotations

import re
import time

import pygame
import pytest

from plyground.boardview import theme
from plyground.games.checkers.view import decode, landings, read_pieces
from plyground.play.session import GameSession, PlaySettings, run_match

from renderer_helpers import GatedBot, human_to_move, show_advanced, start_from_menu, wait_turn

CORNER = (4, 4)  # from the bottom right: a point inside a square, outside its piece and its number


def corner(view, square):
    rect = view.cell_rect(view.square_cell(square))
    return rect.right - 1 - CORNER[0], rect.bottom - 1 - CORNER[1]


def test_menu_to_a_full_checkers_game_by_clicks(make_renderer, registry, tmp_path):
    renderer, d = make_renderer()
    screen = start_from_menu(renderer, d, registry)
    view = screen.view
    assert screen.names == ("human", "random:seed=1")
    assert view.flipped  # the human plays Black: Black at the bottom
    checked_forced = checked_multi = False
    while True:
        wait_turn(d, screen)
        if screen.over:
            break
        state = screen.state
        pieces = read_pieces(state.game, state)
        legal = state.legal_moves()
        move = max(legal, key=lambda m: bin(decode(m)[2]).count("1"))   # the human takes the most pieces
        frm, to, captured = decode(move)
        path = landings(state, move)[0]
        capturers = {decode(m)[0] for m in legal}
        ours = [s for s, (side, _) in pieces.items() if side == 0]
        if captured and not checked_forced and set(ours) - capturers:
            # Capture compulsory: exactly the capturing pieces are highlighted ...
            d.frames(1)
            for s in ours:
                want = theme.HIGHLIGHT["must"] if s in capturers else theme.DARK_SQUARE
                assert d.pixel(corner(view, s)) == want, s
            # ... and another piece cannot be picked: the reason is shown on screen.
            other = min(set(ours) - capturers)
            d.click(view.square_center(other))
            assert screen.input.selected is None
            assert "a capture is available, you must capture" in screen.message.lower()
            assert d.pixel(screen.message_rect.move(3, 3).topleft) == theme.ERROR_BOX
            checked_forced = True
        d.click(view.square_center(frm))
        assert d.pixel(corner(view, frm)) == theme.HIGHLIGHT["selected"]
        for i, landing in enumerate(path):
            assert d.pixel(view.square_center(landing)) == theme.TARGET_DOT, "the next landing lights up"
            d.click(view.square_center(landing))
            if len(path) > 1 and i < len(path) - 1:
                # Half-way through a multi-jump: the landing so far and the piece jumped are marked.
                assert screen.input is not None and screen.input.entered == path[:i + 1]
                assert d.pixel(view.square_center(landing)) == theme.PATH_DOT
                checked_multi = True
        assert screen.input is None, screen.message   # the move went to the game
    d.frames(1)
    record = screen.record
    assert record.finished and record.result_text in ("1-0", "0-1", "1/2-1/2")
    assert checked_forced and checked_multi
    assert screen.moves == record.moves
    # Game over: the result is on screen and the game can be saved and left.
    assert d.pixel(screen.message_rect.move(3, 3).topleft) == theme.GOOD_BOX
    assert screen.buttons["save"].enabled
    d.click(screen.save_field.rect.center)
    d.key(pygame.K_DELETE)
    d.type(str(tmp_path / "mine.pdn"))
    d.click(screen.buttons["save"].rect.center)
    pdn = (tmp_path / "mine.pdn").read_text()
    assert f'[Result "{record.result_text}"]' in pdn and record.moves[0] in pdn
    assert screen.message == f"Saved to mine.pdn in {tmp_path}"
    d.click(screen.buttons["leave"].rect.center)
    assert renderer.screen is renderer.menu


def test_capture_highlights_and_illegal_click_messages(make_renderer, registry):
    # Black: a man on 14 that must take 18, and a man on 1 that cannot capture.
    renderer, d, screen = human_to_move(make_renderer, registry, position="B:W18,30:B14,1")
    view = screen.view
    assert d.pixel(corner(view, 13)) == theme.HIGHLIGHT["must"]
    assert d.pixel(corner(view, 0)) == theme.DARK_SQUARE
    d.click(view.square_center(0))
    assert "you must capture" in screen.message
    assert d.pixel(screen.message_rect.move(3, 3).topleft) == theme.ERROR_BOX
    d.click(view.square_center(13))
    d.click(view.square_center(16))          # a plain step while a capture is available
    assert "a capture is available, you must capture" in screen.message.lower()
    d.click(view.square_center(17))          # onto the white man
    assert "occupied" in screen.message
    light = view.cell_rect((0, 0)).center    # a8 is a light square
    d.click(light)
    assert "dark squares" in screen.message
    d.click(view.square_center(22))          # the landing square: the capture is played
    assert screen.input is None and screen.message == ""
    driver_wait_record_move(d, screen, "14x23")


def driver_wait_record_move(d, screen, text):
    d.until(lambda: text in screen.moves, what=f"{text} in the move list")


def test_men_move_forward_only_and_empty_square_messages(make_renderer, registry):
    renderer, d, screen = human_to_move(make_renderer, registry, position="B:W30:B14")
    view = screen.view
    d.click(view.square_center(20))
    assert "empty" in screen.message
    d.click(view.square_center(29))
    assert "White piece" in screen.message
    d.click(view.square_center(13))
    assert {view.square_center(s) for s in screen.input.targets()} == {view.square_center(16), view.square_center(17)}
    d.click(view.square_center(8))           # backwards
    assert screen.message == "Men move forward only; only kings move backwards."
    d.key(pygame.K_ESCAPE)
    assert screen.input.selected is None


def test_multi_jump_by_final_square_and_ambiguous_final_square(make_renderer, registry):
    # The man on 2 can take 6 and 14 (via 9) or 7 and 15 (via 11): both end on 18.
    renderer, d, screen = human_to_move(make_renderer, registry, position="B:W6,7,14,15,32:B2")
    view = screen.view
    d.click(view.square_center(1))
    d.click(view.square_center(17))
    assert "More than one jump sequence ends there" in screen.message
    d.click(view.square_center(10))          # choose the way through 11 ...
    assert screen.input.entered == [10]
    d.frames(1)
    assert d.pixel(view.square_center(6)) == theme.JUMPED_CROSS   # ... taking the man on 7
    d.click(view.square_center(17))
    driver_wait_record_move(d, screen, "2x11x18")

    # Unambiguous: one click on the final square plays the whole multi-jump.
    renderer.game_screen.leave()
    screen = start_from_menu(renderer, d, registry, position="B:W6,14,32:B2")
    view = screen.view
    wait_turn(d, screen)
    d.click(view.square_center(1))
    d.frames(1)
    assert d.pixel(view.square_center(8)) == theme.TARGET_DOT
    ring = view.square_center(17)
    r = view.cell // 7
    assert d.pixel((ring[0] + int(r * 1.8) - 2, ring[1])) == theme.FINAL_RING
    d.click(ring)
    driver_wait_record_move(d, screen, "2x18")


def test_drag_take_back_flip_numbers_and_resize(make_renderer, registry):
    renderer, d, screen = human_to_move(make_renderer, registry)
    view = screen.view
    # Drag 11 to 15 (press on one square, release on another).
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=view.square_center(10), button=1))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=view.square_center(14), button=1))
    d.frames(1)
    wait_turn(d, screen)
    assert screen.moves[0] == "11-15" and len(screen.moves) == 2
    reply = [int(n) - 1 for n in screen.moves[1].replace("x", "-").split("-")]
    for s in reply:                                   # the last move (the bot's reply) is highlighted
        assert d.pixel(corner(view, s)) == theme.HIGHLIGHT["last"]
    assert d.pixel(corner(view, 10)) == theme.DARK_SQUARE
    d.click(screen.buttons["undo"].rect.center)       # take back: our move and the reply
    wait_turn(d, screen)
    assert screen.moves == [] and screen.state.ply == 0
    before = view.square_center(0)
    d.key(pygame.K_f)
    assert not view.flipped and view.square_center(0) != before
    assert view.show_numbers                          # checkers: square numbers on at first
    d.key(pygame.K_n)
    assert not view.show_numbers
    pygame.event.post(pygame.event.Event(pygame.VIDEORESIZE, w=900, h=640, size=(900, 640)))
    d.frames(2)
    assert pygame.display.get_surface().get_size() == (900, 640)
    assert view.board_rect.right <= screen.panel_rect.left and view.board_rect.bottom <= 640
    d.click(view.square_center(10))                   # clicks still land on the right squares
    assert screen.input.selected == 10


def test_square_numbers_are_on_in_checkers_and_stay_as_left_in_the_next_games(make_renderer, registry):
    renderer, d, screen = human_to_move(make_renderer, registry)
    assert screen.view.show_numbers
    d.click(screen.buttons["numbers"].rect.center)
    assert not screen.view.show_numbers
    for shown in (False, True):
        d.click(screen.buttons["leave"].rect.center)           # back to the menu, and a new game
        d.click(renderer.menu.buttons["start"].rect.center)
        assert renderer.game_screen is not screen
        screen = renderer.game_screen
        wait_turn(d, screen)
        assert screen.view.show_numbers is shown
        d.key(pygame.K_n)                                      # on again: the next game shows them too
    screen = start_from_menu(renderer, d, registry, game="tictactoe")
    assert not screen.view.show_numbers                        # only checkers starts with them


def test_window_stays_responsive_while_a_bot_thinks(make_renderer, registry):
    renderer, d = make_renderer()
    game = registry.make_game("tictactoe")
    bot = GatedBot(game)
    renderer.start_game(GameSession(game, [bot, registry.make_player("human", game)], ("gated", "human")),
                        from_menu=False)
    screen = renderer.game_screen
    d.until(lambda: screen.thinking is not None, what="the bot thinking")
    frames = renderer.frames
    d.frames(5)
    assert renderer.frames == frames + 5 and "thinking" in screen._status_text()
    d.key(pygame.K_f)                                 # the window still handles input
    d.click(screen.view.cell_center((0, 0)))
    assert "is thinking" in screen.message
    bot.go.set()
    wait_turn(d, screen)
    assert screen.moves == ["a3"]
    d.click(screen.buttons["leave"].rect.center)
    assert not renderer.running


def test_a_multi_jump_is_drawn_along_the_games_own_path(make_renderer, registry):
    # The man on 2 can take 6 and 14 (via 9) or 7 and 15 (via 11): the human goes through 11; while the
    # bot thinks, the board shows that move -- the squares of state.move_path(move), and only those.
    renderer, d = make_renderer()
    game = registry.make_game("checkers")
    start = game.new_state("B:W6,7,14,15,32:B2")
    bot = GatedBot(game)
    renderer.start_game(GameSession(game, [registry.make_player("human", game), bot], ("human", "gated"),
                                    start=start.clone()), from_menu=False)
    screen = renderer.game_screen
    view = screen.view
    wait_turn(d, screen)
    for square in (1, 10, 17):
        d.click(view.square_center(square))
    d.until(lambda: screen.thinking is not None, what="the bot thinking")
    d.frames(1)
    move = start.parse_move(screen.moves[0])
    path = [s - 1 for s in start.move_path(move)]
    assert screen.moves == ["2x11x18"] and path == [1, 10, 17]
    for s in range(32):
        want = theme.HIGHLIGHT["last"] if s in path else theme.DARK_SQUARE
        assert d.pixel(corner(view, s)) == want, s + 1
    for s in (6, 14):                                 # the men taken
        assert d.pixel(view.square_center(s)) == theme.TAKEN_CROSS, s + 1
    bot.go.set()
    wait_turn(d, screen)
    d.click(screen.buttons["leave"].rect.center)


def test_options_editor_shows_the_options_error_and_builds_the_player(make_renderer, registry):
    renderer, d = make_renderer()
    renderer.open_menu(registry)
    d.frames(1)
    menu = renderer.menu
    while menu.sides[1].player != "random":
        d.click(menu.sides[1].cycler.next_rect.center)
    show_advanced(d, menu)
    field = menu.sides[1].editor.field("seed")
    d.click(field.rect.center)
    d.key(pygame.K_BACKSPACE, 0)
    d.key(pygame.K_DELETE)
    d.type("seven")
    assert field.error == "player random: bad value 'seven' for option 'seed': expected integer or none"
    d.click(menu.buttons["start"].rect.center)
    assert renderer.screen is menu and menu.error == field.error
    d.click(field.rect.center)
    d.key(pygame.K_DELETE)
    d.type("12345678901234567890")                    # any value, not a fixed few
    assert field.error is None
    d.click(menu.buttons["start"].rect.center)
    assert renderer.screen is renderer.game_screen
    assert renderer.game_screen.names[1] == "random:seed=12345678901234567890"
    assert renderer.game_thread.session.players[1].config["seed"] == 12345678901234567890


def test_rules_page_and_quit(make_renderer, registry):
    renderer, d = make_renderer()
    renderer.open_menu(registry)
    d.frames(1)
    d.click(renderer.menu.buttons["rules"].rect.center)
    assert type(renderer.screen).__name__ == "RulesScreen"
    assert renderer.screen.game.rules_text and "multi-jump" in renderer.screen.view_help
    d.key(pygame.K_ESCAPE)
    assert renderer.screen is renderer.menu
    d.click(renderer.menu.buttons["quit"].rect.center)
    assert not renderer.running


def test_match_shows_games_in_the_window_thread(make_renderer, registry):
    renderer, d = make_renderer(end_pause=0.0)
    game = registry.make_game("tictactoe")
    a, b = registry.make_player("random:seed=1", game), registry.make_player("random:seed=2", game)
    result = run_match(game, a, b, 2, renderer=renderer)
    assert len(result.records) == 2 and renderer.game_screen.record is result.records[-1]


@pytest.mark.parametrize("renderer_spec", ["pygame:bot_delay=0", "console:quiet=true"])
def test_plyground_play_swaps_renderers_with_one_flag(renderer_spec, registry, monkeypatch, tmp_path):
    """Bots on the command line: the pygame window skips its menu and plays, the console prints."""
    from plyground.cli import main
    from plyground.plugins.pygame_gui import PygameRenderer

    def run(self):  # the real loop, until the game is over; then the Close button
        self.running = True
        while self.running:
            self.step()
            time.sleep(0.001)   # a frame's pause, as the real loop's clock gives: a busy loop starves the game thread
            if self.game_screen.over and self.game_screen.record is not None:
                pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN,
                                                     pos=self.game_screen.buttons["leave"].rect.center, button=1))
    monkeypatch.setattr(PygameRenderer, "run", run)
    monkeypatch.setattr(PygameRenderer, "run_menu", lambda self, registry: pytest.fail("the menu was shown"))
    save = tmp_path / "g.jsonl"
    try:
        main(["play", "--game", "tictactoe", "--renderer", renderer_spec, "--black", "random:seed=1",
              "--white", "random:seed=2", "--save", str(save)])
    except SystemExit as exc:
        assert exc.code in (0, None)
    assert '"finished": true' in save.read_text()


def test_a_third_party_game_with_its_own_view_is_offered(make_renderer, registry):
    """A game plugin registers its board view through the pygame plugin's register_board_views hook."""
    from plyground import plugin_manager
    from plyground.games.tictactoe import TicTacToe
    from plyground.hookspecs import hookimpl
    from plyground.games.tictactoe.view import TicTacToeView
    from plyground.registry import get_registry, reset_registry

    class Noughts(TicTacToe):
        name = "noughts"
        description = "tic-tac-toe under another name, with its own view"
        default_opponents = ("mcts", "random")   # alphazero, tic-tac-toe's first, has no network for it

    class NoView(TicTacToe):
        name = "noview"
        description = "no pygame view"

    class NoughtsView(TicTacToeView):
        game_name = "noughts"
        description = "the tic-tac-toe grid for noughts"

    class NoughtsPlugin:
        @hookimpl
        def register_games(self):
            return [Noughts, NoView]

        @hookimpl(optionalhook=True)     # the pygame plugin's hook: optional, as pygame may be disabled
        def register_board_views(self):
            return [NoughtsView]

    assert plugin_manager.register(NoughtsPlugin(), plugin_manager.PluginInfo("noughts", "test", "test", "0"))
    reset_registry()
    try:
        registry = get_registry()
        assert registry.get("board-views", "noughts").plugin == "noughts"
        renderer, d = make_renderer()
        renderer.open_menu(registry)
        d.frames(1)
        menu = renderer.menu
        assert "noughts" in menu.games and "noview" not in menu.games
        assert {"checkers", "tictactoe"} <= set(menu.games)
        assert "no pygame view" in registry.get("renderers", "pygame").cls.unsupported_reason(NoView())
        while menu.game_name != "noughts":
            d.click(menu.game_choice.next_rect.center)
        d.click(menu.buttons["start"].rect.center)
        assert isinstance(renderer.game_screen.view, NoughtsView)
    finally:
        plugin_manager.unregister("noughts")
        reset_registry()


def test_screenshots_command_writes_pngs(registry, tmp_path, monkeypatch):
    from plyground.cli import PlygroundGroup, main
    monkeypatch.setattr(PlygroundGroup, "_plugin_commands_loaded", False)  # pick up the pygame plugin's command
    try:
        main(["screenshots", "--out", str(tmp_path), "--width", "800", "--height", "600"])
    except SystemExit as exc:
        assert exc.code in (0, None)
    names = sorted(p.name for p in tmp_path.glob("*.png"))
    assert {"menu.png", "rules.png", "checkers-capture.png", "checkers-over.png", "tictactoe.png"} <= set(names)
    image = pygame.image.load(str(tmp_path / "checkers-capture.png"))
    assert image.get_size() == (800, 600)


def test_tictactoe_by_clicks(make_renderer, registry):
    renderer, d = make_renderer()
    screen = start_from_menu(renderer, d, registry, game="tictactoe", seed="2")
    view = screen.view
    while True:
        wait_turn(d, screen)
        if screen.over:
            break
        cells = [(r, c) for r in range(3) for c in range(3)]
        taken = [cell for cell in cells if screen.state.to_text()[cell[0] * 4 + cell[1]] != "."]
        if taken:
            d.click(view.cell_center(taken[0]))
            assert screen.message.startswith("That square is occupied")
            assert d.pixel(screen.message_rect.move(3, 3).topleft) == theme.ERROR_BOX
        free = next(cell for cell in cells if cell not in taken)
        d.click(view.cell_center(free))
        assert screen.input is None
    d.frames(1)
    assert screen.record.finished
    if screen.record.result_text != "1/2-1/2":   # the winning line is filled
        line = [cell for cell, kinds in view.result_marks(screen.state).items() if "win" in kinds]
        assert len(line) == 3
        assert d.pixel(view.cell_rect(line[0]).move(4, 4).topleft) == theme.HIGHLIGHT["win"]


def test_the_window_shows_both_clocks_and_the_running_one_goes_down(make_renderer, registry, monkeypatch):
    from plyground.play.clock import TimeControl, format_clock
    from plyground.screen import panel
    drawn = []                                     # the clock texts the panel draws, frame by frame
    monkeypatch.setattr(panel, "format_clock", lambda seconds: drawn.append(format_clock(seconds)) or drawn[-1])
    renderer, d = make_renderer(end_pause=0.0)
    game = registry.make_game("tictactoe")
    players = [registry.make_player(f"random:delay=0.3,seed={seed}", game) for seed in (1, 2)]
    renderer.start_game(GameSession(game, players, ("a", "b"), PlaySettings(time_control=TimeControl(60))),
                        from_menu=False)
    screen = renderer.game_screen
    d.until(lambda: screen.thinking is not None and screen.game_clock is not None, what="a bot thinking on a clock")
    side = screen.state.current_player()
    before = screen.game_clock.remaining(side)
    d.frames(10)
    assert screen.game_clock.remaining(side) < before <= 60
    assert format_clock(screen.game_clock.remaining(1 - side)).startswith(("1:00", "0:59"))
    # two clocks a frame, both drawn: the waiting one at 1:00, the running one a little under (tenths shown
    # under a minute, so 0:59.8 on a loaded machine)
    assert len(drawn) >= 20 and all(re.fullmatch(r"1:00|0:5\d(\.\d)?", text) for text in drawn[-2:]), drawn[-2:]
    d.until(lambda: screen.record is not None, what="the end of the game", timeout=30)
    assert screen.record.tags["TimeControl"] == "60"


def test_a_person_whose_clock_runs_out_in_the_window_loses_on_time(make_renderer, registry):
    from plyground.play.clock import TimeControl
    renderer, d = make_renderer(end_pause=0.0)
    game = registry.make_game("tictactoe")
    players = [registry.make_player("human", game), registry.make_player("random:seed=1", game)]
    renderer.start_game(GameSession(game, players, ("human", "random"), PlaySettings(time_control=TimeControl(0.5))),
                        from_menu=False)
    screen = renderer.game_screen
    d.until(lambda: screen.record is not None, what="the person's flag falling", timeout=10)
    assert screen.record.reason == "human (X) lost on time (0.5 time control)"
    assert screen.record.returns == (-1.0, 1.0)
