"""Declared, typed plugin options.

Every plugin class declares its options as a tuple of :class:`Option`.  The CLI
(`mcts:simulations=800,c=1.4`), the GUI and the config files all go through the
same parsing and validation here, so every front end gives the same messages.
"""
from __future__ import annotations

import dataclasses
import math
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, TypeVar

from .errors import OptionError

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
#: The most seconds any time setting takes (a move's budget, a move limit, a clock: about 11.6 days).  Beyond
#: it a deadline stops being a number the system's timers take (``1e308`` ended games in OverflowError).
MAX_SECONDS = 1_000_000.0
#: The most simulations (or search nodes) a move's budget takes: more is a search that never ends.
MAX_SIMULATIONS = 10**9
#: The most simulations a page over the network may give a tree search (its tree grows with them: 10**9 would
#: fill the memory); more are given on the command line.
PAGE_SIMULATIONS = 200_000
#: The grammar of a plugin spec, quoted by every message about a malformed one.
SPEC_FORM = "NAME or NAME:key=value,key=value"


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
    #: May this option be set by what arrives over a network (the web page's start page)?  ``False`` (the
    #: default, so a third-party plugin's options are safe by default): never.  ``True``: yes, for an option
    #: whose every value is harmless -- a number with a ``min`` and a ``max``, true/false, or one of
    #: ``choices``.  A tuple of words: a text option (which could name a program, a path or a file) may be set
    #: to these words alone.  A tuple (least, most): a number may be set within these bounds alone (a budget
    #: whose whole range would let a page fill the memory).  Checked by :func:`remote_refusal`; docs/web.md,
    #: "Safe by default".
    remote: bool | tuple = False

    def __post_init__(self) -> None:
        remote = self.remote
        if isinstance(remote, tuple) and self.type in (int, float):
            if len(remote) != 2 or not all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in remote):
                raise ValueError(f"option '{self.name}': remote=(least, most) for a number takes two numbers")
        elif isinstance(remote, tuple):
            if self.type is not str or not remote or not all(isinstance(word, str) for word in remote):
                raise ValueError(f"option '{self.name}': remote=(words) is for a text option, with its words")
        elif remote is True and not (self.choices or self.type is bool
                                     or (self.type in (int, float) and self.min is not None
                                         and self.max is not None)):
            raise ValueError(f"option '{self.name}': remote=True needs a number with a min and a max, "
                             f"true/false or choices; a text option names its safe words (remote=(...))")

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


# ------------------------------------------------------------------ settings declared as dataclasses

_OPTION = "option"
_Settings = TypeVar("_Settings")


def setting(default: Any, help: str, **limits: Any) -> Any:
    """A field of a settings dataclass that is also an option: its default, help and ``limits`` (``min``,
    ``max``, ``choices``, ``remote``, as :class:`Option` takes them).  The option's name and type are the
    field's; an ``X | None`` field takes none (:func:`options_of`)."""
    return dataclasses.field(default=default, metadata={_OPTION: dict(help=help, **limits)})


def setting_like(option: Option, **changes: Any) -> Any:
    """A settings field declared as ``option`` is (default, help, limits), with ``changes`` to them."""
    declared = dict(default=option.default, help=option.help, min=option.min, max=option.max,
                    choices=option.choices, remote=option.remote)
    return setting(**{**declared, **changes})


def options_of(cls: type) -> tuple[Option, ...]:
    """The options of the settings dataclass ``cls``: one for each field declared with :func:`setting`, in
    the fields' order (fields without one are settings no user types)."""
    hints = typing.get_type_hints(cls)
    options = []
    for field in dataclasses.fields(cls):
        declared = field.metadata.get(_OPTION)
        if declared is not None:
            kind, optional = _option_type(hints[field.name])
            options.append(Option(field.name, kind, field.default, optional=optional, **declared))
    return tuple(options)


