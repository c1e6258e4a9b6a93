"""The main menu (game, players and their options) and the rules tutorial page."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import pygame

from plyground.errors import PlygroundError
from plyground.options import Option, Spec
from plyground.protocols import Game

from . import theme
from .views import has_view
from .widgets import Button, Cycler, TextField, draw_text, draw_wrapped, is_click

if TYPE_CHECKING:
    from plyground.registry import Registry

    from .renderer import PygameRenderer

GUI_HELP = """The menu: pick the game, then a player for each side (human is you; every installed \
player that can play the game is listed). The fields under a player are its options, checked as you \
type: a red frame and a message say what is wrong. Leave "Start position" empty for the usual start.

During a game: a click that is not a legal move is answered in the message box with the reason. While \
a bot thinks the window stays usable and a spinner turns beside its name. Take back (U or Backspace) \
undoes your last move and the reply to it. Flip board (F) turns the board around; Numbers (N) shows \
the square names used in the move list. Escape or a right click drops a half-entered move. When the \
game is over, Save game appends it to the file named above the button (PDN for checkers)."""


def format_value(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if len(repr(value)) <= 8 else f"{value:.6g}"
    return str(value)


class OptionEditor:
    """Fields for one plugin's declared options; yields the changed values as option text."""

    def __init__(self, options: tuple[Option, ...], owner: str) -> None:
        self.options, self.owner = options, owner
        self.widgets: dict[str, TextField | Cycler] = {}
        for opt in options:
            default = format_value(opt.default)
            if opt.type is bool or opt.choices:
                choices = ["true", "false"] if opt.type is bool else [format_value(c) for c in opt.choices]
                if opt.optional:
                    choices.append("none")
                self.widgets[opt.name] = Cycler(choices, choices.index(default) if default in choices else 0)
            else:
                self.widgets[opt.name] = TextField(opt.name, default, validate=self._validator(opt),
                                                   help=f"{opt.help} ({opt.describe_type()})")

    def _validator(self, opt: Option):
        def validate(text: str) -> str | None:
            try:
                opt.parse(text, self.owner)
            except PlygroundError as exc:
                return str(exc)
            return None
        return validate

    def text_of(self, name: str) -> str:
        w = self.widgets[name]
        return w.value if isinstance(w, Cycler) else w.text

    def field(self, name: str) -> TextField | Cycler:
        return self.widgets[name]

    def errors(self) -> list[str]:
        return [w.error for w in self.widgets.values() if isinstance(w, TextField) and w.error]

    def changed(self) -> dict[str, str]:
        """Options whose text differs from the default's (so names stay short: ``mcts:simulations=200``)."""
        return {opt.name: self.text_of(opt.name).strip() for opt in self.options
                if self.text_of(opt.name).strip() != format_value(opt.default)}

    def handle_event(self, event) -> bool:
        return any(w.handle_event(event) for w in self.widgets.values())

    def focused_help(self) -> str:
        for opt in self.options:
            w = self.widgets[opt.name]
            if isinstance(w, TextField) and w.focused:
                return f"{opt.name}: {opt.help} ({opt.describe_type()})"
        return ""

    def layout_and_draw(self, surface: pygame.Surface | None, rect: pygame.Rect, row_h: int,
                        options: tuple[Option, ...] | None = None) -> int:
        """Rows of "name  [field]" in ``rect`` (all options, or those given); returns the height used."""
        y = rect.top
        label_w = min(170, rect.width * 2 // 5)
        for opt in self.options if options is None else options:
            w = self.widgets[opt.name]
            w.rect = pygame.Rect(rect.left + label_w, y, rect.width - label_w, row_h - 6)
            if surface is not None:
                size = 20 if row_h >= 30 else 18
                draw_text(surface, opt.name, (rect.left, w.rect.centery), size, theme.TEXT_DIM, anchor="midleft")
                if isinstance(w, TextField):
                    w.draw(surface, size)
                else:
                    w.draw(surface)
            y += row_h
        return y - rect.top


class SideChoice:
    """A side's player: which plugin, and its option fields (kept per plugin while the menu lives)."""

    def __init__(self, menu: "MenuScreen", side: int) -> None:
        self.menu, self.side = menu, side
        self.cycler = Cycler([], on_change=lambda _: None)
        self.editors: dict[str, OptionEditor] = {}

    def set_players(self, names: list[str], preferred: str) -> None:
        current = self.cycler.value
        self.cycler.choices = names
        pick = current if current in names else preferred if preferred in names else names[0] if names else ""
        self.cycler.index = names.index(pick) if pick in names else 0

    @property
    def player(self) -> str:
        return self.cycler.value

    @property
    def editor(self) -> OptionEditor:
        name = self.player
        if name not in self.editors:
            entry = self.menu.registry.get("players", name)
            self.editors[name] = OptionEditor(entry.options, f"player {name}")
        return self.editors[name]

    def spec(self) -> Spec:
        return Spec(self.player, self.editor.changed())


class MenuScreen:
    def __init__(self, app: "PygameRenderer", registry: "Registry") -> None:
        self.app, self.registry = app, registry
        self.games = [e.name for e in registry.entries("games") if has_view(e.cls)]
        preferred = "checkers" if "checkers" in self.games else (self.games[0] if self.games else "")
        self.game_choice = Cycler(self.games, self.games.index(preferred) if preferred else 0,
                                  on_change=lambda _: self._game_changed())
        self.game_editors: dict[str, OptionEditor] = {}
        self.sides = [SideChoice(self, 0), SideChoice(self, 1)]
        self.position = TextField("start position", "", validate=self._check_position, placeholder="(the usual start)",
                                  help="a position in the game's notation (FEN for checkers); empty: the usual start")
        self.buttons = {
            "rules": Button("Rules & help", self.app.show_rules),
            "start": Button("Start", self.start, primary=True, key=pygame.K_RETURN),
            "quit": Button("Quit", self.app.request_quit),
        }
        self.error = ""
        self.size = (0, 0)
        self._game_cache: dict[str, Game] = {}
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
        name = self.game_name
        if name and name not in self._game_cache:
            self._game_cache[name] = self.registry.make_game(name)
        return self._game_cache.get(name)

    def _game_changed(self) -> None:
        self.error = ""
        game = self.default_game()
        if game is None:
            return
        players = self.registry.players_for(game)
        self.sides[0].set_players(players, "human")
        self.sides[1].set_players(players, self._strongest_bot(game, players))
        self.position.set_text("")

    @staticmethod
    def _strongest_bot(game: Game, players: list[str]) -> str:
        for spec in game.default_opponents:
            name = Spec.parse(spec).name
            if name in players and name != "human":
                return name
        return "random" if "random" in players else players[-1]

    def _check_position(self, text: str) -> str | None:
        if not text.strip():
            return None
        game = self.default_game()
        try:
            game.new_state(text.strip())
        except PlygroundError as exc:
            return str(exc)
        except Exception as exc:  # noqa: BLE001 - any parse failure is the user's input, shown as such
            return f"cannot read this position: {exc}"
        return None

    def errors(self) -> list[str]:
        errs = self.game_editor.errors()
        for side in self.sides:
            errs += side.editor.errors()
        if self.position.error:
            errs.append(self.position.error)
        return errs

    def start(self) -> None:
        """Build the game and the players from the fields and begin (errors stay in the menu)."""
        for w in self._fields():
            if isinstance(w, TextField):
                w.focused = False
        errs = self.errors()
        if errs:
            self.error = errs[0]
            return
        players = []
        try:
            game = self.registry.make_game(Spec(self.game_name, self.game_editor.changed()))
            start = game.new_state(self.position.text.strip()) if self.position.text.strip() else None
            specs = [side.spec() for side in self.sides]
            for spec in specs:
                players.append(self.registry.make_player(spec, game))
        except Exception as exc:  # noqa: BLE001 - a plugin's own failure is shown, not a crash of the window
            for p in players:
                p.close()
            self.error = str(exc) if isinstance(exc, PlygroundError) else f"{type(exc).__name__}: {exc}"
            return
        self.error = ""
        self.app.start_game(game, players, tuple(str(s) for s in specs), {"start": start}, from_menu=True)

    # ------------------------------------------------------------ events
    def _fields(self) -> list:
        return (list(self.game_editor.widgets.values()) + [w for s in self.sides for w in s.editor.widgets.values()]
                + [self.position])

    def handle_event(self, event: pygame.event.Event) -> None:
        typing = any(isinstance(w, TextField) and w.focused for w in self._fields())
        if event.type == pygame.KEYDOWN and event.key == pygame.K_TAB:
            self._tab()
            return
        if is_click(event) or not typing:
            for button in self.buttons.values():
                if (is_click(event) or event.type == pygame.KEYDOWN) and button.handle_event(event):
                    return
                if event.type == pygame.MOUSEMOTION:
                    button.handle_event(event)
        if self.game_choice.handle_event(event):
            return
        for side in self.sides:
            if side.cycler.handle_event(event):
                return
        consumed = False
        for w in self._fields():  # every field sees clicks, so focus moves away from the others
            consumed = w.handle_event(event) or consumed
        if consumed and self.error and not self.errors():
            self.error = ""

    def _tab(self) -> None:
        fields = [w for w in self._fields() if isinstance(w, TextField)]
        focused = next((i for i, w in enumerate(fields) if w.focused), -1)
        for w in fields:
            w.focused = False
        if fields:
            fields[(focused + 1) % len(fields)].focused = True

    def focused_help(self) -> str:
        for editor in [self.game_editor] + [s.editor for s in self.sides]:
            text = editor.focused_help()
            if text:
                return text
        if self.position.focused:
            return self.position.help
        return ""

    # ------------------------------------------------------------ drawing
    def update(self) -> None:
        self.buttons["start"].enabled = bool(self.game_name) and all(s.player for s in self.sides)

    def draw(self, surface: pygame.Surface) -> None:
        self.size = surface.get_size()
        w, h = self.size
        surface.fill(theme.BACKGROUND)
        m = max(16, w // 40)
        draw_text(surface, "plyground", (m, m), 56, theme.TITLE)
        draw_text(surface, "board games against plug-in AI players", (m + 4, m + 42), 20, theme.TEXT_DIM)

        y = m + 76
        draw_text(surface, "Game", (m, y + 16), 24, anchor="midleft")
        self.game_choice.rect = pygame.Rect(m + 90, y, min(320, w // 3), 34)
        self.game_choice.draw(surface)
        entry = self.registry.get("games", self.game_name) if self.game_name else None
        if entry is not None:
            draw_wrapped(surface, entry.description, pygame.Rect(self.game_choice.rect.right + 16, y + 2,
                                                                 w - self.game_choice.rect.right - 16 - m, 40),
                         18, theme.TEXT_DIM)
        y += 44
        bottom_reserved = 150
        game_opts = self.game_editor.options
        col_w = (w - 3 * m) // 2
        most = max([len(s.editor.options) for s in self.sides] + [0])
        avail = h - bottom_reserved - y - 110 - 34 * math.ceil(len(game_opts) / 2)
        row_h = max(24, min(36, avail // max(1, most))) if most else 36
        if game_opts:  # game options in two columns
            half = math.ceil(len(game_opts) / 2)
            for i, part in enumerate((game_opts[:half], game_opts[half:])):
                self.game_editor.layout_and_draw(surface, pygame.Rect(m + i * (col_w + m), y, col_w, 1000), row_h, part)
            y += row_h * half + 6

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
                yy += draw_wrapped(surface, entry.description, pygame.Rect(inner.left, yy, inner.width, 40), 18,
                                   theme.TEXT_DIM) + 6
                editor = side.editor
                if editor.options:
                    editor.layout_and_draw(surface, pygame.Rect(inner.left, yy, inner.width, inner.bottom - yy), row_h)
                else:
                    draw_text(surface, "(no options)", (inner.left, yy), 18, theme.TEXT_DIM)

        y = h - bottom_reserved + 12
        draw_text(surface, "Start position", (m, y + 16), 20, theme.TEXT_DIM, anchor="midleft")
        self.position.rect = pygame.Rect(m + 150, y, w - 2 * m - 150, 32)
        self.position.draw(surface, 18)
        y += 40
        message = self.error or (self.errors()[0] if self.errors() else "") or self.focused_help()
        color = theme.ERROR if (self.error or self.errors()) else theme.TEXT_DIM
        if message:
            draw_wrapped(surface, message, pygame.Rect(m, y, w - 2 * m, 44), 18, color)
        by = h - m - 40
        bw = min(200, (w - 4 * m) // 3)
        for i, name in enumerate(("rules", "start", "quit")):
            self.buttons[name].rect = pygame.Rect(0, 0, bw, 40)
            self.buttons[name].rect.center = (w // 2 + (i - 1) * (bw + m), by + 20)
            self.buttons[name].draw(surface)


class RulesScreen:
    """The tutorial page: the game's rules and how to use the window."""

    def __init__(self, app: "PygameRenderer", game: Game | None, view_help: str = "") -> None:
        self.app, self.game, self.view_help = app, game, view_help
        self.back = Button("Back", app.show_menu, primary=True, key=pygame.K_ESCAPE)

    def handle_event(self, event) -> None:
        self.back.handle_event(event)

    def update(self) -> None:
        pass

    def draw(self, surface: pygame.Surface) -> None:
        w, h = surface.get_size()
        surface.fill(theme.BACKGROUND)
        m = max(16, w // 40)
        name = self.game.name.capitalize() if self.game else "plyground"
        draw_text(surface, f"How to play: {name}", (m, m), 44, theme.TITLE)
        col_w = (w - 3 * m) // 2
        top = m + 52
        left = pygame.Rect(m, top, col_w, h - top - 80)
        pygame.draw.rect(surface, theme.PANEL, left.inflate(16, 16), border_radius=8)
        draw_text(surface, "Rules", left.topleft, 28, theme.ACCENT)
        rules = (self.game.rules_text if self.game else "") or "(this game has no rules text)"
        draw_wrapped(surface, rules, pygame.Rect(left.left, left.top + 32, left.width, left.height - 32), 20)
        right = pygame.Rect(2 * m + col_w, top, col_w, h - top - 80)
        pygame.draw.rect(surface, theme.PANEL, right.inflate(16, 16), border_radius=8)
        draw_text(surface, "Using this window", right.topleft, 28, theme.ACCENT)
        text = (self.view_help + "\n\n" if self.view_help else "") + GUI_HELP
        draw_wrapped(surface, text, pygame.Rect(right.left, right.top + 32, right.width, right.height - 32), 18)
        self.back.rect = pygame.Rect(0, 0, 180, 40)
        self.back.rect.center = (w // 2, h - m - 20)
        self.back.draw(surface)
