"""The window's analysis view and hint, stopping a thinking bot, and saving a game mid-way to resume it.

Real pygame events (SDL dummy driver) drive the window; the bots are real
searches, made endless where a test must catch one thinking.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pygame

from plyground.play.resume import load_unfinished
from plyground.play.session import GameSession

from process_table import ctrl_c_as_at_a_terminal, interrupt_when_seen
from quiet_threads import assert_all_ended, threads_now
from renderer_helpers import wait_turn


def _start(renderer, registry, game_name, specs, names=None):
    game = registry.make_game(game_name)
    players = [registry.make_player(spec, game) for spec in specs]
    renderer.start_game(GameSession(game, players, tuple(names or specs)), from_menu=False)
    return game, renderer.game_screen


def _play(driver, screen, move: str) -> None:
    """Click a checkers move such as ``11-15`` (squares numbered from 1, as PDN does)."""
    for square in re.split("[-x]", move):
        driver.click(screen.view.square_center(int(square) - 1))


def test_analysis_view_shows_the_bots_line_and_a_hint_shows_top_moves(make_renderer, registry, tmp_path):
    renderer, d = make_renderer(save_dir=str(tmp_path))
    _, screen = _start(renderer, registry, "checkers",
                       ["human:hint=alphazero,hint_seconds=0.3", "alphabeta:eval=learned,depth=6,book=none"])
    wait_turn(d, screen)
    _play(d, screen, "9-13")                           # the reply leaves Black a choice (no forced capture)
    wait_turn(d, screen)
    assert screen.moves[0] == "9-13" and len(screen.moves) == 2
    d.key(pygame.K_a)                                  # the analysis view, by its key
    assert screen.show_analysis
    title, lines = screen.analysis
    assert title == "alphabeta:eval=learned,depth=6,book=none"   # a search shown, not an opening book's move
    assert any(line.startswith("line: ") and screen.moves[1] in line for line in lines), lines
    assert any("depth 6" in line for line in lines), lines
    d.frames(2)                                        # drawn without error
    d.click(screen.buttons["hint"].rect.center)         # a hint: AlphaZero's top moves with priors
    d.until(lambda: not screen.hinting and screen.analysis[0].startswith("hint"), what="the hint")
    title, lines = screen.analysis
    assert title == "hint from alphazero"
    top = next(line for line in lines if line.startswith("top moves: "))
    assert "prior" in top and "%" in top
    wait_turn(d, screen)                                # the person is asked again, nothing was played
    assert len(screen.moves) == 2
    d.click(screen.buttons["leave"].rect.center)


def test_a_hint_in_a_resumed_game_warms_its_bot_before_its_timed_search(make_renderer, registry, monkeypatch):
    """Issue #73 point 5: the window's first hint after a resume showed a one-move line from 365 nodes: the hint
    bot's first search compiled its kernels inside the hint's 2 seconds.  It is warmed up first, as a bot is
    before its first move, and its timed search is the hint's whole."""
    from plyground.players.alphabeta.player import AlphaBetaPlayer
    from plyground.protocols import GameRecord
    searches = []                               # (player, ply searched, budget), every alpha-beta search
    search = AlphaBetaPlayer.choose_move
    monkeypatch.setattr(AlphaBetaPlayer, "choose_move",
                        lambda self, state, budget=None: searches.append((self, state.ply, budget))
                        or search(self, state, budget))
    game = registry.make_game("checkers")
    record = GameRecord(game="checkers", players=("human", "random"), start=game.new_initial_state().to_text(),
                        moves=["9-13", "22-18"])
    specs = ("human:hint=alphabeta:depth=6,hint_seconds=5", "random:seed=1")
    renderer, d = make_renderer()
    renderer.start_game(GameSession(game, [registry.make_player(s, game) for s in specs], specs, resume=record),
                        from_menu=False)
    screen = renderer.game_screen
    wait_turn(d, screen)
    d.key(pygame.K_h)
    d.until(lambda: not screen.hinting and screen.analysis[0].startswith("hint"), what="the hint")
    assert [(ply, budget.seconds) for _, ply, budget in searches] == [(0, 0.05), (2, 5.0)], searches
    assert searches[0][0] is searches[1][0]          # the hint bot's warm-up, then its hint of the position
    assert any("depth 6" in line for line in screen.analysis[1]), screen.analysis
    d.click(screen.buttons["leave"].rect.center)


