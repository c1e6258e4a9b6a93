"""A screen's controls as its model holds them: buttons (:class:`Action`) and lines of text (:class:`Field`).

Each front end shows them its own way: the window's widgets (``plugins/pygame_gui/widgets.py``) extend these
classes with a place on the screen and pygame's events; the web page is sent their labels and state as data and
sends back the name of the one pressed.
"""
from __future__ import annotations

from typing import Callable


class Action:
    """A button: its ``label``, what pressing it does (``on_click``), whether it is the screen's main one
    (``primary``) and whether it can be pressed now (``enabled``, kept up to date by its screen)."""

    def __init__(self, label: str, on_click: Callable[[], None], *, primary: bool = False,
                 enabled: bool = True) -> None:
        self.label, self.on_click, self.primary, self.enabled = label, on_click, primary, enabled


class Field:
    """A line of text the person may edit; ``validate(text)`` returns why it is wrong (kept in ``error``) or None."""

    def __init__(self, label: str, text: str = "", *, validate: Callable[[str], str | None] | None = None,
                 help: str = "", placeholder: str = "") -> None:
        self.label, self.text, self.validate, self.help, self.placeholder = label, text, validate, help, placeholder
        self.error: str | None = None
        self.revalidate()

    def revalidate(self) -> None:
        self.error = self.validate(self.text) if self.validate else None

    def set_text(self, text: str) -> None:
        self.text = text
        self.revalidate()


__all__ = ["Action", "Field"]
