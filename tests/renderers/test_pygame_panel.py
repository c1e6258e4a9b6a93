"""The game screen's side panel and help page, driven by real pygame events (SDL dummy driver): when Take
back is offered, the keys the help page lists, the compile message, and the layout at small window sizes."""
from __future__ import annotations

import re
import threading

import pygame

from plyground.plugins.pygame_gui import theme
from plyground.plugins.pygame_gui.game_screen import GameScreen
from plyground.plugins.pygame_gui.widgets import wrap_text
from plyground.protocols import Player
from plyground.play.session import GameSession

from renderer_helpers import GatedBot, start_from_menu, wait_turn


def tictactoe_game(make_renderer, registry, players, **options):
    """(renderer, driver, screen) of a tic-tac-toe game started in the window with ``players`` (specs or
    Player objects), the first side to move: side 0."""
    renderer, d = make_renderer(**options)
    game = registry.make_game("tictactoe")
    made = [registry.make_player(p, game) if isinstance(p, str) else p for p in players]
    renderer.start_game(GameSession(game, made, tuple(p if isinstance(p, str) else p.name for p in players)),
                        from_menu=False)
    return renderer, d, renderer.game_screen


def free_cell(screen):
    cells = [(r, c) for r in range(3) for c in range(3)]
    return next(cell for cell in cells if screen.state.to_text()[cell[0] * 4 + cell[1]] == ".")


# ------------------------------------------------------------------ 1. Take back only when there is a move to take back

def test_take_back_is_off_until_the_person_has_moved_and_off_again_when_all_is_taken_back(make_renderer, registry):
    # The bot moves first: the person's first turn comes after a move, but none of theirs to take back.
    renderer, d, screen = tictactoe_game(make_renderer, registry, ["random:seed=3", "human"])
    wait_turn(d, screen)
    d.frames(1)
    assert screen.moves and len(screen.moves) == 1
    undo = screen.buttons["undo"]
    assert not undo.enabled
    assert d.pixel(undo.rect.move(3, 3).topleft) == theme.BUTTON_DISABLED
    for press in (lambda: d.click(undo.rect.center), lambda: d.key(pygame.K_u), lambda: d.key(pygame.K_BACKSPACE)):
        press()
        d.frames(2)
        assert len(screen.moves) == 1 and screen.input is not None   # nothing was taken back
    d.click(screen.view.cell_center(free_cell(screen)))             # the person's move, and the bot's reply
    wait_turn(d, screen)
    assert len(screen.moves) == 3 and undo.enabled
    d.click(undo.rect.center)
    d.until(lambda: len(screen.moves) == 1 and screen.input is not None, what="the take back")
    d.frames(1)
    assert not undo.enabled                  # everything the person played is taken back
    assert d.pixel(undo.rect.move(3, 3).topleft) == theme.BUTTON_DISABLED


def test_take_back_is_off_at_the_start_when_the_person_moves_first(make_renderer, registry):
    renderer, d, screen = tictactoe_game(make_renderer, registry, ["human", "random:seed=3"])
    wait_turn(d, screen)
    d.frames(1)
    assert screen.moves == [] and not screen.buttons["undo"].enabled


# ------------------------------------------------------------------ 2. the help page lists every key

def test_help_page_lists_every_key_the_game_screen_handles_and_scrolls_to_them(make_renderer, registry):
    renderer, d = make_renderer(width=800, height=600)
    renderer.open_menu(registry)
    d.frames(1)
    d.click(renderer.menu.buttons["rules"].rect.center)
    rules = renderer.screen
    assert type(rules).__name__ == "RulesScreen"
    text = rules.help_text
    for key, name, words, _ in GameScreen.KEYS:
        assert re.search(rf"^  (.* or )?{re.escape(name)}( or .*)?: ", text, re.M), name
    for name in ("H", "A", "S", "U", "F", "N", "P", "Escape", "Backspace", "Left", "Right", "Home", "End"):
        assert name in {entry[1] for entry in GameScreen.KEYS}
    # The keys come last: at 800x600 they are below the column's bottom, and the mouse wheel brings them in.
    last = rules.help_lines[-1]
    assert last.strip() and last not in rules.shown_help_lines()
    for _ in range(40):
        if last in rules.shown_help_lines():
            break
        d.wheel(rules.help_scroll.rect.center, -1)
    assert last in rules.shown_help_lines()
    d.key(pygame.K_ESCAPE)
    assert renderer.screen is renderer.menu


