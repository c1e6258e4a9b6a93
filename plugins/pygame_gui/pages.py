"""The window's pages beside the menu: the rules and help of a game (Rules), and Open game (the saved and
recorded games of the games folder, newest first, or a path typed; one opens in a review)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pygame

from plyground.errors import PlygroundError
from plyground.protocols import Game
from plyground.screen.game import key_help

from . import theme
from .widgets import Button, ScrollArea, TextField, draw_text, draw_wrapped, fit_text, wrap_text

if TYPE_CHECKING:
    from .renderer import PygameRenderer


GUI_HELP = """The menu: pick the game, its level (how strong the computer plays: easy, medium, hard or \
strongest; docs/gui.md says which player each one is) and a clock (none, or minutes for the game plus \
seconds added after each move), then a player for each side (human is you; every installed player that \
can play the game is listed). Advanced options shows the game's and the players' own settings, each with \
a line of help, checked as you type: a red frame and a message say what is wrong; a long list of them \
scrolls (mouse wheel). Tab and Shift+Tab move between fields, Left and Right change a choice, Enter \
starts the game. Leave "Start position" empty for the usual start.

During a game: a click that is not a legal move is answered in the message box with the reason. While \
a bot thinks the window stays usable and a spinner turns beside its name (a first run also says when it is \
compiling kernels for this machine). Take back undoes your last move and the reply to it. A right click \
drops a half-entered move. A click on a move of the move list shows an earlier position (read-only). When \
the game is over, Save game appends it to the file named above the button (PDN for checkers)."""


class PageScreen:
    """A full-window page of the menu (rules, Open game): its title, and a Back button at the bottom."""

    back: Button

    def update(self) -> None:
        pass

    @staticmethod
    def _page(surface: pygame.Surface, title: str) -> tuple[int, int, int]:
        """Clear the window and draw ``title``; the window's width and height and the page's margin."""
        w, h = surface.get_size()
        surface.fill(theme.BACKGROUND)
        m = max(16, w // 40)
        draw_text(surface, title, (m, m), 44, theme.TITLE)
        return w, h, m

    def _draw_back(self, surface: pygame.Surface, w: int, h: int, m: int) -> None:
        self.back.rect = pygame.Rect(0, 0, 180, 40)
        self.back.rect.center = (w // 2, h - m - 20)
        self.back.draw(surface)


class RulesScreen(PageScreen):
    """The tutorial page: the game's rules and how to use the window (every key the game screen handles,
    listed from its own table); the help column scrolls (mouse wheel, or its bar) when it is taller than the
    window."""

    HELP_SIZE = 18

    def __init__(self, app: "PygameRenderer", game: Game | None, view_help: str = "") -> None:
        self.app, self.game, self.view_help = app, game, view_help
        self.back = Button("Back", app.show_menu, primary=True, key=pygame.K_ESCAPE)
        self.help_scroll = ScrollArea(step=3 * self.line_height)
        self.help_lines: list[str] = []      # the help column's lines, as last wrapped
        self._mouse: tuple[int, int] | None = None

    @property
    def help_text(self) -> str:
        return ((self.view_help + "\n\n" if self.view_help else "") + GUI_HELP +
                "\n\nKeys during a game:\n" + key_help())

    @property
    def line_height(self) -> int:
        return theme.font(self.HELP_SIZE).get_linesize() + 2

    def shown_help_lines(self) -> list[str]:
        """The help column's lines in view now (scrolled)."""
        first = -(-self.help_scroll.offset // self.line_height)
        room = (self.help_scroll.offset + self.help_scroll.rect.height) // self.line_height
        return self.help_lines[first:room]

    def handle_event(self, event) -> None:
        if event.type == pygame.MOUSEMOTION:
            self._mouse = event.pos
        if self.help_scroll.handle_event(event, self._mouse):
            return
        self.back.handle_event(event)

    def draw(self, surface: pygame.Surface) -> None:
        name = self.game.name.capitalize() if self.game else "plyground"
        w, h, m = self._page(surface, f"How to play: {name}")
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
        view = pygame.Rect(right.left, right.top + 32, right.width, right.height - 32)
        self.help_lines = wrap_text(self.help_text, self.HELP_SIZE, view.width - ScrollArea.BAR - 6)
        self.help_scroll.set_view(view, len(self.help_lines) * self.line_height)
        surface.set_clip(view)
        y = view.top - self.help_scroll.offset
        for line in self.help_lines:
            if y + self.line_height > view.top and y < view.bottom:
                draw_text(surface, line, (view.left, y), self.HELP_SIZE)
            y += self.line_height
        surface.set_clip(None)
        self.help_scroll.draw(surface)
        self._draw_back(surface, w, h, m)


class OpenGameScreen(PageScreen):
    """The menu's Open game: any PDN, PGN or JSON-lines file of the chosen game, reviewed on the board (as
    ``plyground play --review FILE``): a path typed in the field (a name alone: the saved-games folder), or one
    of ``files``, a click each: the newest record files of this game in the window's save folder and the current
    one (the menu's :meth:`~plyground.screen.menu.MenuModel.record_files`)."""

    def __init__(self, app: "PygameRenderer", game: Game, files: list[Path]) -> None:
        self.app, self.game = app, game
        self.path = TextField("game file", "", placeholder=f"a {game.record_suffix} file: its last game is opened",
                              help="a record file's path (a name alone: the saved-games folder); Enter opens it")
        self.open = Button("Open", self.open_typed, primary=True)
        self.back = Button("Back", app.show_menu, key=pygame.K_ESCAPE)
        self.files = files
        self.file_buttons = [Button(fit_text(f"{p.name}: {self._describe(p)}   ({_home_words(p.parent)})", 18, 700),
                                    lambda p=p: self.open_file(p)) for p in self.files]
        self.error = ""

    #: Files larger than this are listed by name only (reading an archive of thousands of games takes long).
    DESCRIBED_BYTES = 2_000_000

    def _describe(self, path: Path) -> str:
        """The game Open would review (the file's last): its date, players, result and length, in a few words;
        what is wrong instead when it cannot be read."""
        from plyground.files.recordio import saved_records_reader
        reader = saved_records_reader(self.game)
        try:
            if reader is None or path.stat().st_size > self.DESCRIBED_BYTES:
                return "a record file"
            records = reader(path.read_text(encoding="utf-8", errors="replace"))
        except (PlygroundError, OSError, ValueError, KeyError, TypeError):
            return "not a readable game file"
        if not records:
            return "no game in it"
        last = records[-1]
        date = str(last.tags.get("Date") or "undated").replace("??", "").strip(".") or "undated"
        many = f" (last of {len(records)})" if len(records) > 1 else ""
        return (f"{date}, {last.players[0]} vs {last.players[1]}, {last.result_text}, "
                f"{len(last.moves)} plies{many}")

    def open_typed(self) -> None:
        text = self.path.text.strip()
        if not text:
            self.error = "Type a record file's path, or click one of the files listed."
            return
        from plyground.play.resume import locate_saved
        try:
            path = locate_saved(Path(text).expanduser(), "review")
        except PlygroundError as exc:
            self.error = str(exc)
            return
        self.open_file(path)

    def open_file(self, path: Path) -> None:
        """Review the last game of ``path``; a file that cannot be reviewed is one line on this screen."""
        from plyground.play.review import open_review
        try:
            review = open_review(self.game, path)
        except (PlygroundError, OSError) as exc:
            self.error = f"Cannot open {path.name}: {exc}"
            return
        self.error = ""
        self.app.review_from_menu(review)

    def handle_event(self, event) -> None:
        if self.path.handle_event(event):
            if event.type == pygame.KEYDOWN and event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                self.open_typed()
            return
        for button in (self.open, self.back, *self.file_buttons):
            if button.handle_event(event):
                return

    def draw(self, surface: pygame.Surface) -> None:
        w, h, m = self._page(surface, f"Open a {self.game.name} game")
        y = m + 64
        self.path.rect = pygame.Rect(m, y, w - 3 * m - 140, 36)
        self.path.draw(surface, 18)
        self.open.rect = pygame.Rect(self.path.rect.right + m, y, 140, 36)
        self.open.draw(surface)
        y += 48
        if self.error:
            draw_wrapped(surface, self.error, pygame.Rect(m, y, w - 2 * m, 44), 18, theme.ERROR)
        y += 48
        draw_text(surface, "Recent games here" if self.files else
                  f"No {self.game.record_suffix} files in {_home_words(self.app.save_folder())} or the current "
                  f"folder: type a path", (m, y), 20, theme.TEXT_DIM)
        y += 28
        for button in self.file_buttons:
            if y + 36 > h - m - 56:
                button.rect = pygame.Rect(0, 0, 0, 0)
                continue
            button.rect = pygame.Rect(m, y, w - 2 * m, 34)
            button.draw(surface)
            y += 40
        self._draw_back(surface, w, h, m)


def _home_words(folder: Path) -> str:
    """``folder`` with the home folder as ~."""
    try:
        return "~/" + str(folder.resolve().relative_to(Path.home()))
    except ValueError:
        return str(folder)
