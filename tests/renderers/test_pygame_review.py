"""Looking back through games in the pygame window: ``plyground play --review FILE --renderer pygame`` and the
move list of a live game -- Left/Right/Home/End, clicks on moves, Play from here and hints, driven by real pygame
events (SDL dummy driver) on records written by ``plyground match --save``."""
from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pygame
import pytest

from plyground.boardview import theme
from plyground.capabilities import record_reader
from plyground.play.review import open_review
from plyground.play.session import GameSession

from renderer_helpers import saved_random_match, wait_turn

HINTER = "human:hint=alphabeta,hint_seconds=0.3"


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    """A folder with games.pdn (one finished random checkers game) and game.pgn (a random chess game cut at
    40 plies), both written by ``plyground match --save`` with a fixed seed."""
    folder = tmp_path_factory.mktemp("window-review")
    saved_random_match(folder, "games.pdn", seed=1)
    saved_random_match(folder, "game.pgn", seed=1, game="chess", max_plies=40)
    return folder


def _position_after(game, record, plies: int) -> str:
    """The position after the first ``plies`` moves of ``record``, replayed here move by move."""
    return _replayed(game, record.start, record.moves[:plies])


def _replayed(game, start: str, moves) -> str:
    state = game.new_state(start) if start else game.new_initial_state()
    for text in moves:
        state.apply(state.parse_move(text))
    return state.to_text()


def _open(make_renderer, registry, path: Path, game_name: str, **options):
    """(renderer, driver, screen, review) of a window (renderer ``options``) reviewing the last game of ``path``."""
    game = registry.make_game(game_name)
    review = open_review(game, path)
    renderer, d = make_renderer(**options)
    hinter = registry.make_player(HINTER, game)
    hinter.renderer = renderer
    renderer.open_review(review, hinter.hint)
    d.frames(1)
    return renderer, d, renderer.game_screen, review


def _corner(view, square: int) -> tuple[int, int]:
    """A point of 0-based checkers square ``square`` outside its piece and its number (top left)."""
    rect = view.cell_rect(view.square_cell(square))
    return rect.right - 5, rect.bottom - 5


def _checkers_squares(move: str) -> tuple[int, int]:
    """The 0-based from and to squares of a checkers move such as ``22x15x8``."""
    squares = [int(s) - 1 for s in re.split("[-x]", move)]
    return squares[0], squares[-1]


def _framed(d, screen, ply: int) -> bool:
    """Whether the move list draws move ``ply`` framed (the move whose position the board shows)."""
    rect = screen.move_rects[ply]
    return d.pixel((rect.left + 1, rect.centery)) == theme.SHOWN_MOVE


def test_keys_and_clicks_on_moves_step_through_a_recorded_checkers_game(make_renderer, registry, saved):
    renderer, d, screen, review = _open(make_renderer, registry, saved / "games.pdn", "checkers")
    game, record, view = review.game, review.record, screen.view
    plies = len(record.moves)
    assert record.finished and plies > 12
    shown = lambda: screen.shown_state.to_text()                              # noqa: E731
    assert shown() == _position_after(game, record, 0)                        # it opens on the start position
    assert record.result_text in screen._status_text()
    for _ in range(3):
        d.key(pygame.K_RIGHT)
    assert shown() == _position_after(game, record, 3)
    frm, to = _checkers_squares(record.moves[2])                              # move 3 marked as a live game marks it
    assert d.pixel(_corner(view, frm)) == d.pixel(_corner(view, to)) == theme.HIGHLIGHT["last"]
    assert _framed(d, screen, 3) and not _framed(d, screen, 2)
    d.key(pygame.K_LEFT)
    assert shown() == _position_after(game, record, 2) and _framed(d, screen, 2)
    d.key(pygame.K_HOME)
    assert shown() == _position_after(game, record, 0)
    assert not any(_framed(d, screen, ply) for ply in screen.move_rects)
    frm, _ = _checkers_squares(record.moves[0])
    assert d.pixel(_corner(view, frm)) == theme.DARK_SQUARE                  # no last move at the start
    d.key(pygame.K_LEFT)                                                     # already at the start: stays
    assert shown() == _position_after(game, record, 0)
    d.key(pygame.K_END)
    assert shown() == _position_after(game, record, plies) and screen.shown_state.is_terminal()
    assert _framed(d, screen, plies)                                          # the last move is in view and framed
    d.key(pygame.K_RIGHT)
    assert shown() == _position_after(game, record, plies)
    target = min(screen.move_rects)                                           # the first move the list shows
    d.click(screen.move_rects[target].center)
    assert shown() == _position_after(game, record, target) and _framed(d, screen, target)
    # The board takes no moves in a review, and Play from here needs a position that is not the end.
    d.click(view.square_center(frm))
    assert "Play from here" in screen.message and shown() == _position_after(game, record, target)
    d.key(pygame.K_END)
    d.key(pygame.K_p)
    assert screen.play_from is None and renderer.running
    assert screen.message.startswith("The game is over here (") and "step back" in screen.message
    d.click(screen.buttons["leave"].rect.center)                              # Close: nothing to play
    assert not renderer.running and screen.play_from is None