def test_take_back_while_the_bot_thinks_stops_it_at_once(make_renderer, registry):
    renderer, d = make_renderer()
    _, screen = _start(renderer, registry, "checkers", ["human", "alphabeta:eval=learned,depth=40,book=none"])
    wait_turn(d, screen)
    before = threads_now()
    _play(d, screen, "11-15")
    d.until(lambda: screen.thinking is not None, what="the bot thinking")
    d.until(lambda: screen.analysis is not None and "thinking" in screen.analysis[0], what="its search shown live")
    assert screen.buttons["undo"].enabled
    d.key(pygame.K_u)
    wait_turn(d, screen)                                     # depth 40: only the take-back ends the search
    assert screen.moves == [] and screen.state.ply == 0      # the person's 11-15 is taken back
    assert screen.analysis is None                           # and the stopped search's "best so far" with it
    assert_all_ended(before, "the bot's search")             # and nothing searches any more
    d.click(screen.buttons["leave"].rect.center)


def test_take_back_after_the_bots_reply_clears_the_taken_back_search(make_renderer, registry):
    """Issue #73 point 5: the bot's finished search of a position taken back is not left in the analysis view."""
    renderer, d = make_renderer()
    _, screen = _start(renderer, registry, "checkers", ["human", "alphabeta:eval=learned,depth=4"])
    wait_turn(d, screen)
    _play(d, screen, "9-13")
    wait_turn(d, screen)
    d.key(pygame.K_a)
    assert screen.analysis[0] == "alphabeta:eval=learned,depth=4"      # the reply's search, shown
    d.key(pygame.K_u)
    d.until(lambda: screen.input is not None and screen.moves == [], what="the moves taken back")
    assert screen.analysis is None and screen.analysis_of is None, screen.analysis
    d.frames(2)                                                        # the empty view drawn without error
    d.click(screen.buttons["leave"].rect.center)


def test_leaving_while_the_bot_thinks_frees_the_cpu_within_a_second(make_renderer, registry):
    from plyground.protocols import Budget
    game = registry.make_game("checkers")    # compile the search first: compiling cannot be stopped
    registry.make_player("mcts", game).choose_move(game.new_initial_state(), Budget(simulations=10))
    renderer, d = make_renderer()
    before = threads_now()
    _, screen = _start(renderer, registry, "checkers", ["mcts:simulations=1000000000",
                                                        "mcts:simulations=1000000000"])
    d.until(lambda: screen.thinking is not None, what="the bot thinking")
    d.frames(5)
    thread = renderer.game_thread
    d.click(screen.buttons["leave"].rect.center)
    assert thread.wait(1.0), "the game thread still runs a second after leaving"
    assert_all_ended(before, "the game left")


def test_save_mid_game_and_resume_it_in_the_window(make_renderer, registry, tmp_path):
    renderer, d = make_renderer(save_dir=str(tmp_path))
    game, screen = _start(renderer, registry, "checkers", ["human", "alphabeta:eval=learned,depth=4"])
    wait_turn(d, screen)
    _play(d, screen, "11-15")
    wait_turn(d, screen)
    d.key(pygame.K_s)                                  # save while the game goes on
    saved = tmp_path / "checkers-saved.pdn"
    assert saved.is_file() and "Saved the game so far" in screen.message
    played = list(screen.moves)
    record = load_unfinished(game, saved)
    assert record.moves == played and not record.finished and record.players[0] == "human"
    assert '[Result "*"]' in saved.read_text() and "[Date " in saved.read_text()
    d.click(screen.buttons["leave"].rect.center)

    renderer2, d2 = make_renderer(save_dir=str(tmp_path))
    players = [registry.make_player(spec, game) for spec in record.players]
    renderer2.start_game(GameSession(game, players, record.players, resume=record), from_menu=False)
    screen2 = renderer2.game_screen
    wait_turn(d2, screen2)
    assert screen2.moves == played and screen2.state.ply == len(played)
    move = screen2.state.move_to_text(screen2.state.legal_moves()[0])
    _play(d2, screen2, move)
    wait_turn(d2, screen2)
    assert screen2.moves[:3] == played + [move]
    d2.key(pygame.K_s)                                 # saved again: the whole game from its start
    assert load_unfinished(game, saved).moves == screen2.moves
    d2.click(screen2.buttons["leave"].rect.center)


def _move_and_save(make_renderer, registry, move: str, **renderer_options):
    """A checkers window, the person (Black) against alpha-beta: ``move``, the bot's answer, then S (save).
    Returns the game, the driver and the game screen."""
    renderer, d = make_renderer(**renderer_options)
    game, screen = _start(renderer, registry, "checkers", ["human", "alphabeta:eval=learned,depth=4"])
    wait_turn(d, screen)
    _play(d, screen, move)
    wait_turn(d, screen)
    d.key(pygame.K_s)
    return game, d, screen


