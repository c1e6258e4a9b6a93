"""The main menu: the game, its level and clock, a player for each side and their options (the fields are
``option_editor.py``'s), the start position (typed, or set up by clicks: Set up position opens
``editor_screen.py``'s screen), Start, Resume and Open game; the pages it opens (Rules, Open game) are
``pages.py``'s.  What it offers and the game it starts are the menu's model's (:mod:`plyground.screen.menu`),
shared with the web page's start page."""
from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import pygame

from plyground.boardview.editor import PositionEditor
from plyground.boardview.views import view_for
from plyground.play.clock import TimeControl
from plyground.errors import PlygroundError
from plyground.levels import DEFAULT_LEVEL, level_table
from plyground.options import Spec, resolve_options
from plyground.protocols import Game, GameRecord
from plyground.screen.menu import CLOCK_LABELS, MenuModel

from . import theme
from .editor_screen import EditorScreen
from .option_editor import Field, OptionEditor
from .pages import OpenGameScreen
from .widgets import Button, Cycler, TextField, draw_text, draw_wrapped, is_click

if TYPE_CHECKING:
    from plyground.registry import Registry

    from .renderer import PygameRenderer


#: The Level choice when the players are not those of a level (chosen by hand, or options changed).
CUSTOM = "custom"


class SideChoice:
    """A side's player: which plugin, and its option fields (kept per game and plugin while the menu lives)."""

    def __init__(self, menu: "MenuScreen", side: int) -> None:
        self.menu, self.side = menu, side
        self.cycler = Cycler([], on_change=self._picked)
        self.editors: dict[tuple[str, str], OptionEditor] = {}
        self.picked = False   # the person chose this player: it stays when the game changes (if it can play)

    def _picked(self, _name: str) -> None:
        self.picked = True

    def set_players(self, names: list[str], preferred: str) -> None:
        current = self.cycler.value
        keep = self.picked and current in names
        pick = current if keep else preferred if preferred in names else names[0] if names else ""
        self.cycler.choices = names
        self.cycler.index = names.index(pick) if pick in names else 0
        self.picked = keep

    @property
    def player(self) -> str:
        return self.cycler.value

    @property
    def editor(self) -> OptionEditor:
        """The player's fields for the chosen game, filled in with what the game recommends for it."""
        key = (self.menu.game_name, self.player)
        if key not in self.editors:
            entry = self.menu.registry.get("players", self.player)
            self.editors[key] = OptionEditor(entry.options, f"player {self.player}",
                                             self.menu.recommended_options(self.player))
        return self.editors[key]

    def spec(self) -> Spec:
        return Spec(self.player, self.editor.changed())

    def use(self, spec: Spec) -> None:
        """Play ``spec`` (a level's player): that player, its fields filled in with the spec's options."""
        if spec.name not in self.cycler.choices:
            return
        self.cycler.index = self.cycler.choices.index(spec.name)
        self.picked = False      # the level's choice, not the person's: a new game's level replaces it
        entry = self.menu.registry.get("players", spec.name)
        self.editors[(self.menu.game_name, spec.name)] = OptionEditor(entry.options, f"player {spec.name}",
                                                                      dict(spec.options))


