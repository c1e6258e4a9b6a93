"""Names users type -> plugin classes, per kind, with the plugin each came from."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

from . import plugin_manager as plugins
from .errors import PluginError, UsageError
from .options import Option, Spec, resolve_options
from .protocols import Game, Network, Player, Renderer, Trainer

KINDS: dict[str, tuple[str, type]] = {
    # kind (plural, as typed in `plyground list`) -> (hook name, required base class)
    "games": ("register_games", Game),
    "players": ("register_players", Player),
    "renderers": ("register_renderers", Renderer),
    "trainers": ("register_trainers", Trainer),
    "networks": ("register_networks", Network),
}
SINGULAR = {"games": "game", "players": "player", "renderers": "renderer",
            "trainers": "trainer", "networks": "network"}
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
    def __init__(self) -> None:
        self._entries: dict[str, dict[str, Entry]] = {kind: {} for kind in KINDS}

    def add(self, kind: str, cls: type, plugin: str) -> None:
        base = KINDS[kind][1]
        what = f"plugin '{plugin}' registers {cls!r} as a {SINGULAR[kind]}"
        if not (isinstance(cls, type) and issubclass(cls, base)):
            raise PluginError(f"{what}, but it is not a subclass of plyground.protocols.{base.__name__}")
        if not isinstance(cls.name, str) or not _NAME.match(cls.name):
            raise PluginError(f"{what} with invalid name {cls.name!r}: use lower case letters, digits, '-' or '_'")
        if not isinstance(cls.description, str) or not cls.description.strip():
            raise PluginError(f"{what} without a one-line description")
        if not all(isinstance(o, Option) for o in cls.options):
            raise PluginError(f"{what} whose options are not all plyground.options.Option")
        clash = self._entries[kind].get(cls.name)
        if clash is not None:
            raise PluginError(
                f"{SINGULAR[kind]} name '{cls.name}' is registered twice: by plugin '{clash.plugin}' "
                f"({_qualname(clash.cls)}) and by plugin '{plugin}' ({_qualname(cls)}); "
                f"block one with PLYGROUND_DISABLE_PLUGINS={plugin}")
        self._entries[kind][cls.name] = Entry(kind, cls.name, cls, plugin)

    def entries(self, kind: str) -> list[Entry]:
        return sorted(self._entries[kind].values(), key=lambda e: e.name)

    def names(self, kind: str) -> list[str]:
        return [e.name for e in self.entries(kind)]

    def get(self, kind: str, name: str) -> Entry:
        entry = self._entries[kind].get(name)
        if entry is None:
            valid = ", ".join(self.names(kind)) or "(none installed)"
            raise UsageError(f"unknown {SINGULAR[kind]} '{name}'; valid {kind}: {valid}")
        return entry

    def __iter__(self) -> Iterator[Entry]:
        for kind in KINDS:
            yield from self.entries(kind)

    # --- construction from specs -------------------------------------------
    def make_game(self, spec: str | Spec) -> Game:
        spec = Spec.parse(spec) if isinstance(spec, str) else spec
        entry = self.get("games", spec.name)
        options = resolve_options(entry.options, spec.options, f"game {spec.name}")
        return entry.cls(**options)

    def make_player(self, spec: str | Spec, game: Game) -> Player:
        spec = Spec.parse(spec) if isinstance(spec, str) else spec
        entry = self.get("players", spec.name)
        reason = entry.cls.unsupported_reason(game)
        if reason:
            raise UsageError(f"player '{spec.name}' cannot play {game.name}: {reason}; "
                             f"players for {game.name}: {', '.join(self.players_for(game))}")
        options = resolve_options(entry.options, spec.options, f"player {spec.name}")
        return entry.cls(game, **options)

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
        return [e.name for e in self.entries("players") if not e.cls.unsupported_reason(game)]


def _qualname(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


_registry: Registry | None = None


def get_registry() -> Registry:
    """The registry of every loaded plugin's classes, built once."""
    global _registry
    if _registry is None:
        plugins.load_plugins()
        registry = Registry()
        for kind, (hook_name, _) in KINDS.items():
            for impl in getattr(plugins.pm.hook, hook_name).get_hookimpls():
                _collect(registry, kind, impl)
        _registry = registry
    return _registry


def _collect(registry: Registry, kind: str, impl) -> None:
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
            registry.add(kind, cls, impl.plugin_name)
        except PluginError as exc:
            if "registered twice" in str(exc):
                raise  # an ambiguity the user must resolve, not something to skip silently
            plugins.report_failure(str(exc))


def reset_registry() -> None:
    """Forget the built registry (tests that register plugins call this)."""
    global _registry
    _registry = None