def test_the_menu_offers_a_saved_game_and_resumes_it(make_renderer, registry, tmp_path):
    from renderer_helpers import open_menu
    game = registry.make_game("checkers")
    _, d, screen = _move_and_save(make_renderer, registry, "9-13", save_dir=str(tmp_path))
    played = list(screen.moves)
    d.click(screen.buttons["leave"].rect.center)

    renderer2, d2, menu = open_menu(make_renderer, registry, save_dir=str(tmp_path))
    d2.frames(2)
    button = menu.buttons["resume"]
    assert button.rect.width > 0, "no Resume button though a game is saved"
    d2.click(button.rect.center)
    screen2 = renderer2.game_screen
    assert renderer2.screen is screen2, menu.error
    wait_turn(d2, screen2)
    assert screen2.moves == played and screen2.names == ("human", "alphabeta:eval=learned,depth=4")
    assert load_unfinished(game, tmp_path / "checkers-saved.pdn").moves == played


# --------------------------------------------------------------------------- the saved-games folder

def _plyground(*args, cwd, games, stdin="") -> subprocess.CompletedProcess:
    env = dict(os.environ, PLYGROUND_GAMES=str(games), PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, "-m", "plyground", *args], input=stdin, capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)


def test_a_window_save_resumes_by_name_from_another_folder(make_renderer, registry, tmp_path, monkeypatch):
    games, elsewhere = tmp_path / "games", tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("PLYGROUND_GAMES", str(games))
    _, d, screen = _move_and_save(make_renderer, registry, "11-15")    # no save_dir: the saved-games folder
    assert screen.message.endswith("play on later with --resume checkers-saved.pdn"), screen.message
    played = list(screen.moves)
    d.click(screen.buttons["leave"].rect.center)

    resumed = _plyground("play", "--resume", "checkers-saved.pdn", cwd=elsewhere, games=games, stdin="pdn\nquit\n")
    assert resumed.returncode == 0, resumed.stderr
    assert f"1. 11-15 {played[1]} {{still being played" in resumed.stdout


def test_a_window_save_keeps_a_file_of_another_game_and_picks_a_new_name(make_renderer, registry, tmp_path):
    other = tmp_path / "checkers-saved.pdn"
    other.write_text('[Event "x"]\n[Black "me"]\n[White "you"]\n[Result "*"]\n\n1. 9-13 *\n')
    kept = other.read_bytes()
    game, d, screen = _move_and_save(make_renderer, registry, "11-15", save_dir=str(tmp_path))
    assert "Saved the game so far to checkers-saved-2.pdn" in screen.message, screen.message
    move = screen.state.move_to_text(screen.state.legal_moves()[0])
    _play(d, screen, move)
    wait_turn(d, screen)
    d.key(pygame.K_s)                                  # again: the same new file, brought up to date
    assert "Saved the game so far to checkers-saved-2.pdn" in screen.message, screen.message
    assert other.read_bytes() == kept and not (tmp_path / "checkers-saved-3.pdn").exists()
    assert load_unfinished(game, tmp_path / "checkers-saved-2.pdn").moves == screen.moves
    d.click(screen.buttons["leave"].rect.center)


#: ``plyground ARGS`` that prints "thinking" once a bot's search runs (its thread is named plyground-move-N),
#: so the test knows when to press Ctrl-C; nothing in plyground is changed.
_WATCHED = """
import sys, threading, time
def watch():
    while not any(t.name.startswith("plyground-move-") for t in threading.enumerate()):
        time.sleep(0.02)
    print("thinking", flush=True)
threading.Thread(target=watch, daemon=True).start()
from plyground.cli import main
main(sys.argv[1:])
"""