def _option_type(hint: Any) -> tuple[type, bool]:
    """``int`` -> (int, False); ``int | None`` -> (int, True)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        kinds = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        if len(kinds) != 1:
            raise TypeError(f"a setting is of one type, or of one type or None: {hint}")
        return kinds[0], True
    return hint, False


def settings_from(cls: type[_Settings], options: Mapping[str, Any], **changes: Any) -> _Settings:
    """The settings ``cls`` from resolved ``options`` (the values of its fields; other keys are another
    part's), ``changes`` winning; a field the options do not name keeps its default."""
    names = {field.name for field in dataclasses.fields(cls)}
    return cls(**{**{name: value for name, value in options.items() if name in names}, **changes})


def option_values(settings: Any) -> dict[str, Any]:
    """The options among the fields of the settings dataclass instance ``settings``, by name (what a plugin
    with those options is given to be set up the same)."""
    return {field.name: getattr(settings, field.name) for field in dataclasses.fields(settings)
            if _OPTION in field.metadata}


def remote_refusal(declared: Iterable[Option], given: Mapping[str, str], owner: str) -> str | None:
    """Why ``given`` (options as text, from over a network) may not be taken, or None: an option the plugin
    does not let a remote page set (:attr:`Option.remote`), a word outside a text option's safe words, or a
    value its option refuses.  Nothing is constructed or opened to decide, so the answer for a path is the
    same whether or not the path exists."""
    by_name = {opt.name: opt for opt in declared}
    allowed = [name for name, opt in by_name.items() if opt.remote]
    for name, raw in given.items():
        opt = by_name.get(name)
        if opt is None or not opt.remote:
            what = "has no option" if opt is None else "does not take option"
            return (f"{owner} {what} '{name}' from the page; the page may set "
                    f"{', '.join(allowed) if allowed else 'none of its options'} (give any other option on the "
                    f"command line: plyground play --black/--white SPEC)")
        if isinstance(opt.remote, tuple) and opt.type is str:
            if raw.strip() not in opt.remote:
                return f"{owner}: option '{name}' takes {', '.join(opt.remote)} from the page"
            continue
        try:
            value = opt.parse(raw, owner)
        except OptionError as exc:
            return str(exc)
        if isinstance(opt.remote, tuple) and value is not None and not opt.remote[0] <= value <= opt.remote[1]:
            return (f"{owner}: option '{name}' takes {opt.remote[0]} to {opt.remote[1]} from the page "
                    f"(more on the command line)")
    return None


def value_text(value: Any) -> str:
    """An option's value as a spec writes it, so that parsing the text gives the value back: ``none``,
    ``true``/``false``, a float exactly (``repr``), anything else as ``str``."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class Spec:
    """A plugin named with inline options, as typed on the command line: ``mcts:simulations=800,c=1.4``."""

    name: str
    options: dict

    @classmethod
    def parse(cls, text: str) -> "Spec":
        """``NAME`` or ``NAME:key=value,key=value``; OptionError naming the spec for anything else."""
        text = text.strip()
        name, colon, rest = text.partition(":")
        name = name.strip()
        if not name:
            raise _bad_spec(text, "there is no plugin name" + (" before the ':'" if colon else ""))
        if colon and not rest.strip():
            raise _bad_spec(text, f"nothing follows the ':' (write {name} alone for its defaults)")
        options: dict[str, str] = {}
        for part in _split_options(text, rest) if colon else ():
            key, value = _option_pair(text, part)
            if key in options:
                raise _bad_spec(text, f"option '{key}' is given twice")
            options[key] = value
        return cls(name, options)

    def __str__(self) -> str:
        if not self.options:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.options.items())


def _bad_spec(text: str, problem: str) -> OptionError:
    return OptionError(f"bad plugin spec {text!r}: {problem}; expected {SPEC_FORM}")


def _split_options(spec: str, text: str) -> list[str]:
    """The ``key=value`` parts of ``text`` (what follows the ':' of ``spec``), stripped."""
    pieces = text.split(",")
    if any(not piece.strip() for piece in pieces):
        # A stray comma is a slip (a half-deleted option), not an empty option to ignore.
        raise _bad_spec(spec, "an empty option (a comma with nothing before or after it)")
    # A comma separates options unless the next piece has no '=' (a value such as a path with a comma).
    parts: list[str] = []
    for piece in pieces:
        if parts and "=" not in piece:
            parts[-1] += "," + piece
        else:
            parts.append(piece)
    return [part.strip() for part in parts]


def _option_pair(spec: str, part: str) -> tuple[str, str]:
    """``'simulations=800'`` -> ``('simulations', '800')``; a missing key, '=' or value is refused."""
    key, eq, value = (word.strip() for word in part.partition("="))
    if not eq:
        raise _bad_spec(spec, f"option {part!r} has no '=' (write {part}=VALUE)")
    if not key:
        raise _bad_spec(spec, f"option {part!r} has no name before the '='")
    if not value:
        # An empty value is never needed: optional options take the word none.
        raise _bad_spec(spec, f"option '{key}' has no value after the '='")
    return key, value


def game_spec(game: Any) -> str:
    """The spec that rebuilds ``game`` (in another process, say): its name and its parameters off their
    defaults."""
    changed = {opt.name: value_text(game.params[opt.name]) for opt in game.options
               if opt.name in game.params and game.params[opt.name] != opt.default}
    return str(Spec(game.name, changed))


def jsonable_options(options: Mapping[str, Any]) -> dict:
    """Resolved options as JSON takes them (paths as text): what a run's config.json holds."""
    return {k: (str(v) if isinstance(v, Path) else v) for k, v in options.items()}