def test_every_button_key_is_in_the_key_table_and_other_keys_do_nothing(make_renderer, registry):
    renderer, d, screen = tictactoe_game(make_renderer, registry, ["human", "random:seed=3"])
    wait_turn(d, screen)
    table = {name: action for _, name, _, action in GameScreen.KEYS}
    for name, button in screen.buttons.items():      # a key shown on a button is one the table presses it with
        shown = re.search(r"\((\w+)\)$", button.label)
        if shown:
            action = table.get(shown.group(1))
            assert action == name or getattr(action, "__name__", None) == button.on_click.__name__, button.label
    # The keys of the table act (A, H: the analysis view and a hint) ...
    d.key(pygame.K_a)
    assert screen.show_analysis
    d.key(pygame.K_h)
    assert screen.hinting or screen.analysis is not None
    d.until(lambda: not screen.hinting and screen.input is not None, what="the hint")
    d.key(pygame.K_a)
    assert not screen.show_analysis

    # ... and a key not in it changes nothing.
    def seen():
        return (screen.view.flipped, screen.view.show_numbers, screen.show_analysis, screen.message, screen.review,
                list(screen.moves), screen.input is not None, screen.hinting)
    handled = {key for key, *_ in GameScreen.KEYS}
    others = [k for k in list(range(pygame.K_a, pygame.K_z + 1)) + list(range(pygame.K_0, pygame.K_9 + 1)) +
              [pygame.K_SPACE, pygame.K_RETURN, pygame.K_TAB, pygame.K_DELETE, pygame.K_UP, pygame.K_DOWN,
               pygame.K_PAGEUP, pygame.K_PAGEDOWN, pygame.K_F1] if k not in handled]
    before = seen()
    for key in others:
        d.key(key)
        assert seen() == before, pygame.key.name(key)


# ------------------------------------------------------------------ 4. the layout holds in a small window

def widget_rects(screen) -> dict[str, pygame.Rect]:
    """What the game screen shows, by name, as last drawn: board, message box, analysis, moves, save field and
    every button shown."""
    rects = {"board": screen.view.board_rect, "message": screen.message_rect, "moves": screen.moves_rect}
    if screen.analysis_rect.width:
        rects["analysis"] = screen.analysis_rect
    if screen.save_field.rect.width:
        rects["save field"] = screen.save_field.rect
    for name, button in screen.buttons.items():
        if button.rect.width:
            rects[f"button {name}"] = button.rect
    return rects


def assert_layout_holds(d, screen, size):
    d.frames(2)
    assert pygame.display.get_surface().get_size() == size
    rects = widget_rects(screen)
    names = sorted(rects)
    for i, a in enumerate(names):
        assert pygame.Rect(0, 0, *size).contains(rects[a]), (a, rects[a])
        for b in names[i + 1:]:
            assert not rects[a].colliderect(rects[b]), f"{a} {rects[a]} overlaps {b} {rects[b]}"
    for name, button in screen.buttons.items():
        if button.rect.width:    # the label, at the size drawn, inside its button
            text_w, text_h = theme.font(button.label_size()).size(button.label)
            assert text_w <= button.rect.width - 4 and text_h <= button.rect.height, (button.label, button.rect)
    line = theme.font(20).get_linesize() + 2
    assert rects["moves"].height >= GameScreen.MOVE_ROWS * line, "the move list keeps its rows"
    return rects


def test_the_panel_holds_at_800_by_600_and_the_window_goes_no_smaller(make_renderer, registry):
    renderer, d = make_renderer(width=800, height=600)
    screen = start_from_menu(renderer, d, registry)
    wait_turn(d, screen)
    assert_layout_holds(d, screen, (800, 600))
    d.key(pygame.K_a)                                          # the analysis view beside the moves
    rects = assert_layout_holds(d, screen, (800, 600))
    assert "analysis" in rects
    d.click(screen.view.square_center(10))                    # 11-15, and the reply
    d.click(screen.view.square_center(14))
    assert screen.input is None, screen.message
    d.until(lambda: len(screen.moves) == 2 and screen.input is not None, what="the reply")
    d.key(pygame.K_LEFT)                                       # looking back: "Back to the game (End)" shows
    assert screen.review is not None
    assert "button live" in assert_layout_holds(d, screen, (800, 600))
    for w, h in ((640, 480), (300, 200)):                      # smaller: the window stays at its least size
        pygame.event.post(pygame.event.Event(pygame.VIDEORESIZE, w=w, h=h, size=(w, h)))
        assert_layout_holds(d, screen, (800, 600))


