"""``plyground screenshots``: PNG pictures of the GUI, rendered off-screen (no display needed).

Each scene is built the way the window builds it: the menu and the position
editor through their widgets, games by feeding a game screen the same
messages a game thread sends (a draw offer's answer by a game thread
itself), and clicks through the board's own input handling.  The positions
come from seeded games, so the pictures are the same on every run (apart
from the thinking spinner's angle and the save file's time stamp).
"""
from __future__ import annotations

import os
import time
from pathlib import Path

from plyground.play.clock import Clock, TimeControl
from plyground.protocols import Budget, GameRecord
from plyground.registry import get_registry
from plyground.play.review import GameReview
from plyground.play.session import GameSession, PlaySettings


def is_screenshot_dir(folder: Path) -> bool:
    """A folder an earlier run wrote: it holds menu.png (always the first picture) and only PNG files."""
    names = [p.name for p in Path(folder).iterdir()]
    return "menu.png" in names and all(name.endswith(".png") for name in names)


def write_screenshots(out: Path, size: tuple[int, int] = (1100, 760)) -> list[Path]:
    import pygame
    if not pygame.display.get_init():
        os.environ["SDL_VIDEODRIVER"] = "dummy"   # render off-screen: no window flashes up
    from .game_screen import GameScreen
    from .renderer import PygameRenderer
    from plyground.screen.link import GameLink
    from plyground.boardview.views import has_view, view_for

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    registry = get_registry()
    renderer = PygameRenderer(width=size[0], height=size[1], bot_delay=0.0)
    written: list[Path] = []

    def snap(name: str) -> None:
        renderer.step()
        renderer.step()
        path = out / name
        pygame.image.save(pygame.display.get_surface(), str(path))
        written.append(path)

    try:
        renderer.open_menu(registry)
        menu = renderer.menu
        snap("menu.png")

        # An option typed wrong (among the advanced options): the field turns red and the Option's own
        # message explains.
        menu.toggle_advanced()
        editor = menu.sides[1].editor
        field = next((w for w in editor.widgets.values() if hasattr(w, "set_text")), None)
        if field is not None:
            saved = field.text
            field.set_text("-5")
            field.focused = True
            snap("menu-options.png")
            field.set_text(saved)
            field.focused = False

        # A long option list (alphazero's) scrolled half way: the fields move, the buttons stay.
        side = menu.sides[1]
        if "alphazero" in side.cycler.choices:
            before = side.cycler.value
            side.cycler.index = side.cycler.choices.index("alphazero")
            side.cycler.on_change(side.cycler.value)
            renderer.step()
            side.editor.scroll.scroll_to(side.editor.scroll.max_offset / 2)
            snap("menu-scrolled.png")
            side.cycler.index = side.cycler.choices.index(before)
            side.cycler.on_change(side.cycler.value)
            side.editor.scroll.scroll_to(0)
        menu.toggle_advanced()

        renderer.show_rules()
        snap("rules.png")
        renderer.show_menu()

        def game_scene(game, names, human_sides, moves_before, *, flip=None, clock=None):
            """A game screen fed the moves of a game, as a game thread would feed it."""
            link = GameLink()
            screen = GameScreen(renderer, link, game, view_for(game), names, human_sides, from_menu=True)
            if flip is not None:
                screen.view.flipped = flip
            renderer.game_screen = renderer.screen = screen
            state = game.new_initial_state()
            record = GameRecord(game=game.name, players=tuple(names), start=state.to_text())
            link.post("start", game, state.clone(), names, record, clock)
            link.post("show", state.clone(), None)
            for move in moves_before:
                text = state.move_to_text(move)
                state.apply(move)
                record.moves.append(text)
                link.post("show", state.clone(), text)
            renderer.step()
            return screen, link, state

        def seeded_game(game, seed: int) -> GameRecord:
            """A game between two random players seeded ``seed`` and ``seed + 100`` (the first named "human")."""
            return GameSession(game, [registry.make_player(f"random:seed={seed}", game),
                                      registry.make_player(f"random:seed={seed + 100}", game)],
                               ("human", "random"), PlaySettings(max_plies=300)).play()

        def finished_game(game, seeds: int = 100):
            """A seeded game (``seeded_game``): the first of ``seeds`` the person wins in at least 7 plies, else the
            longest."""
            best = None
            for seed in range(1, seeds + 1):
                played = seeded_game(game, seed)
                if played.returns[0] > 0 and len(played.moves) >= 7:
                    return played
                if best is None or len(played.moves) > len(best.moves):
                    best = played
            return best

        def game_over(game, record, picture: str) -> None:
            """The end of ``record``, its save field filled in (no time stamp: the same picture every run)."""
            screen, link, state = game_scene(game, ("human", "random"), {0}, _replay(game, record.moves))
            link.post("end", state.clone(), record)
            renderer.step()
            screen.save_field.set_text(f"~/plyground-games/{game.name}-game{game.record_suffix}")
            snap(picture)

        # The default game: a bot thinking, its analysis, live analysis, a review and the end of a game.
        game = menu.default_game()
        bot = registry.default_opponent(game)
        record_game = finished_game(game)
        replay = _replay(game, record_game.moves)
        middle = min(23, len(replay) - 1)        # the position part way the pictures show
        # With chess clocks (--tc 5m+2), stopped for the picture so that it is the same every run.
        clock = Clock(TimeControl(300, 2))
        clock.left = [187.4, 203.0]
        screen, link, state = game_scene(game, ("human", bot), {0}, replay[:middle], clock=clock)
        link.post("thinking", bot)
        renderer.step()
        screen.thinking = (bot, time.monotonic() - 2.4)
        snap(f"{game.name}-thinking.png")

        # The analysis view (A) after the bot's reply: its evaluation, depth and line.
        searcher = registry.make_player(bot, game)
        before = game.new_initial_state()
        for move in replay[:middle]:
            before.apply(move)
        reply = searcher.choose_move(before.clone(), Budget())
        screen, link, state = game_scene(game, ("human", bot), {0}, replay[:middle])
        # as the match runner sends them: the bot's analysis of its position, then its move
        link.post("analysis", bot, searcher.analysis(), game.side_names[before.current_player()])
        text = state.move_to_text(reply)
        state.apply(reply)
        link.post("show", state.clone(), text)
        link.post("ask", state.clone())
        renderer.step()
        screen.show_analysis = True
        snap(f"{game.name}-analysis.png")

        # Live analysis (A) while the bot thinks: its search so far, the evaluation bar, the best move's arrow.
        seen: list = []
        searcher.progress = seen.append
        searcher.choose_move(before.clone(), Budget())
        searcher.progress = None
        if len(seen) >= 2:
            screen, link, state = game_scene(game, ("human", bot), {0}, replay[:middle])
            link.post("thinking", bot)
            link.post("analysis", f"{bot} thinking", seen[-2], game.side_names[before.current_player()])
            renderer.step()
            screen.thinking = (bot, time.monotonic() - 1.2)
            screen.show_analysis = True
            snap(f"{game.name}-live-analysis.png")

        # Reviewing the finished game (plyground play --review FILE): a position part way, analysed.
        link = GameLink()
        review = GameReview(game, record_game)
        review.goto(min(20, review.plies))
        screen = GameScreen(renderer, link, game, view_for(game), ("human", "random"), set(), from_menu=False,
                            review=review, hint=lambda *args: None)
        renderer.game_screen = renderer.screen = screen
        shown = review.state()
        if not shown.is_terminal():
            searcher.choose_move(shown.clone(), Budget())
            screen._hint_ply, screen._hint_position = review.ply, shown.to_text()
            link.post("analysis", f"hint from {bot}", searcher.analysis(), game.side_names[shown.current_player()])
        renderer.step()
        screen.view.show_numbers = screen.view.numbers_by_default
        snap(f"{game.name}-review.png")
        searcher.close()

        # The game report of the reviewed game (R): accuracy, marks and best moves, the graph, a ply picked on it.
        link = GameLink()
        review = GameReview(game, record_game)
        screen = GameScreen(renderer, link, game, view_for(game), ("human", "random"), set(), from_menu=False,
                            review=review, hint=lambda *args: None)
        renderer.game_screen = renderer.screen = screen
        screen.start_report()
        _frames_until(renderer, lambda: screen.report is not None or screen.report_progress is None)
        if screen.report is not None:
            screen.show_ply(next((m.ply + 1 for m in screen.report.moves if m.judgement), review.plies // 2))
            snap(f"{game.name}-report.png")

        game_over(game, record_game, f"{game.name}-over.png")

        # The position editor (the menu's Set up position) on an endgame typed in the menu's Start position field,
        # the palette's second piece chosen.
        if menu.chosen_can_set_up():
            position = _endgame(game, view_for(game), seeded_game)
            if position is not None:
                menu.position.set_text(position.to_text())
                menu.set_up_position()
                editor = renderer.screen.editor
                editor.choose(editor.pieces[1])
                snap(f"{game.name}-editor.png")
                menu.position.set_text("")

        # Every game with a view: what its view does (its scenes), and for the others the end of a game.
        for name in registry.names("games"):
            other = registry.make_game(name)
            if not has_view(other):
                continue
            for scene in view_for(other).scenes():
                screen, link, state = game_scene(other, ("human", bot if name == game.name else "random"), {0},
                                                 _replay(other, scene.moves))
                link.post("ask", state.clone())
                renderer.step()
                screen.view.show_numbers = scene.show_numbers
                for cell in scene.clicks:
                    screen.click_cell(cell)
                snap(f"{name}-{scene.name}.png")
            if name == game.name:
                continue
            game_over(other, finished_game(other, seeds=20), f"{name}.png")

        # A draw offered (Offer draw) to a bot that is ahead, and its answer: the game of the first pictures played on
        # by a game thread, as the menu starts one, the bot playing the side that won it from the first position
        # at or after the pictures' ply where that side is to move, the person the other side.  Last: the other
        # pictures are of screens with no game thread behind them.
        movers = GameReview(game, record_game).movers
        winner = 0 if record_game.returns[0] >= record_game.returns[1] else 1
        ply = next((p for p in range(middle, len(movers)) if movers[p] == winner), None)
        if ply is not None:
            names = (bot, "human") if winner == 0 else ("human", bot)
            resumed = GameRecord(game=game.name, players=names, start=record_game.start,
                                 moves=record_game.moves[:ply], finished=False)
            players = [registry.make_player(name, game) for name in names]
            renderer.start_game(GameSession(game, players, names, resume=resumed), from_menu=True)
            screen = renderer.game_screen
            _frames_until(renderer, lambda: screen.input is not None or screen.over)
            screen.offer_draw()
            _frames_until(renderer, lambda: screen.input is not None or screen.over)
            snap(f"{game.name}-draw-offer.png")
            renderer.game_thread.abandon()
            renderer.game_thread.wait(10)
    finally:
        renderer.close()
    return written


def _frames_until(renderer, condition, seconds: float = 300.0) -> None:
    """Window frames until ``condition()`` holds (a background thread's work shown), or ``seconds`` have passed."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        renderer.step()
        time.sleep(0.05)


def _endgame(game, view, seeded_game, seeds: int = 100):
    """The first position of the seeded games (``seeded_game(game, seed)``) with at most 7 pieces on the board,
    the game going on there; None when none has one."""
    for seed in range(1, seeds + 1):
        state = game.new_initial_state()
        for text in seeded_game(game, seed).moves:
            state.apply(state.parse_move(text))
            if len(view.setup_placement(state)) <= 7 and not state.is_terminal():
                return state
    return None


def _replay(game, texts):
    state = game.new_initial_state()
    moves = []
    for text in texts:
        move = state.parse_move(text)
        moves.append(move)
        state.apply(move)
    return moves


__all__ = ["write_screenshots"]