def test_a_hint_searches_the_position_shown(make_renderer, registry, saved):
    renderer, d, screen, review = _open(make_renderer, registry, saved / "games.pdn", "checkers")
    for _ in range(5):
        d.key(pygame.K_RIGHT)
    d.click(screen.buttons["hint"].rect.center)
    # Hint is off while it searches (on a loaded machine the frames of the click may outlast the search)
    assert not (screen.hinting and screen.buttons["hint"].enabled)
    d.until(lambda: not screen.hinting and screen.analysis is not None, what="the hint")
    title, lines = screen.analysis
    assert title == "hint from alphabeta at ply 5" and screen.show_analysis
    best = next(line for line in lines if line.startswith("best move ")).split()[2]
    legal = {review.position(5).move_to_text(m) for m in review.position(5).legal_moves()}
    assert best in legal, (best, legal)                                       # a move of ply 5's position


def test_a_recorded_chess_game_opens_from_its_pgn(make_renderer, registry, saved):
    renderer, d, screen, review = _open(make_renderer, registry, saved / "game.pgn", "chess", height=520)
    game, record, view = review.game, review.record, screen.view
    assert len(record.moves) == 40 and screen.moves == record.moves
    d.key(pygame.K_END)
    d.key(pygame.K_LEFT)
    assert screen.shown_state.to_text() == _position_after(game, record, 39)
    move = review.position(38).parse_move(record.moves[38])
    for square in (move.from_square, move.to_square):
        rect = view.cell_rect(view.square_cell(square))
        assert d.pixel((rect.left + 3, rect.top + 3)) == theme.HIGHLIGHT["last"], square
    assert _framed(d, screen, 39) and 1 not in screen.move_rects               # a long list shows its end ...
    d.key(pygame.K_HOME)
    d.click(screen.move_rects[2].center)                                      # ... and its start when looked at
    assert screen.shown_state.to_text() == _position_after(game, record, 2) and _framed(d, screen, 2)
    d.key(pygame.K_RIGHT)
    assert screen.shown_state.to_text() == _position_after(game, record, 3) and _framed(d, screen, 3)


def test_play_from_here_starts_a_game_from_the_position_shown_with_the_command_lines_players(
        registry, saved, tmp_path, monkeypatch):
    """``plyground play --review F --renderer pygame``: three steps on, P, and the players of --black/--white play
    a new game from there in the same window; --save keeps it."""
    from plyground.cli import main
    from plyground.plugins.pygame_gui import PygameRenderer

    def run(self):   # the window's loop, with a person's keys: Right three times and P; Close when the game ends
        self.running = True
        while self.running:
            screen = self.game_screen
            if screen.reviewing and not screen.review.ply:
                for key in (pygame.K_RIGHT, pygame.K_RIGHT, pygame.K_RIGHT, pygame.K_p):
                    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode=""))
            elif not screen.reviewing and screen.record is not None:
                pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=screen.buttons["leave"].rect.center,
                                                     button=1))
            self.step()
            time.sleep(0.001)   # a frame's pause, as the real loop's clock gives: a busy loop starves the game thread
    monkeypatch.setattr(PygameRenderer, "run", run)
    monkeypatch.setenv("PLYGROUND_GAMES", str(tmp_path / "games"))
    save = tmp_path / "new.pdn"
    try:
        main(["play", "--review", str(saved / "games.pdn"), "--renderer", "pygame:bot_delay=0",
              "--black", "random:seed=1", "--white", "random:seed=2", "--save", str(save)])
    except SystemExit as exc:
        assert exc.code in (0, None)
    game = registry.make_game("checkers")
    reviewed = record_reader(game)((saved / "games.pdn").read_text())[-1]
    [played] = record_reader(game)(save.read_text())
    assert played.players == ("random:seed=1", "random:seed=2") and played.finished
    start = game.new_state(played.start)
    assert start.to_text() == _position_after(game, reviewed, 3) and played.moves
    assert f"\n2... {played.moves[0]} 3. " in save.read_text()     # White's move 2: the review's numbers go on


