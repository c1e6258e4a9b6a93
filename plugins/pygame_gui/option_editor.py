"""The menu's option fields: one text field (or choice) per option of a game or a player, each checked as it
is typed against the option's own rules, with a line of help; the menu's Advanced options shows them."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Union

import pygame

from plyground.errors import PlygroundError
from plyground.options import Option, value_text

from . import theme
from .widgets import Cycler, ScrollArea, TextField, draw_text, fit_text


def format_value(value: Any) -> str:
    """An option's value as the menu shows it: as a spec writes it, a long float to 6 digits."""
    if isinstance(value, float) and len(repr(value)) > 8:
        return f"{value:.6g}"
    return value_text(value)


Field = Union[TextField, Cycler]



class OptionEditor:
    """Fields for one plugin's declared options; yields the changed values as option text.

    ``initial`` (option text by name, e.g. the ``depth=8`` a game recommends) replaces defaults in the
    fields.  A player's fields live in ``scroll``, so any number of them fits its panel.
    """

    def __init__(self, options: tuple[Option, ...], owner: str, initial: dict[str, str] | None = None) -> None:
        self.options, self.owner = options, owner
        self.widgets: dict[str, Field] = {}
        self.scroll = ScrollArea()
        initial = initial or {}
        for opt in options:
            text = self._initial_text(opt, initial[opt.name]) if opt.name in initial else format_value(opt.default)
            if opt.type is bool or opt.choices:
                choices = ["true", "false"] if opt.type is bool else [format_value(c) for c in opt.choices]
                if opt.optional:
                    choices.append("none")
                self.widgets[opt.name] = Cycler(choices, choices.index(text) if text in choices else 0)
            else:
                self.widgets[opt.name] = TextField(opt.name, text, validate=self._validator(opt),
                                                   help=f"{opt.help} ({opt.describe_type()})")

    def _initial_text(self, opt: Option, raw: str) -> str:
        """``raw`` as a field shows it (``1.50`` as ``1.5``), so a value equal to the default reads as unchanged."""
        if opt.type in (str, Path):
            return raw.strip()
        try:
            return format_value(opt.parse(raw, self.owner))
        except PlygroundError:
            return raw.strip()   # shown, with the field's own error

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

    def field(self, name: str) -> Field:
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
            if w.focused:
                keys = "; Left and Right change it" if isinstance(w, Cycler) else ""
                return f"{opt.name}: {opt.help} ({opt.describe_type()}{keys})"
        return ""

    def layout_and_draw(self, surface: pygame.Surface | None, rect: pygame.Rect, row_h: int,
                        options: tuple[Option, ...] | None = None, *, scrolled: bool = False,
                        reveal: Field | None = None) -> int:
        """Rows of "name  [field]" in ``rect`` (all options, or those given), each with its option's help
        on a line under it; returns their height (:meth:`rows_height`).

        ``scrolled``: ``rect`` is the viewport of ``self.scroll``; the rows move with it and are clipped
        to it, and the row of ``reveal`` (a field just focused) is scrolled into view first."""
        shown = self.options if options is None else options
        step = self.rows_height(row_h, 1)
        top, width, clip = rect.top, rect.width, None
        if scrolled:
            self.scroll.set_view(rect, step * len(shown))
            index = next((i for i, opt in enumerate(shown) if self.widgets[opt.name] is reveal), None)
            if index is not None:
                self.scroll.reveal(index * step, (index + 1) * step - 6)
            top, width, clip = rect.top - self.scroll.offset, rect.width - ScrollArea.BAR - 6, rect
            if surface is not None:
                old_clip = surface.get_clip()
                surface.set_clip(rect)
        label_w = min(170, width * 2 // 5)
        size = 20 if row_h >= 34 else 18
        for i, opt in enumerate(shown):
            w = self.widgets[opt.name]
            w.rect = pygame.Rect(rect.left + label_w, top + i * step, width - label_w, row_h - 6)
            w.clip = clip
            if surface is None or (clip is not None and not clip.colliderect(w.rect.inflate(0, step - row_h))):
                continue
            draw_text(surface, fit_text(opt.name, size, label_w - 8), (rect.left, w.rect.centery), size,
                      theme.TEXT_DIM, anchor="midleft")
            draw_text(surface, fit_text(opt.help, self.HELP_SIZE, width), (rect.left, w.rect.bottom + 2),
                      self.HELP_SIZE, theme.TEXT_DIM)
            if isinstance(w, TextField):
                w.draw(surface, size)
            else:
                w.draw(surface)
        if scrolled and surface is not None:
            surface.set_clip(old_clip)
            self.scroll.draw(surface)
        return self.rows_height(row_h, len(shown))

    HELP_SIZE = 15   # the font size of the help line under each option

    @classmethod
    def rows_height(cls, row_h: int, rows: int) -> int:
        """The height of ``rows`` option rows (field and help line) of ``row_h``."""
        return (row_h + cls.HELP_SIZE + 2) * rows
