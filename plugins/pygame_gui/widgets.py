"""The few widgets the GUI needs: buttons, choice cyclers, text fields, a scrolled area, wrapped text.

Widgets are laid out by their screen (``rect`` is set on every layout) and
act on real pygame events, so tests drive them by posting mouse and keyboard
events at ``widget.rect.center``.  A widget inside a :class:`ScrollArea` has
its ``clip`` set to the area's viewport: the part of it scrolled out of view
takes no clicks.
"""
from __future__ import annotations

from typing import Callable, Sequence

import pygame

from plyground.screen.controls import Action, Field

from . import theme
from .theme import draw_text


ELLIPSIS = "\u2026"


def fit_text(text: str, size: int, width: int) -> str:
    """``text``, shortened with an ellipsis at its end when it is wider than ``width`` pixels."""
    font = theme.font(size)
    if font.size(text)[0] <= width:
        return text
    while text and font.size(text + ELLIPSIS)[0] > width:
        text = text[:-1]
    return text.rstrip() + ELLIPSIS


def _split_long_word(word: str, font: pygame.font.Font, width: int) -> list[str]:
    """A word wider than ``width`` (a file path, say) in pieces that fit."""
    pieces, piece = [], ""
    for ch in word:
        if piece and font.size(piece + ch)[0] > width:
            pieces.append(piece)
            piece = ""
        piece += ch
    return pieces + [piece]


def wrap_text(text: str, size: int, width: int) -> list[str]:
    """Lines of ``text`` no wider than ``width`` pixels; explicit newlines are kept, and a word too long
    for a line (a file path) is broken."""
    font = theme.font(size)
    lines: list[str] = []
    for paragraph in text.split("\n"):
        indent = paragraph[:len(paragraph) - len(paragraph.lstrip())]
        words = paragraph.split()
        if not words:
            lines.append("")
            continue
        line = indent
        for word in words:
            candidate = f"{line} {word}" if line.strip() else line + word
            if font.size(candidate)[0] <= width:
                line = candidate
                continue
            if line.strip():
                lines.append(line)
            pieces = _split_long_word(indent + word, font, width)
            lines += pieces[:-1]
            line = pieces[-1]
        lines.append(line)
    return lines


def draw_wrapped(surface: pygame.Surface, text: str, rect: pygame.Rect, size: int = 20,
                 color=theme.TEXT, spacing: int = 2) -> int:
    """Draw ``text`` wrapped into ``rect``; text below its bottom is cut, the last line shown ending in
    an ellipsis.  Returns the height used."""
    height = theme.font(size).get_linesize() + spacing
    lines = wrap_text(text, size, rect.width)
    room = (rect.height + spacing) // height
    if len(lines) > room:
        lines = lines[:room - 1] + [fit_text(lines[room - 1] + ELLIPSIS, size, rect.width)] if room > 0 else []
    y = rect.top
    for line in lines:
        draw_text(surface, line, (rect.left, y), size, color)
        y += height
    return y - rect.top


def hits(widget, pos) -> bool:
    """Whether a click at ``pos`` lands on ``widget``: inside its rect and the visible part of it."""
    return widget.rect.collidepoint(pos) and (widget.clip is None or widget.clip.collidepoint(pos))


def is_click(event: pygame.event.Event) -> bool:
    return event.type == pygame.MOUSEBUTTONDOWN and getattr(event, "button", 1) == 1


