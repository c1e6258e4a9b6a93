"""Names users type -> plugin classes, per kind, with the plugin each came from.

The host's kinds (games, players, renderers, trainers) are collected when the
registry is built; its front ends' kind (board-views) and the kinds a plugin consumes and declares with
``register_kinds`` (networks, bayes-adapters) the first time something asks for them,
so a board view's drawing code waits until a window or a page wants it.
"""
from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Iterable, Iterator

from . import plugin_manager as plugins
from .errors import PluginError, UnsupportedGame, UsageError
from .hookspecs import FRONT_END_KINDS, HOST_KINDS, Kind
from .options import Option, Spec, resolve_options
from .protocols import PLAYABLE, Game, Player, Renderer, unsupported_reason

#: The host's kinds by name (kinds plugins add are in ``Registry.kinds``).
KINDS: dict[str, Kind] = {kind.name: kind for kind in HOST_KINDS}
#: The command line's default game (the one the host names): ``plyground play`` with no --game plays it.
DEFAULT_GAME = "checkers"
_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")


@dataclass(frozen=True)
class Entry:
    kind: str
    name: str
    cls: type
    plugin: str

    @property
    def description(self) -> str:
        return self.cls.description

    @property
    def options(self) -> tuple[Option, ...]:
        return tuple(self.cls.options)


class Registry:
    def __init__(self, kinds: Iterable[Kind] = HOST_KINDS) -> None:
        self.kinds: dict[str, Kind] = {}
        self.declared_by: dict[str, str] = {}          # kind name -> plugin that declared it
        self._entries: dict[str, dict[str, Entry]] = {}
        self._uncollected: set[str] = set()
        for kind in kinds:
            self.add_kind(kind)

    # --- kinds -------------------------------------------------------------
    def add_kind(self, kind: Kind, plugin: str | None = None, *, collected: bool = True) -> None:
        """Hold classes of ``kind``; ``collected=False``: ask its hook the first time the kind is used."""
        if kind.name in self.kinds:
            raise PluginError(f"plugin '{plugin}' declares the kind '{kind.name}', which exists already")
        self.kinds[kind.name] = kind
        self._entries[kind.name] = {}
        if plugin is not None:
            self.declared_by[kind.name] = plugin
        if not collected:
            self._uncollected.add(kind.name)

    def _kind(self, name: str) -> Kind:
        kind = self.kinds.get(name)
        if kind is None:
            raise UsageError(f"unknown kind '{name}'; valid kinds: {', '.join(self.kinds)}")
        return kind

    def _table(self, name: str) -> dict[str, Entry]:
        kind = self._kind(name)
        if name in self._uncollected:
            self._uncollected.discard(name)
            _collect_kind(self, kind)
        return self._entries[name]

    # --- entries -----------------------------------------------------------
    def add(self, kind_name: str, cls: type, plugin: str) -> None:
        kind = self._kind(kind_name)
        table = self._table(kind_name)
        base = _base_class(kind)
        what = f"plugin '{plugin}' registers {cls!r} as a {kind.singular}"
        if not (isinstance(cls, type) and issubclass(cls, base)):
            raise PluginError(f"{what}, but it is not a subclass of {_qualname(base)}")
        name = getattr(cls, kind.key)
        if not isinstance(name, str) or not _NAME.match(name):
            raise PluginError(f"{what} with invalid {kind.key} {name!r}: use lower case letters, digits, '-' or '_'")
        if not isinstance(cls.description, str) or not cls.description.strip():
            raise PluginError(f"{what} without a one-line description")
        if not all(isinstance(o, Option) for o in cls.options):
            raise PluginError(f"{what} whose options are not all plyground.options.Option")
        clash = table.get(name)
        if clash is not None:
            label = f"{kind.singular} name" if kind.key == "name" else f"{kind.singular} for game"
            raise PluginError(
                f"{label} '{name}' is registered twice: by plugin '{clash.plugin}' "
                f"({_qualname(clash.cls)}) and by plugin '{plugin}' ({_qualname(cls)}); "
                f"block one with PLYGROUND_DISABLE_PLUGINS={plugin}")
        table[name] = Entry(kind_name, name, cls, plugin)

    def entries(self, kind: str) -> list[Entry]:
        return sorted(self._table(kind).values(), key=lambda e: e.name)

    def names(self, kind: str) -> list[str]:
        return [e.name for e in self.entries(kind)]

    def default_game(self, among: Iterable[str] | None = None) -> str:
        """The game a command or the window's menu starts with when none is named: :data:`DEFAULT_GAME` when
        it is installed (and among ``among``, when given), else the first installed game ("" if none)."""
        names = list(self.names("games") if among is None else among)
        return DEFAULT_GAME if DEFAULT_GAME in names else (names[0] if names else "")

    def find(self, kind: str, name: str) -> Entry | None:
        """The entry named ``name``, or ``None`` (``get`` raises instead)."""
        return self._table(kind).get(name)

    def get(self, kind: str, name: str) -> Entry:
        entry = self.find(kind, name)
        if entry is None:
            valid = ", ".join(self.names(kind)) or "(none installed)"
            raise UsageError(f"{plugins.missing_name(self._kind(kind).singular, name)}; valid {kind}: {valid}")
        return entry

    def __iter__(self) -> Iterator[Entry]:
        for kind in list(self.kinds):
            yield from self.entries(kind)

    # --- construction from specs -------------------------------------------
    def make_game(self, spec: str | Spec) -> Game:
        """The game ``spec`` names; its options are resolved (once) by the game's constructor."""
        spec = Spec.parse(spec) if isinstance(spec, str) else spec
        return self.get("games", spec.name).cls(**spec.options)

    def make_player(self, spec: str | Spec, game: Game) -> Player:
        """The player ``spec`` names, for ``game``.  The player's constructor checks, once, that it can
        play the game and resolves its options; a refusal here also names the players that can."""
        spec = Spec.parse(spec) if isinstance(spec, str) else spec
        entry = self.get("players", spec.name)
        try:
            return entry.cls(game, **spec.options)
        except UnsupportedGame as exc:
            if exc.plugin is not entry.cls:
                raise                  # a player this one builds (a prior, a hint) cannot play it
            raise UsageError(f"player '{spec.name}' cannot play {game.name}: {exc.reason}; "
                             f"players for {game.name}: {', '.join(self.players_for(game)) or '(none)'}") from None

    def make_renderer(self, spec: str | Spec, game: Game) -> Renderer:
        spec = Spec.parse(spec) if isinstance(spec, str) else spec
        entry = self.get("renderers", spec.name)
        reason = entry.cls.unsupported_reason(game)
        if reason:
            valid = [e.name for e in self.entries("renderers") if not e.cls.unsupported_reason(game)]
            raise UsageError(f"renderer '{spec.name}' cannot show {game.name}: {reason}; "
                             f"renderers for {game.name}: {', '.join(valid) or '(none)'}")
        options = resolve_options(entry.options, spec.options, f"renderer {spec.name}")
        return entry.cls(**options)

    def players_for(self, game: Game) -> list[str]:
        if unsupported_reason(game, PLAYABLE):
            return []
        return [e.name for e in self.entries("players") if not e.cls.unsupported_reason(game)]

    def default_opponent(self, game: Game) -> str:
        """The spec of the strongest opponent installed for ``game``: the first of its ``default_opponents``
        that can play it here (``stockfish`` only where Stockfish is installed), else ``random``.
        ``plyground play`` and the pygame menu both start from it."""
        bots = [name for name in self.players_for(game) if name != "human"]
        for spec in game.default_opponents:
            if Spec.parse(spec).name in bots:
                return spec
        return "random" if "random" in bots or not bots else bots[0]

    def default_judge(self, game: Game) -> tuple[str, list[str]]:
        """The spec of the strongest judge installed for ``game`` (``plyground analyse`` with no ``--engine``):
        the first of its ``default_judges`` that can play it here, else its default opponent; and why each
        judge before it was passed over ("stockfish: Stockfish is not installed ..."), for the report to say."""
        bots = [name for name in self.players_for(game) if name != "human"]
        passed_over = []
        for spec in game.default_judges:
            name = Spec.parse(spec).name
            if name in bots:
                return spec, passed_over
            entry = self.find("players", name)
            reason = entry.cls.unsupported_reason(game) if entry is not None else None
            passed_over.append(f"{spec}: {reason or 'not installed'}")
        return self.default_opponent(game), passed_over