def test_the_panel_holds_at_the_end_of_a_game_at_800_by_600(make_renderer, registry):
    renderer, d = make_renderer(width=640, height=480)       # below the least size: the window opens at it
    screen = start_from_menu(renderer, d, registry, position="B:W18:B14")
    wait_turn(d, screen)
    d.click(screen.view.square_center(13))                   # 14x23 takes White's last man
    d.click(screen.view.square_center(22))
    d.until(lambda: screen.over, what="the end of the game")
    d.key(pygame.K_a)
    rects = assert_layout_holds(d, screen, (800, 600))
    assert {"save field", "button save", "button again", "button leave"} <= set(rects)


# ------------------------------------------------------------------ 3. a first run's compiling is told in the window

class CompilingBot(Player):
    """A bot whose first search compiles a numba kernel (a new function: numba really compiles it), then
    thinks until the test lets it move."""

    name = "compiling"
    description = "compiles a kernel, then waits for a go"

    def __init__(self, game, **options):
        super().__init__(game, **options)
        self.go = threading.Event()
        self.compiled = False

    def choose_move(self, state, budget):
        if not self.compiled:
            from numba import njit

            @njit
            def kernel(n):
                return n + 1
            assert kernel(1) == 2
            self.compiled = True
        self.go.wait(10)
        self.go.clear()
        return state.legal_moves()[0]


def test_a_bots_first_move_that_compiles_kernels_says_so_in_the_window(make_renderer, registry):
    bot = CompilingBot(registry.make_game("tictactoe"))
    renderer, d, screen = tictactoe_game(make_renderer, registry, [bot, "human"], width=800, height=600)
    d.until(lambda: "compiling kernels" in screen.message.lower(), what="the compile message")
    assert screen.message == GameScreen.COMPILING and screen.thinking is not None
    assert "(first run only" in screen.message
    d.frames(1)
    assert d.pixel(screen.message_rect.move(3, 3).topleft) == theme.INFO_BOX
    room = screen.message_rect.inflate(-14, -10)                  # the whole message fits its box at 800x600
    assert len(wrap_text(screen.message, 20, room.width)) * (theme.font(20).get_linesize() + 2) <= room.height + 2
    bot.go.set()
    wait_turn(d, screen)
    assert screen.message == ""                                   # answered by the move
    d.click(screen.view.cell_center(free_cell(screen)))            # the next search compiles nothing: no message
    d.until(lambda: screen.thinking is not None, what="the bot thinking")
    d.frames(3)
    assert "compiling" not in screen.message.lower()
    bot.go.set()
    wait_turn(d, screen)


# ------------------------------------------------------------------ 5. captured material in chess

def test_chess_panel_shows_the_pieces_each_side_has_taken(make_renderer, registry):
    game = registry.make_game("chess")
    start = game.new_state("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2")
    bot = GatedBot(game, per_move=True)
    renderer, d = make_renderer(width=800, height=600)
    renderer.start_game(GameSession(game, [registry.make_player("human", game), bot], ("human", "first"),
                                    start=start), from_menu=False)
    screen = renderer.game_screen
    wait_turn(d, screen)
    d.frames(1)
    assert screen.captured_rects[0].width == 0 and screen.captured_rects[1].width == 0   # nothing taken yet
    d.click(screen.view.square_center("e4"))
    d.click(screen.view.square_center("d5"))                   # exd5: White takes a pawn
    d.until(lambda: screen.thinking is not None, what="the bot thinking")
    d.frames(1)
    (white, white_lead), (black, black_lead) = screen._captured()
    assert [p.symbol() for p in white] == ["p"] and white_lead == 1 and black == [] and black_lead == 0
    rect = screen.captured_rects[0]
    assert rect.width > 0 and screen.captured_rects[1].width == 0
    assert screen.panel_rect.contains(rect)
    row_colour = d.pixel((rect.left - 2, rect.centery))
    assert any(d.pixel((x, rect.centery)) != row_colour for x in range(rect.left, rect.right)), "drawn"
    d.key(pygame.K_LEFT)                                       # looking back: before the capture, none shown
    d.frames(1)
    assert screen.captured_rects[0].width == 0
    d.key(pygame.K_END)
    bot.go.set()
    wait_turn(d, screen)