def test_the_move_limit_holds_for_a_game_in_the_window(registry, tmp_path, monkeypatch):
    """``plyground play --renderer pygame ... --move-limit 1``: a bot that would think for a billion simulations
    forfeits after its second, as at the console (the window used to drop the flag and wait 300 s)."""
    from plyground.cli import main
    from plyground.plugins.pygame_gui import PygameRenderer

    def run(self):   # the window's loop; Close once the game has ended
        self.running = True
        while self.running:
            if self.game_screen is not None and self.game_screen.record is not None:
                self.running = False
            self.step()
            time.sleep(0.001)
    monkeypatch.setattr(PygameRenderer, "run", run)
    monkeypatch.setenv("PLYGROUND_GAMES", str(tmp_path / "games"))
    save = tmp_path / "limit.pdn"
    try:
        main(["play", "--renderer", "pygame:bot_delay=0", "--black", "mcts:simulations=1000000000",
              "--white", "random:seed=1", "--move-limit", "1", "--save", str(save)])
    except SystemExit as exc:
        assert exc.code in (0, None)
    [played] = record_reader(registry.make_game("checkers"))(save.read_text())
    assert played.finished and played.moves == [] and played.score(0) == 0.0
    assert "exceeded its 1 s move limit" in save.read_text()          # the reason, as the record's comment


def test_the_live_move_list_looks_back_read_only_and_end_returns(make_renderer, registry):
    renderer, d = make_renderer()
    game = registry.make_game("checkers")
    players = [registry.make_player(spec, game) for spec in ("human", "random:seed=1")]
    renderer.start_game(GameSession(game, players, ("human", "random:seed=1")), from_menu=False)
    screen = renderer.game_screen
    view = screen.view

    def play(move: str) -> None:
        """Click ``move`` (every square of it), then wait for the reply."""
        plies = len(screen.moves) + 2
        for square in re.split("[-x]", move):
            d.click(view.square_center(int(square) - 1))
        d.until(lambda: len(screen.moves) == plies and screen.input is not None, what="the reply")

    def after(plies: int) -> str:
        return _replayed(game, screen.start_text, screen.moves[:plies])

    wait_turn(d, screen)
    play("9-13")
    play(screen.state.move_to_text(screen.state.legal_moves()[0]))
    live = screen.state.to_text()
    d.key(pygame.K_LEFT)                                                    # one back: ply 3 of 4
    assert screen.shown_state.to_text() == after(3) and _framed(d, screen, 3)
    assert screen.state.to_text() == live and screen.input is not None     # the game waits, as it was
    assert not screen.buttons["hint"].enabled and screen.buttons["live"].rect.width
    piece = _checkers_squares(screen.moves[2])[1]                          # Black's man that moved at ply 3
    d.click(view.square_center(piece))
    assert "looking back at ply 3 of 4" in screen.message
    assert screen.input.selected is None and len(screen.moves) == 4        # nothing was picked up, nothing played
    d.click(screen.move_rects[1].center)
    assert screen.shown_state.to_text() == after(1)
    d.key(pygame.K_RIGHT)
    d.key(pygame.K_RIGHT)
    d.key(pygame.K_RIGHT)                                                   # at the last move: the live game again
    assert screen.review is None and screen.shown_state is screen.state
    d.key(pygame.K_HOME)
    assert screen.shown_state.to_text() == after(0)
    d.key(pygame.K_END)
    assert screen.review is None
    play(screen.state.move_to_text(screen.state.legal_moves()[0]))          # moves are made again
    assert len(screen.moves) == 6
    d.click(screen.buttons["leave"].rect.center)