def _qualname(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _base_class(kind: Kind) -> type:
    """The kind's base class, importing it when the kind names it as ``"module:Class"``."""
    if isinstance(kind.base, type):
        return kind.base
    module, _, name = kind.base.partition(":")
    return getattr(importlib.import_module(module), name)


_registry: Registry | None = None


def get_registry() -> Registry:
    """The registry of every loaded plugin's classes, built once."""
    global _registry
    if _registry is None:
        plugins.load_plugins()
        registry = Registry()
        for kind in HOST_KINDS:
            _collect_kind(registry, kind)
        for kind in FRONT_END_KINDS:
            registry.add_kind(kind, collected=False)
        for kind, plugin in plugins.consumer_kinds():
            try:
                registry.add_kind(kind, plugin, collected=False)
            except PluginError as exc:
                plugins.report_failure(str(exc))
        _registry = registry
    return _registry


def _collect_kind(registry: Registry, kind: Kind) -> None:
    for impl in getattr(plugins.pm.hook, kind.hook).get_hookimpls():
        _collect(registry, kind, impl)


def _collect(registry: Registry, kind: Kind, impl) -> None:
    try:
        classes = impl.function() or []
    except Exception as exc:  # a plugin's own registration code failed
        info = plugins.plugin_infos().get(impl.plugin_name)
        dist = f" ({info.distribution} {info.version})" if info else ""
        plugins.report_failure(f"plugin '{impl.plugin_name}'{dist} failed in {impl.function.__name__}: "
                               f"{type(exc).__name__}: {exc}")
        return
    for cls in classes:
        try:
            registry.add(kind.name, cls, impl.plugin_name)
        except PluginError as exc:
            if "registered twice" in str(exc):
                raise  # an ambiguity the user must resolve, not something to skip silently
            plugins.report_failure(str(exc))


def reset_registry() -> None:
    """Forget the built registry (tests that register plugins call this)."""
    global _registry
    _registry = None