def test_ctrl_c_in_a_window_game_keeps_it_under_a_new_name(tmp_path):
    games = tmp_path / "games"
    games.mkdir()
    earlier = games / "checkers-saved.pdn"
    earlier.write_text('[Event "x"]\n[Black "me"]\n[White "you"]\n[Result "*"]\n\n1. 11-15 *\n')
    kept = earlier.read_bytes()
    start = tmp_path / "start.pdn"        # Black has moved: the bot, White, thinks at once
    start.write_text('[Event "x"]\n[Black "human"]\n[White "alphabeta:eval=learned,depth=40,book=none"]\n[Result "*"]\n\n'
                     '1. 9-13 *\n')
    env = dict(os.environ, PLYGROUND_GAMES=str(games), PYTHONUNBUFFERED="1", SDL_VIDEODRIVER="dummy")
    proc = subprocess.Popen([sys.executable, "-c", _WATCHED, "play", "--renderer", "pygame", "--resume", str(start),
                             "--move-limit", "3600"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env, cwd=tmp_path, preexec_fn=ctrl_c_as_at_a_terminal)
    rest, _ = interrupt_when_seen(proc, lambda out: "thinking" in out.splitlines(), settle=0.3)
    assert proc.returncode == 130, rest
    second = games / "checkers-saved-2.pdn"
    assert f"The game so far is saved in {second}; plyground play --resume {second.name} plays it on." in rest
    assert earlier.read_bytes() == kept
    from plyground.registry import get_registry
    assert load_unfinished(get_registry().make_game("checkers"), second).moves == ["9-13"]


def _menu_game_after_9_13(make_renderer, registry, tmp_path):
    """A game started from the window's menu at level medium (a quick opponent), 9-13 played and answered:
    (renderer, driver, menu, game screen, the moves so far)."""
    from renderer_helpers import choose, open_menu
    renderer, d, menu = open_menu(make_renderer, registry, save_dir=str(tmp_path))
    choose(d, menu.level_choice, "medium")
    d.click(menu.buttons["start"].rect.center)
    screen = renderer.game_screen
    assert renderer.screen is screen, menu.error
    wait_turn(d, screen)
    _play(d, screen, "9-13")
    wait_turn(d, screen)
    return renderer, d, menu, screen, list(screen.moves)


def test_leaving_a_game_for_the_menu_keeps_it_and_the_menu_says_where(make_renderer, registry, tmp_path):
    """The Menu button in a game going on loses nothing: the moves are kept as Ctrl-C keeps them (one file a
    game, in the saved-games folder), the menu says where, and its Resume plays it on."""
    renderer, d, menu, screen, played = _menu_game_after_9_13(make_renderer, registry, tmp_path)
    d.click(screen.buttons["leave"].rect.center)
    assert renderer.screen is menu
    saved = tmp_path / "checkers-saved.pdn"
    assert menu.notice.startswith("The game you left is saved in checkers-saved.pdn"), menu.notice
    assert load_unfinished(registry.make_game("checkers"), saved).moves == played
    d.frames(2)
    assert menu.buttons["resume"].rect.width > 0                # Resume saved is offered


def _close_box(d) -> None:
    """The window manager's close button: a pygame QUIT event."""
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    d.frames(1)


def test_the_close_box_keeps_a_game_the_menu_started_and_the_terminal_names_the_file(make_renderer, registry,
                                                                                    tmp_path, capsys):
    """Closing the window by its close box (issue #73, point 1) loses nothing of a game started from the menu: it
    is kept as the Menu button keeps it, and the terminal names the file."""
    renderer, d, menu, screen, played = _menu_game_after_9_13(make_renderer, registry, tmp_path)
    _close_box(d)
    assert not renderer.running
    saved = tmp_path / "checkers-saved.pdn"
    assert load_unfinished(registry.make_game("checkers"), saved).moves == played
    assert f"The game so far is saved in {saved}; plyground play --resume {saved}" in capsys.readouterr().err


def test_the_close_box_keeps_the_plies_played_on_in_a_game_resumed_from_the_menu(make_renderer, registry, tmp_path,
                                                                                capsys):
    from renderer_helpers import open_menu
    game = registry.make_game("checkers")
    _, d, screen = _move_and_save(make_renderer, registry, "9-13", save_dir=str(tmp_path))
    d.click(screen.buttons["leave"].rect.center)
    saved = tmp_path / "checkers-saved.pdn"
    before = load_unfinished(game, saved).moves
    renderer, d, menu = open_menu(make_renderer, registry, save_dir=str(tmp_path))
    d.frames(2)
    d.click(menu.buttons["resume"].rect.center)
    screen = renderer.game_screen
    assert renderer.screen is screen, menu.error
    wait_turn(d, screen)
    _play(d, screen, screen.state.move_to_text(screen.state.legal_moves()[0]))
    wait_turn(d, screen)
    played = list(screen.moves)
    assert len(played) == len(before) + 2
    capsys.readouterr()
    _close_box(d)
    assert load_unfinished(game, saved).moves == played
    assert sorted(path.name for path in tmp_path.iterdir()) == [saved.name]      # the same game, brought up to date
    assert f"The game so far is saved in {saved}" in capsys.readouterr().err