def test_moves_played_while_looking_back_keep_the_position_shown(make_renderer, registry):
    renderer, d = make_renderer(bot_delay=0.05)                              # bots a person can follow
    game = registry.make_game("checkers")
    players = [registry.make_player(spec, game) for spec in ("random:seed=1", "random:seed=2")]
    renderer.start_game(GameSession(game, players, ("random:seed=1", "random:seed=2")), from_menu=False)
    screen = renderer.game_screen
    d.until(lambda: len(screen.moves) >= 2, what="two moves")
    d.key(pygame.K_HOME)
    looked_back_at = len(screen.moves)
    d.until(lambda: screen.over, what="the end of the game")
    d.frames(1)
    assert len(screen.moves) > looked_back_at                                # the game went on meanwhile ...
    assert screen.shown_state.to_text() == _replayed(game, screen.start_text, [])    # ... the start stayed shown
    assert screen.review.plies == len(screen.moves) and not any(_framed(d, screen, p) for p in screen.move_rects)
    d.key(pygame.K_END)
    assert screen.review is None and screen.shown_state is screen.state and screen.state.is_terminal()


def test_back_and_forward_buttons_step_through_a_recorded_game(make_renderer, registry, saved):
    """The keys have buttons too, each labelled with its key, off where there is no step to take."""
    renderer, d, screen, review = _open(make_renderer, registry, saved / "games.pdn", "checkers")
    game, record = review.game, review.record
    back, forward = screen.buttons["back"], screen.buttons["forward"]
    d.frames(1)
    assert back.rect.width > 0 and forward.rect.width > 0                     # drawn in the panel
    assert "(Left)" in back.label and "(Right)" in forward.label
    assert not back.enabled and forward.enabled                               # at the start
    d.click(forward.rect.center)
    d.click(forward.rect.center)
    assert screen.shown_state.to_text() == _position_after(game, record, 2)
    d.click(back.rect.center)
    assert screen.shown_state.to_text() == _position_after(game, record, 1) and back.enabled
    d.key(pygame.K_END)
    d.frames(1)
    assert not forward.enabled
    d.click(screen.buttons["leave"].rect.center)


def test_an_analysed_game_shows_its_marks_in_the_move_list_and_its_evaluation_and_best_move(make_renderer, registry,
                                                                                            saved, tmp_path):
    """Issue #73, point 4: what ``plyground analyse`` wrote, reviewed in the window: the move list marks each judged
    move (20-16??), and the message box gives the move's evaluation and the engine's best move."""
    (tmp_path / "games.pdn").write_text((saved / "games.pdn").read_text())
    done = subprocess.run([sys.executable, "-m", "plyground", "analyse", "games.pdn", "--engine",
                           "alphabeta:depth=3,eval=material", "--no-graph", "--quiet"], capture_output=True,
                          text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    number, dots, move, mark, best = re.search(r"^(\d+)(\.{1,3}) (\S+?)(\?\?|\?!|\?) +\w+ +.* best (\S+)$",
                                               done.stdout + done.stderr, re.M).groups()
    ply = 2 * int(number) - (1 if dots == "." else 0)          # Black moves first in checkers
    renderer, d, screen, review = _open(make_renderer, registry, tmp_path / "games.analysed.pdn", "checkers")
    for _ in range(ply):
        d.key(pygame.K_RIGHT)
    assert (ply, move + mark) in [entry for _, pair in screen.move_lines() for entry in pair]
    shown, _ = screen._message_shown()                         # the message box: where the review stands
    assert f"after {move}{mark} by " in shown and f"Best: {best}." in shown and " \u2014 evaluation " in shown, shown
    d.click(screen.buttons["leave"].rect.center)