class Button(Action):
    """A screen's button (:class:`plyground.screen.controls.Action`) in the window: its place, and ``key``, a pygame
    key that presses it too."""

    def __init__(self, label: str, on_click: Callable[[], None], *, primary: bool = False,
                 enabled: bool = True, key: int | None = None) -> None:
        super().__init__(label, on_click, primary=primary, enabled=enabled)
        self.key = key
        self.rect = pygame.Rect(0, 0, 0, 0)
        self.hover = False

    def handle_event(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.MOUSEMOTION:
            self.hover = self.rect.collidepoint(event.pos)
            return False
        if not self.enabled:
            return False
        if (is_click(event) and self.rect.collidepoint(event.pos)) or \
                (self.key is not None and event.type == pygame.KEYDOWN and event.key == self.key):
            self.on_click()
            return True
        return False

    def draw(self, surface: pygame.Surface) -> None:
        if not self.rect.width:
            return
        color = (theme.BUTTON_DISABLED if not self.enabled else
                 theme.BUTTON_PRIMARY if self.primary else
                 theme.BUTTON_HOVER if self.hover else theme.BUTTON)
        pygame.draw.rect(surface, color, self.rect, border_radius=6)
        pygame.draw.rect(surface, theme.PANEL_EDGE, self.rect, 1, border_radius=6)
        draw_text(surface, self.label, self.rect.center, self.label_size(),
                  theme.TEXT if self.enabled else theme.TEXT_DIM, anchor="center")

    #: The smallest font a label shrinks to; the room a label leaves on each side of it.
    MIN_LABEL_SIZE, PADDING = 14, 6

    def label_size(self, width: int | None = None) -> int:
        """The font size the label is drawn at: the largest (up to 24, and what the height allows) at which it
        fits the button's width (``width``, else the rect's) with :attr:`PADDING` on each side."""
        room = (self.rect.width if width is None else width) - 2 * self.PADDING
        size = max(self.MIN_LABEL_SIZE, min(24, self.rect.height - 10))
        while size > self.MIN_LABEL_SIZE and theme.font(size).size(self.label)[0] > room:
            size -= 1
        return size

    def fits(self, width: int) -> bool:
        """Whether the label fits a button ``width`` wide (at the smallest font, at worst)."""
        return theme.font(self.MIN_LABEL_SIZE).size(self.label)[0] <= width - 2 * self.PADDING


class Cycler:
    """One choice out of a list, changed with arrow buttons (or by clicking the value); when focused
    (a click or Tab), the Left and Right keys or Space change it too."""

    def __init__(self, choices: Sequence[str], index: int = 0,
                 on_change: Callable[[str], None] | None = None) -> None:
        self.choices = list(choices)
        self.index = max(0, min(index, len(self.choices) - 1))
        self.on_change = on_change
        self.rect = pygame.Rect(0, 0, 0, 0)
        self.clip: pygame.Rect | None = None
        self.focused = False

    @property
    def value(self) -> str:
        return self.choices[self.index] if self.choices else ""

    def set(self, value: str) -> None:
        if value in self.choices and value != self.value:
            self.index = self.choices.index(value)
            if self.on_change:
                self.on_change(self.value)

    @property
    def prev_rect(self) -> pygame.Rect:
        return pygame.Rect(self.rect.left, self.rect.top, self.rect.height, self.rect.height)

    @property
    def next_rect(self) -> pygame.Rect:
        return pygame.Rect(self.rect.right - self.rect.height, self.rect.top, self.rect.height, self.rect.height)

    def step(self, delta: int) -> None:
        if len(self.choices) > 1:
            self.index = (self.index + delta) % len(self.choices)
            if self.on_change:
                self.on_change(self.value)

    def handle_event(self, event: pygame.event.Event) -> bool:
        """Focus follows clicks (a click on it also steps the choice); keys step the focused one."""
        if is_click(event):
            self.focused = hits(self, event.pos)
            if self.focused:
                self.step(-1 if self.prev_rect.collidepoint(event.pos) else 1)
            return self.focused
        if self.focused and event.type == pygame.KEYDOWN:
            if event.key in (pygame.K_LEFT, pygame.K_RIGHT, pygame.K_SPACE):
                self.step(-1 if event.key == pygame.K_LEFT else 1)
                return True
            if event.key == pygame.K_ESCAPE:
                self.focused = False
                return True
        return False

    def draw(self, surface: pygame.Surface) -> None:
        pygame.draw.rect(surface, theme.FIELD_FOCUS if self.focused else theme.FIELD, self.rect, border_radius=6)
        pygame.draw.rect(surface, theme.FIELD_EDGE_FOCUS if self.focused else theme.FIELD_EDGE, self.rect,
                         2 if self.focused else 1, border_radius=6)
        for rect, points in ((self.prev_rect, ((0.65, 0.25), (0.35, 0.5), (0.65, 0.75))),
                             (self.next_rect, ((0.35, 0.25), (0.65, 0.5), (0.35, 0.75)))):
            pygame.draw.rect(surface, theme.BUTTON, rect.inflate(-4, -4), border_radius=5)
            pygame.draw.polygon(surface, theme.TEXT if len(self.choices) > 1 else theme.TEXT_DIM,
                                [(rect.left + fx * rect.width, rect.top + fy * rect.height) for fx, fy in points])
        size = max(18, min(26, self.rect.height - 8))
        room = self.rect.width - 2 * self.rect.height - 8   # the value stays between the arrows
        draw_text(surface, fit_text(self.value, size, room), self.rect.center, size, anchor="center")


class TextField(Field):
    """A one-line editable field (:class:`plyground.screen.controls.Field`) in the window: its place, and the focus
    that typing goes to."""

    def __init__(self, label: str, text: str = "", *, validate: Callable[[str], str | None] | None = None,
                 help: str = "", placeholder: str = "") -> None:
        super().__init__(label, text, validate=validate, help=help, placeholder=placeholder)
        self.rect = pygame.Rect(0, 0, 0, 0)
        self.clip: pygame.Rect | None = None
        self.focused = False

    def handle_event(self, event: pygame.event.Event) -> bool:
        """Focus follows clicks; typing edits the focused field."""
        if is_click(event):
            self.focused = hits(self, event.pos)
            return self.focused
        if not self.focused:
            return False
        if event.type == pygame.TEXTINPUT:
            self.set_text(self.text + event.text)
            return True
        if event.type == pygame.KEYDOWN:
            if event.key == pygame.K_BACKSPACE:
                self.set_text(self.text[:-1])
            elif event.key == pygame.K_DELETE or (event.key == pygame.K_u and event.mod & pygame.KMOD_CTRL):
                self.set_text("")
            elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_ESCAPE):
                self.focused = False
            else:
                return event.key != pygame.K_TAB  # swallow other keys so shortcuts do not fire while typing
            return True
        return False

    def draw(self, surface: pygame.Surface, size: int = 20) -> None:
        pygame.draw.rect(surface, theme.FIELD_FOCUS if self.focused else theme.FIELD, self.rect, border_radius=4)
        edge = theme.ERROR if self.error else theme.FIELD_EDGE_FOCUS if self.focused else theme.FIELD_EDGE
        pygame.draw.rect(surface, edge, self.rect, 2 if (self.focused or self.error) else 1, border_radius=4)
        font = theme.font(size)
        inner = self.rect.inflate(-10, 0)
        shown, color = (self.text, theme.TEXT) if self.text or self.focused else (self.placeholder, theme.TEXT_DIM)
        while shown and font.size(shown)[0] > inner.width - 4:
            shown = shown[1:]  # show the end of a long value (where the cursor is)
        rect = draw_text(surface, shown, (inner.left, self.rect.centery), size, color, anchor="midleft")
        if self.focused and (pygame.time.get_ticks() // 500) % 2 == 0:
            x = rect.right + 1 if shown else inner.left
            pygame.draw.line(surface, theme.TEXT, (x, self.rect.top + 5), (x, self.rect.bottom - 6), 2)


class ScrollArea:
    """A viewport onto a column of rows taller than it (a plugin's option fields).

    The owner lays its rows out from ``rect.top - offset`` each frame, draws them clipped to ``rect``
    and sets their widgets' ``clip`` to ``rect``.  The mouse wheel over the viewport, dragging the
    bar's thumb or clicking its track scroll; :meth:`reveal` brings a row into view (the one with
    the keyboard focus).
    """

    BAR = 8  # pixels of the scroll bar at the right edge of the viewport

    def __init__(self, step: int = 40) -> None:
        self.rect = pygame.Rect(0, 0, 0, 0)
        self.content_height = 0
        self.offset = 0
        self.step = step
        self._grab: tuple[int, int] | None = None   # (mouse y, offset) when the thumb was grabbed

    def set_view(self, rect: pygame.Rect, content_height: int) -> None:
        self.rect, self.content_height = pygame.Rect(rect), content_height
        self.scroll_to(self.offset)

    @property
    def max_offset(self) -> int:
        return max(0, self.content_height - self.rect.height)

    def scroll_to(self, offset: float) -> None:
        self.offset = max(0, min(self.max_offset, int(round(offset))))

    def reveal(self, top: int, bottom: int) -> None:
        """Scroll the least that shows content rows ``top`` to ``bottom`` (content coordinates)."""
        if top < self.offset:
            self.scroll_to(top)
        elif bottom > self.offset + self.rect.height:
            self.scroll_to(bottom - self.rect.height)

    def visible(self, top: int, bottom: int) -> bool:
        return top >= self.offset and bottom <= self.offset + self.rect.height

    @property
    def bar_rect(self) -> pygame.Rect:
        return pygame.Rect(self.rect.right - self.BAR, self.rect.top, self.BAR, self.rect.height)

    @property
    def thumb_rect(self) -> pygame.Rect:
        bar = self.bar_rect
        if not self.max_offset:
            return bar
        height = max(24, bar.height * bar.height // max(1, self.content_height))
        top = bar.top + (bar.height - height) * self.offset // self.max_offset
        return pygame.Rect(bar.left, top, bar.width, height)

    def handle_event(self, event: pygame.event.Event, mouse: tuple[int, int] | None) -> bool:
        """Wheel (with the mouse at ``mouse``), thumb drags and track clicks; True when it scrolled."""
        if event.type == pygame.MOUSEBUTTONUP and self._grab is not None:
            self._grab = None
            return True
        if not self.max_offset:
            return False
        if event.type == pygame.MOUSEWHEEL and mouse is not None and self.rect.collidepoint(mouse):
            self.scroll_to(self.offset - event.y * self.step)
            return True
        if is_click(event) and self.bar_rect.inflate(6, 0).collidepoint(event.pos):
            thumb = self.thumb_rect
            if thumb.inflate(6, 0).collidepoint(event.pos):
                self._grab = (event.pos[1], self.offset)
            else:  # a page up or down
                self.scroll_to(self.offset + (self.rect.height if event.pos[1] > thumb.centery else -self.rect.height))
            return True
        if event.type == pygame.MOUSEMOTION and self._grab is not None:
            y0, offset0 = self._grab
            travel = self.bar_rect.height - self.thumb_rect.height
            if travel > 0:
                self.scroll_to(offset0 + (event.pos[1] - y0) * self.max_offset / travel)
            return True
        return False

    def draw(self, surface: pygame.Surface) -> None:
        if not self.max_offset:
            return
        pygame.draw.rect(surface, theme.FIELD, self.bar_rect, border_radius=4)
        pygame.draw.rect(surface, theme.BUTTON_HOVER if self._grab else theme.FIELD_EDGE, self.thumb_rect,
                         border_radius=4)
