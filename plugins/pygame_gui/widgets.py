"""The few widgets the GUI needs: buttons, choice cyclers, text fields, wrapped text.

Widgets are laid out by their screen (``rect`` is set on every layout) and
act on real pygame events, so tests drive them by posting mouse and keyboard
events at ``widget.rect.center``.
"""
from __future__ import annotations

from typing import Callable, Sequence

import pygame

from . import theme


def draw_text(surface: pygame.Surface, text: str, pos: tuple[int, int], size: int = 22,
              color=theme.TEXT, anchor: str = "topleft") -> pygame.Rect:
    image = theme.font(size).render(text, True, color)
    rect = image.get_rect(**{anchor: pos})
    surface.blit(image, rect)
    return rect


def wrap_text(text: str, size: int, width: int) -> list[str]:
    """Lines of ``text`` no wider than ``width`` pixels; explicit newlines are kept."""
    font = theme.font(size)
    lines: list[str] = []
    for paragraph in text.split("\n"):
        indent = paragraph[:len(paragraph) - len(paragraph.lstrip())]
        words = paragraph.split()
        if not words:
            lines.append("")
            continue
        line = indent + words[0]
        for word in words[1:]:
            candidate = f"{line} {word}"
            if font.size(candidate)[0] <= width:
                line = candidate
            else:
                lines.append(line)
                line = indent + word
        lines.append(line)
    return lines


def draw_wrapped(surface: pygame.Surface, text: str, rect: pygame.Rect, size: int = 20,
                 color=theme.TEXT, spacing: int = 2) -> int:
    """Draw ``text`` wrapped into ``rect`` (clipped at its bottom); returns the height used."""
    height = theme.font(size).get_linesize() + spacing
    y = rect.top
    for line in wrap_text(text, size, rect.width):
        if y + height > rect.bottom + spacing:
            break
        draw_text(surface, line, (rect.left, y), size, color)
        y += height
    return y - rect.top


def is_click(event: pygame.event.Event) -> bool:
    return event.type == pygame.MOUSEBUTTONDOWN and getattr(event, "button", 1) == 1


class Button:
    def __init__(self, label: str, on_click: Callable[[], None], *, primary: bool = False,
                 enabled: bool = True, key: int | None = None) -> None:
        self.label, self.on_click, self.primary, self.enabled, self.key = label, on_click, primary, enabled, key
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
        size = max(16, min(24, self.rect.height - 10))
        draw_text(surface, self.label, self.rect.center, size,
                  theme.TEXT if self.enabled else theme.TEXT_DIM, anchor="center")


class Cycler:
    """One choice out of a list, changed with arrow buttons (or by clicking the value)."""

    def __init__(self, choices: Sequence[str], index: int = 0,
                 on_change: Callable[[str], None] | None = None) -> None:
        self.choices = list(choices)
        self.index = max(0, min(index, len(self.choices) - 1))
        self.on_change = on_change
        self.rect = pygame.Rect(0, 0, 0, 0)

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
        if is_click(event) and self.rect.collidepoint(event.pos):
            self.step(-1 if self.prev_rect.collidepoint(event.pos) else 1)
            return True
        return False

    def draw(self, surface: pygame.Surface) -> None:
        pygame.draw.rect(surface, theme.FIELD, self.rect, border_radius=6)
        pygame.draw.rect(surface, theme.FIELD_EDGE, self.rect, 1, border_radius=6)
        for rect, points in ((self.prev_rect, ((0.65, 0.25), (0.35, 0.5), (0.65, 0.75))),
                             (self.next_rect, ((0.35, 0.25), (0.65, 0.5), (0.35, 0.75)))):
            pygame.draw.rect(surface, theme.BUTTON, rect.inflate(-4, -4), border_radius=5)
            pygame.draw.polygon(surface, theme.TEXT if len(self.choices) > 1 else theme.TEXT_DIM,
                                [(rect.left + fx * rect.width, rect.top + fy * rect.height) for fx, fy in points])
        draw_text(surface, self.value, self.rect.center, max(18, min(26, self.rect.height - 8)), anchor="center")


class TextField:
    """A one-line editable field; ``validate(text)`` returns an error message or ``None``."""

    def __init__(self, label: str, text: str = "", *, validate: Callable[[str], str | None] | None = None,
                 help: str = "", placeholder: str = "") -> None:
        self.label, self.text, self.validate, self.help, self.placeholder = label, text, validate, help, placeholder
        self.rect = pygame.Rect(0, 0, 0, 0)
        self.focused = False
        self.error: str | None = None
        self.revalidate()

    def revalidate(self) -> None:
        self.error = self.validate(self.text) if self.validate else None

    def set_text(self, text: str) -> None:
        self.text = text
        self.revalidate()

    def handle_event(self, event: pygame.event.Event) -> bool:
        """Focus follows clicks; typing edits the focused field."""
        if is_click(event):
            self.focused = self.rect.collidepoint(event.pos)
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
