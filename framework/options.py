"""Declared, typed plugin options.

Every plugin class declares its options as a tuple of :class:`Option`.  The CLI
(`mcts:simulations=800,c=1.4`), the GUI and the config files all go through the
same parsing and validation here, so every front end gives the same messages.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from .errors import OptionError

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class Option:
    """One option a plugin accepts: its name, type, default, help and allowed values."""

    name: str
    type: type
    default: Any
    help: str
    min: float | None = None
    max: float | None = None
    choices: tuple | None = None
    #: ``None`` is an accepted value (e.g. "no time limit").
    optional: bool = False

    def describe_type(self) -> str:
        if self.choices:
            return "one of " + ", ".join(map(str, self.choices))
        kind = {int: "integer", float: "number", bool: "true/false", str: "text",
                Path: "path"}.get(self.type, self.type.__name__)
        if self.min is not None and self.max is not None:
            kind += f" in [{self.min}, {self.max}]"
        elif self.min is not None:
            kind += f" >= {self.min}"
        elif self.max is not None:
            kind += f" <= {self.max}"
        if self.optional:
            kind += " or none"
        return kind

    def parse(self, raw: str, owner: str = "") -> Any:
        """Convert text typed by a user into a checked value."""
        text = raw.strip()
        if self.optional and text.lower() in ("none", ""):
            return None
        try:
            if self.type is bool:
                if text.lower() in _TRUE:
                    value: Any = True
                elif text.lower() in _FALSE:
                    value = False
                else:
                    raise ValueError
            elif self.type is int:
                value = int(text)
            elif self.type is float:
                value = float(text)
            elif self.type is Path:
                value = Path(text).expanduser()
            else:
                value = self.type(text)
            return self.check(value, owner)
        except (ValueError, TypeError):
            # Quote what the user typed, not the converted value.
            raise OptionError(self._bad(raw, owner)) from None

    def check(self, value: Any, owner: str = "") -> Any:
        """Validate an already-typed value (from a config file or the GUI)."""
        if value is None:
            if self.optional:
                return None
            raise OptionError(self._bad(value, owner))
        if isinstance(value, str) and self.type is not str and self.type is not Path:
            return self.parse(value, owner)
        if self.type is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if self.type is Path and isinstance(value, str):
            value = Path(value).expanduser()
        if self.type is bool and not isinstance(value, bool):
            raise OptionError(self._bad(value, owner))
        if self.type is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise OptionError(self._bad(value, owner))
        if not isinstance(value, self.type):
            raise OptionError(self._bad(value, owner))
        if self.type is float and not math.isfinite(value):
            raise OptionError(self._bad(value, owner))
        if self.choices and value not in self.choices:
            raise OptionError(self._bad(value, owner))
        if self.min is not None and value < self.min:
            raise OptionError(self._bad(value, owner))
        if self.max is not None and value > self.max:
            raise OptionError(self._bad(value, owner))
        return value

    def _bad(self, value: Any, owner: str) -> str:
        where = f"{owner}: " if owner else ""
        return f"{where}bad value {value!r} for option '{self.name}': expected {self.describe_type()}"


def resolve_options(declared: Iterable[Option], given: Mapping[str, Any], owner: str) -> dict[str, Any]:
    """Defaults overlaid with ``given`` (text or typed values), every value checked."""
    by_name = {opt.name: opt for opt in declared}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        valid = ", ".join(by_name) or "(this plugin takes no options)"
        raise OptionError(f"{owner}: unknown option '{unknown[0]}'; valid options: {valid}")
    values = {name: opt.default for name, opt in by_name.items()}
    for name, raw in given.items():
        values[name] = by_name[name].check(raw, owner)
    return values


@dataclass(frozen=True)
class Spec:
    """A plugin named with inline options, as typed on the command line: ``mcts:simulations=800,c=1.4``."""

    name: str
    options: dict

    @classmethod
    def parse(cls, text: str) -> "Spec":
        text = text.strip()
        name, _, rest = text.partition(":")
        name = name.strip()
        if not name:
            raise OptionError(f"bad plugin spec {text!r}: expected NAME or NAME:option=value,...")
        options: dict[str, str] = {}
        for part in filter(None, (p.strip() for p in _split_options(rest))):
            key, eq, value = part.partition("=")
            if not eq or not key.strip():
                raise OptionError(f"bad option {part!r} in {text!r}: expected option=value")
            if key.strip() in options:
                raise OptionError(f"option '{key.strip()}' given twice in {text!r}")
            options[key.strip()] = value.strip()
        return cls(name, options)

    def __str__(self) -> str:
        if not self.options:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.options.items())


def _split_options(text: str) -> list[str]:
    # A comma separates options unless the next piece has no '=' (a value such as a path with a comma).
    parts: list[str] = []
    for piece in text.split(","):
        if parts and "=" not in piece:
            parts[-1] += "," + piece
        else:
            parts.append(piece)
    return parts
