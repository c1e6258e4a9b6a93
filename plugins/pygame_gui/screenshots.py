"""``plyground screenshots``: PNG pictures of the GUI, rendered off-screen (no display needed).

Each scene is built the way the window builds it: the menu through its
widgets, games by feeding a game screen the same messages a game thread
sends, and clicks through the board's own input handling.  The positions
come from seeded games, so the pictures are the same on every run (apart
from the thinking spinner's angle and the save file's time stamp).
"""
from __future__ import annotations

import os
import random
import time
from pathlib import Path

from plyground.clock import Clock, TimeControl
from plyground.match import play_game
from plyground.protocols import Budget, GameRecord, Player
from plyground.registry import get_registry
from plyground.review import GameReview


class _Greedy(Player):
    """Takes the most pieces it can, else plays at random (seeded): a plausible human."""

    name = "greedy"
    description = "screenshot helper"

    def __init__(self, game, seed: int = 0) -> None:
        super().__init__(game)
        self.rng = random.Random(seed)

    def choose_move(self, state, budget):
        legal = state.legal_moves()
        best = max(_taken(m) for m in legal)
        return self.rng.choice([m for m in legal if _taken(m) == best])


def _taken(move) -> int:
    return bin(int(move) >> 10).count("1") if isinstance(move, int) else 0


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
    from .link import GameLink
    from .views import view_for

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

        bot = registry.default_opponent(menu.default_game())
        if "checkers" in registry.names("games"):
            game = registry.make_game("checkers")
            moves, state = _checkers_with_a_double_jump(game)
            screen, link, state = game_scene(game, ("human", bot), {0}, moves)
            link.post("ask", state.clone())
            renderer.step()
            screen.view.show_numbers = True
            inputs = screen.input
            double = max(state.legal_moves(), key=_taken)
            others = [s for s, (side, _) in inputs.pieces.items() if side == 0 and s not in inputs.options]
            if others:
                screen.click_cell(screen.view.square_cell(others[0]))   # not allowed: a capture is compulsory
            screen.input.click(screen.view.square_cell(double & 31))
            snap("checkers-capture.png")

            screen.input.click(screen.view.square_cell(sorted(screen.input.targets())[0]))
            screen.set_message("", "info")
            snap("checkers-multijump.png")

            for seed in range(1, 100):  # a game the "human" wins, for a happier picture
                record_game = play_game(game, [_Greedy(game, seed), registry.make_player(f"random:seed={seed}", game)],
                                        names=("human", "random"))
                if record_game.returns[0] > 0:
                    break
            replay = _replay(game, record_game.moves)
            # With chess clocks (--tc 5m+2), stopped for the picture so that it is the same every run.
            clock = Clock(TimeControl(300, 2))
            clock.left = [187.4, 203.0]
            screen, link, state = game_scene(game, ("human", bot), {0}, replay[:23], clock=clock)
            link.post("thinking", bot)
            renderer.step()
            screen.thinking = (bot, time.monotonic() - 2.4)
            snap("checkers-thinking.png")

            # The analysis view (A) after the bot's reply: its evaluation, depth and line.
            searcher = registry.make_player(bot, game)
            before = game.new_initial_state()
            for move in replay[:23]:
                before.apply(move)
            reply = searcher.choose_move(before.clone(), Budget())
            screen, link, state = game_scene(game, ("human", bot), {0}, replay[:23])
            # as the match runner sends them: the bot's analysis of its position, then its move
            link.post("analysis", bot, searcher.analysis(), game.side_names[before.current_player()])
            text = state.move_to_text(reply)
            state.apply(reply)
            link.post("show", state.clone(), text)
            link.post("ask", state.clone())
            renderer.step()
            screen.show_analysis = True
            snap("checkers-analysis.png")

            # Live analysis (A) while the bot thinks: its search so far, the evaluation bar, the best move's arrow.
            seen: list = []
            searcher.progress = seen.append
            searcher.choose_move(before.clone(), Budget())
            searcher.progress = None
            if len(seen) >= 2:
                screen, link, state = game_scene(game, ("human", bot), {0}, replay[:23])
                link.post("thinking", bot)
                link.post("analysis", f"{bot} thinking", seen[-2], game.side_names[before.current_player()])
                renderer.step()
                screen.thinking = (bot, time.monotonic() - 1.2)
                screen.show_analysis = True
                snap("checkers-live-analysis.png")

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
                link.post("analysis", f"hint from {bot}", searcher.analysis(),
                          game.side_names[shown.current_player()])
            renderer.step()
            screen.view.show_numbers = True
            snap("checkers-review.png")

            screen, link, state = game_scene(game, ("human", "random"), {0}, replay)
            link.post("end", state.clone(), record_game)
            renderer.step()
            screen.save_field.set_text(f"~/plyground-games/checkers-game{game.record_suffix}")  # no time stamp: same picture every run
            snap("checkers-over.png")

        game = registry.make_game("tictactoe")
        for seed in range(1, 100):
            record = play_game(game, [registry.make_player(f"random:seed={seed}", game),
                                      registry.make_player(f"random:seed={seed + 100}", game)],
                               names=("human", "random"))
            if record.returns[0] > 0 and len(record.moves) >= 7:
                break
        screen, link, state = game_scene(game, ("human", "random"), {0}, _replay(game, record.moves))
        link.post("end", state.clone(), record)
        renderer.step()
        screen.save_field.set_text(f"~/plyground-games/tictactoe-game{game.record_suffix}")
        snap("tictactoe.png")
    finally:
        renderer.close()
    return written


def _replay(game, texts):
    state = game.new_initial_state()
    moves = []
    for text in texts:
        move = state.parse_move(text)
        moves.append(move)
        state.apply(move)
    return moves


def _checkers_with_a_double_jump(game):
    """Moves of a seeded game up to a position where Black (to move) has a double jump, mid-game."""
    for seed in range(200):
        rng = random.Random(seed)
        state, moves = game.new_initial_state(), []
        while not state.is_terminal() and state.ply < 60:
            legal = state.legal_moves()
            pieces = sum(len(part.split(",")) for part in state.to_text().split(":")[1:3])   # the two colours' lists
            if state.current_player() == 0 and state.ply >= 12 and pieces >= 15 \
                    and max(map(_taken, legal)) >= 2 and len([m for m in legal if _taken(m)]) >= 2:
                return moves, state
            move = rng.choice(legal)
            moves.append(move)
            state.apply(move)
    raise RuntimeError("no seeded game reached a double jump")


__all__ = ["write_screenshots"]