class MenuScreen(MenuModel):
    def __init__(self, app: "PygameRenderer", registry: "Registry") -> None:
        super().__init__(app, registry)
        preferred = registry.default_game(self.games)
        self.game_choice = Cycler(self.games, self.games.index(preferred) if preferred else 0,
                                  on_change=lambda _: self._game_changed())
        self.game_editors: dict[str, OptionEditor] = {}
        self.sides = [SideChoice(self, 0), SideChoice(self, 1)]
        # How strong the computer plays (plyground.levels): the level chosen for each game, kept while the
        # menu lives; CUSTOM once the players are not the level's.
        self.level_choice = Cycler([], on_change=self._level_picked)
        self.levels_chosen: dict[str, str] = {}
        self.clock_choice = Cycler(list(CLOCK_LABELS))
        self.advanced = False         # the game's and the players' own options are shown
        self.position = TextField("start position", "", validate=self._check_position, placeholder="(the usual start)",
                                  help="a position in the game's notation (FEN for checkers); empty: the usual "
                                  "start. Set up position sets one up by clicks on a board")
        self.buttons = {
            "rules": Button("Rules & help", self.app.show_rules),
            "advanced": Button("Advanced options", self.toggle_advanced),
            "start": Button("Start", self.start, primary=True),   # Enter starts too (handle_event)
            "resume": Button("Resume saved", self.resume),          # shown when a saved game waits
            "open": Button("Open game", self.open_game),             # review a recorded game
            "setup": Button("Set up position", self.set_up_position),   # for a game whose view has setup pieces
            "quit": Button("Quit", self.app.request_quit),
        }
        self.mouse: tuple[int, int] | None = None   # the last pointer position seen (wheel events carry none)
        self._reveal: Field | None = None           # a field to scroll into view at the next layout
        self.message_rect = pygame.Rect(0, 0, 0, 0)
        self.size = (0, 0)
        self._game_changed()

    # ------------------------------------------------------------ model
    @property
    def game_name(self) -> str:
        return self.game_choice.value

    @property
    def game_editor(self) -> OptionEditor:
        name = self.game_name
        if name not in self.game_editors:
            self.game_editors[name] = OptionEditor(self.registry.get("games", name).options, f"game {name}")
        return self.game_editors[name]

    def default_game(self) -> Game | None:
        """The chosen game with default options (for listing players and checking positions)."""
        return self.game(self.game_name) if self.game_name else None

    def recommended_options(self, player: str) -> dict[str, str]:
        """The options the chosen game's ``default_opponents`` give ``player`` (checkers: alphabeta with
        ``eval=learned,depth=8``); none for a player they do not name."""
        game = self.default_game()
        for text in game.default_opponents if game is not None else ():
            spec = Spec.parse(text)
            if spec.name == player:
                return dict(spec.options)
        return {}

    def _game_changed(self) -> None:
        self.error = ""
        game = self.default_game()
        if game is None:
            return
        players = self.players_for(game)       # those that can play it as they are
        self.sides[0].set_players(players, "human")
        # The same opponent as `plyground play` (its options come with it: recommended_options), then the
        # game's level in its place (the person's own choice of player stays).
        self.sides[1].set_players(players, Spec.parse(self.registry.default_opponent(game)).name)
        levels = list(level_table(game))
        self.level_choice.choices = levels + [CUSTOM] if levels else []
        chosen = self.levels_chosen.get(self.game_name, DEFAULT_LEVEL if DEFAULT_LEVEL in levels else CUSTOM)
        self.level_choice.index = self.level_choice.choices.index(chosen) if levels else 0
        self._apply_level([s for s in self.sides if s.player != "human" and not s.picked])
        self.position.set_text("")

    # ------------------------------------------------------------ level and clock
    @property
    def level(self) -> str:
        """The chosen level ("" when the game has none)."""
        return self.level_choice.value

    def level_spec(self) -> Spec | None:
        """The player the chosen level means here (None for CUSTOM, or when none of its players is installed)."""
        game = self.default_game()
        if game is None or self.level in ("", CUSTOM):
            return None
        return self.levels(game).get(self.level)

    def _level_picked(self, level: str) -> None:
        self.levels_chosen[self.game_name] = level
        # The computer's sides take the level (the second side when both are people: a level means a bot).
        self._apply_level([s for s in self.sides if s.player != "human"] or [self.sides[1]])

    def _apply_level(self, sides: list[SideChoice]) -> None:
        spec = self.level_spec()
        if spec is not None:
            for side in sides:
                side.use(spec)

    def _check_level(self) -> None:
        """The Level choice says CUSTOM once the computer's players are not the chosen level's."""
        spec = self.level_spec()
        if spec is None:
            return
        bots = [side.spec() for side in self.sides if side.player != "human"]
        if not bots or any(not self._same_player(bot, spec) for bot in bots):
            self.level_choice.index = self.level_choice.choices.index(CUSTOM)
            self.levels_chosen[self.game_name] = CUSTOM

    def _same_player(self, one: Spec, other: Spec) -> bool:
        """The same player with the same option values (as read: ``2`` and ``2.0`` seconds are one)."""
        if one.name != other.name:
            return False
        declared = self.registry.get("players", one.name).options
        try:
            return resolve_options(declared, one.options, one.name) == resolve_options(declared, other.options,
                                                                                         other.name)
        except PlygroundError:      # a field being typed in: not the level's
            return False

    def chosen_clock(self) -> TimeControl | None:
        """The chosen clock, read as ``--tc`` reads it; None for no clock."""
        return self.time_control(self.clock_choice.value)

    def toggle_advanced(self) -> None:
        self.advanced = not self.advanced
        self.buttons["advanced"].label = "Hide advanced" if self.advanced else "Advanced options"

    def _check_position(self, text: str) -> str | None:
        try:
            self.read_position(self.default_game(), text)
        except PlygroundError as exc:
            return str(exc)
        return None

    def _bad_fields(self) -> list[TextField]:
        return [w for w in self._fields(everything=True) if isinstance(w, TextField) and w.error]

    def errors(self) -> list[str]:
        return [w.error for w in self._bad_fields()]

    def start(self) -> None:
        """Build the game and the players from the fields and begin (errors stay in the menu, the first
        wrong field focused and scrolled into view)."""
        self.notice = ""
        for w in self._fields():
            w.focused = False
        if not self.buttons["start"].enabled:
            return
        bad = self._bad_fields()
        if bad:
            if bad[0] not in self._fields():
                self.toggle_advanced()   # a wrong value among the hidden options: shown, to be put right
            self.error = bad[0].error
            bad[0].focused = True
            self._reveal = bad[0]
            return
        players = []
        try:
            self._show_progress("Starting\u2026")
            game = self.registry.make_game(Spec(self.game_name, self.game_editor.changed()))
            start = self.read_position(game, self.position.text)
            specs = [side.spec() for side in self.sides]
            for spec in specs:
                if not self.registry.get("players", spec.name).cls.needs_renderer:
                    self._show_progress(f"Starting\u2026 (loading {spec.name})")
                players.append(self.registry.make_player(spec, game))
        except Exception as exc:  # noqa: BLE001 - a plugin's own failure is shown, not a crash of the window
            for p in players:
                p.close()
            self.error = str(exc) if isinstance(exc, PlygroundError) else f"{type(exc).__name__}: {exc}"
            self.app.show_menu()   # from a game's "Play again": the message is here
            return
        finally:
            self.progress = ""
        self.error = ""
        self.app.start_game(self.new_session(game, players, specs, time_control=self.chosen_clock(), start=start),
                            from_menu=True)

    def chosen_saved_game(self) -> tuple[Path, GameRecord] | None:
        """The newest unfinished game saved for the chosen game (the model's :meth:`saved_game`), if any."""
        game = self.default_game()
        return self.saved_game(game) if game is not None else None

    def resume(self) -> None:
        """Play on the saved unfinished game, with its own players (the menu's where the file names none)."""
        saved = self.chosen_saved_game()
        if saved is None:
            return
        path, record = saved
        players = []
        try:
            game = self.registry.make_game(self.game_name)
            specs = [name if name and name != "?" else str(side.spec())
                     for name, side in zip(record.players, self.sides)]
            for spec in specs:
                self._show_progress(f"Resuming {path.name}\u2026 (loading {Spec.parse(spec).name})")
                players.append(self.registry.make_player(spec, game))
        except Exception as exc:  # noqa: BLE001 - shown in the menu, as start() does
            for p in players:
                p.close()
            self.error = f"cannot resume {path.name}: {exc}"
            return
        finally:
            self.progress = ""
        self.error = ""
        self.app.start_game(self.new_session(game, players, specs, resume=record), from_menu=True)

    def open_game(self) -> None:
        """Open game: the screen choosing a record file of the chosen game to review."""
        game = self.default_game()
        if game is None:
            return
        self.app.screen = OpenGameScreen(self.app, game, self.record_files(game))

    def chosen_can_set_up(self) -> bool:
        """Whether the chosen game has a position editor (its view names pieces to set up)."""
        game = self.default_game()
        return game is not None and self.can_set_up(game)

    def set_up_position(self) -> None:
        """Set up position: the position editor, on the Start position field's position when it holds a valid
        one (else the usual start); its Play comes back here with the position in that field."""
        if not self.chosen_can_set_up():
            return
        game = self.default_game()
        start = self.position.text if self.position.error is None else None
        self.app.screen = EditorScreen(self.app, PositionEditor(game, view_for(game), start))

    def _show_progress(self, text: str) -> None:
        """Put ``text`` on the screen now: what follows (loading a network, compiling a search) takes seconds
        in this thread, with no frame drawn meanwhile."""
        self.progress = text
        surface, screen = pygame.display.get_surface(), self.app.screen
        if surface is None:
            return
        if screen is not self and screen is self.app.game_screen and screen is not None:   # "Play again"
            screen.set_message(text, "info")
            screen.draw(surface)
        else:
            self.draw(surface)
        pygame.display.flip()
        pygame.event.pump()

    # ------------------------------------------------------------ events
    def _fields(self, *, everything: bool = False) -> list[Field]:
        """The fields shown (``everything``: the advanced options too, shown or not), in Tab order: the game,
        its level and clock, its options, each side's player and its options, the start position."""
        advanced = self.advanced or everything
        fields: list[Field] = [self.game_choice] + ([self.level_choice] if self.level_choice.choices else [])
        fields += [self.clock_choice, *(self.game_editor.widgets.values() if advanced else ())]
        for side in self.sides:
            fields.append(side.cycler)
            if side.player and advanced:
                fields += side.editor.widgets.values()
        return fields + [self.position]

    def _focused(self) -> Field | None:
        return next((w for w in self._fields() if w.focused), None)

    def handle_event(self, event: pygame.event.Event) -> None:
        if hasattr(event, "pos"):
            self.mouse = event.pos
        if event.type == pygame.KEYDOWN and event.key == pygame.K_TAB:
            self._tab(-1 if event.mod & pygame.KMOD_SHIFT else 1)
            return
        if event.type == pygame.KEYDOWN and event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            self.start()   # also from a text field: the menu's errors are shown instead when there are any
            return
        for side in self.sides:
            if self.advanced and side.player and side.editor.scroll.handle_event(event, self.mouse):
                return
        for button in self.buttons.values():
            if button.handle_event(event):
                return
        consumed = False
        for w in self._fields():  # every field sees clicks, so focus moves away from the others
            consumed = w.handle_event(event) or consumed
        if is_click(event):
            self._reveal = self._focused()   # a field half scrolled out of view comes fully in
        if consumed and self.error and not self.errors():
            self.error = ""

    def _tab(self, direction: int) -> None:
        fields = self._fields()
        focused = self._focused()
        at = fields.index(focused) if focused is not None else (-1 if direction > 0 else 0)
        for w in fields:
            w.focused = False
        target = fields[(at + direction) % len(fields)]
        target.focused = True
        self._reveal = target

    def focused_help(self) -> str:
        if self.game_choice.focused:
            return "Game: Left and Right choose it; Tab moves to the next field, Enter starts."
        if self.level_choice.focused:
            spec = self.level_spec()
            plays = f"the computer plays {spec}" if spec is not None else "the players and options chosen below"
            return (f"Level {self.level}: {plays}. Easy, medium, hard and strongest choose the computer's player "
                    "and its options (docs/gui.md lists them); Left and Right change it.")
        if self.clock_choice.focused:
            control = self.chosen_clock()
            return ("Clock: " + (f"each side has a clock, as --tc {control} gives it (seconds for the game, plus "
                                 "seconds added after each move); a side whose time runs out loses"
                                 if control else "no clock: every side thinks as long as it likes")
                    + ". Left and Right change it.")
        game = self.default_game()
        for index, side in enumerate(self.sides):
            if side.cycler.focused and side.player:
                side_name = game.side_names[index] if game else f"side {index + 1}"
                description = self.registry.get("players", side.player).description
                return f"{side_name}, {side.player}: {description} Left and Right choose another player."
        for editor in [self.game_editor] + [s.editor for s in self.sides if s.player]:
            text = editor.focused_help()
            if text:
                return text
        if self.position.focused:
            return self.position.help
        return ""

    # ------------------------------------------------------------ drawing
    def update(self) -> None:
        self.buttons["start"].enabled = bool(self.game_name) and all(s.player for s in self.sides)
        self._check_level()

    def draw(self, surface: pygame.Surface) -> None:
        self.size = surface.get_size()
        w, h = self.size
        surface.fill(theme.BACKGROUND)
        m = max(16, w // 40)
        title = draw_text(surface, "plyground", (m, m), 56, theme.TITLE)
        draw_text(surface, "board games against plug-in AI players", (title.right + 16, title.bottom - 8), 20,
                  theme.TEXT_DIM, anchor="bottomleft")

        y = title.bottom + 14
        draw_text(surface, "Game", (m, y + 17), 24, anchor="midleft")
        self.game_choice.rect = pygame.Rect(m + 90, y, min(320, w // 3), 34)
        self.game_choice.draw(surface)
        entry = self.registry.get("games", self.game_name) if self.game_name else None
        if entry is not None:
            draw_wrapped(surface, entry.description, pygame.Rect(self.game_choice.rect.right + 16, y + 2,
                                                                 w - self.game_choice.rect.right - 16 - m, 36),
                         18, theme.TEXT_DIM)
        y += 44
        x = m
        for label, cycler in (("Level", self.level_choice), ("Clock", self.clock_choice)):
            if not cycler.choices:
                cycler.rect = pygame.Rect(0, 0, 0, 0)
                continue
            label_rect = draw_text(surface, label, (x, y + 17), 24, anchor="midleft")
            cycler.rect = pygame.Rect(label_rect.right + 12, y, min(230, w // 4), 34)
            cycler.draw(surface)
            x = cycler.rect.right + 24
        advanced = self.buttons["advanced"]
        advanced.rect = pygame.Rect(0, 0, min(200, w - x - m), 34)
        advanced.rect.topright = (w - m, y)
        advanced.draw(surface)
        y += 44
        bottom_reserved = 150
        row_h = 34 if h >= 720 else 30
        game_opts = self.game_editor.options
        col_w = (w - 3 * m) // 2
        if game_opts and self.advanced:  # game options in two columns
            half = math.ceil(len(game_opts) / 2)
            rows_h = OptionEditor.rows_height(row_h, half)
            for i, part in enumerate((game_opts[:half], game_opts[half:])):
                self.game_editor.layout_and_draw(surface, pygame.Rect(m + i * (col_w + m), y, col_w, rows_h),
                                                 row_h, part)
            y += rows_h + 6

        # A description takes two lines whatever its length, so the fields under it never move.
        description_h = 2 * (theme.font(18).get_linesize() + 2)
        for side_index, side in enumerate(self.sides):
            x = m + side_index * (col_w + m)
            box = pygame.Rect(x, y, col_w, h - bottom_reserved - y)
            pygame.draw.rect(surface, theme.PANEL, box, border_radius=8)
            inner = box.inflate(-24, -20)
            game = self.default_game()
            side_name = game.side_names[side_index] if game else f"side {side_index + 1}"
            draw_text(surface, side_name + (" (moves first)" if side_index == 0 else ""), inner.topleft, 26, theme.TITLE)
            side.cycler.rect = pygame.Rect(inner.left, inner.top + 28, inner.width, 34)
            side.cycler.draw(surface)
            yy = side.cycler.rect.bottom + 6
            if side.player:
                entry = self.registry.get("players", side.player)
                draw_wrapped(surface, entry.description, pygame.Rect(inner.left, yy, inner.width, description_h), 18,
                             theme.TEXT_DIM)
                yy += description_h + 6
                editor = side.editor
                if not self.advanced:   # what it plays, in a line; its options under Advanced options
                    words = f"plays as {side.spec()}" if side.player != "human" else "you play this side"
                    draw_wrapped(surface, words, pygame.Rect(inner.left, yy, inner.width, inner.bottom - yy), 18)
                elif editor.options:
                    viewport = pygame.Rect(inner.left, yy, inner.width, max(0, inner.bottom - yy))
                    editor.layout_and_draw(surface, viewport, row_h, scrolled=True, reveal=self._reveal)
                else:
                    draw_text(surface, "(no options)", (inner.left, yy), 18, theme.TEXT_DIM)
        self._reveal = None

        y = h - bottom_reserved + 12
        draw_text(surface, "Start position", (m, y + 16), 20, theme.TEXT_DIM, anchor="midleft")
        setup = self.buttons["setup"]
        setup.rect = pygame.Rect(w - m - 180, y, 180, 32) if self.chosen_can_set_up() else pygame.Rect(0, 0, 0, 0)
        self.position.rect = pygame.Rect(m + 150, y, (setup.rect.left - 10 if setup.rect.width else w - m) - m - 150,
                                         32)
        self.position.draw(surface, 18)
        setup.draw(surface)
        y += 40
        by = h - m - 40
        self.message_rect = pygame.Rect(m, y, w - 2 * m, by - y - 4)
        errors = self.errors()
        message = self.progress or self.error or (errors[0] if errors else "") or self.notice or self.focused_help()
        color = theme.ACCENT if self.progress else theme.ERROR if (self.error or errors) else theme.TEXT_DIM
        if message:
            draw_wrapped(surface, message, self.message_rect, 18, color)
        self.buttons["start"].label = "Starting\u2026" if self.progress else "Start"
        names = ("rules", "open", "start", "resume", "quit") if self.chosen_saved_game() else \
            ("rules", "open", "start", "quit")
        bw = min(200, (w - (len(names) + 1) * m) // len(names))
        self.buttons["resume"].rect = pygame.Rect(0, 0, 0, 0)
        for i, name in enumerate(names):
            self.buttons[name].rect = pygame.Rect(0, 0, bw, 40)
            self.buttons[name].rect.center = (w // 2 + round((i - (len(names) - 1) / 2) * (bw + m)), by + 20)
            self.buttons[name].draw(surface)
