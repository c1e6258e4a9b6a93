"""The one plugin manager: entry points are loaded lazily, each in isolation.

``load_plugins()`` is idempotent and is never called at import time, so
``plyground --help`` and the tests stay fast.  A plugin that fails to import,
implements a misspelled hook, or raises while registering is reported with one
warning naming the plugin, its distribution and version, and the error; the rest
keep working.  ``PLYGROUND_STRICT_PLUGINS=1`` makes that a failure instead.

``PLYGROUND_DISABLE_PLUGINS=a,b`` blocks plugins by the names users know them by:
a plugin's own (entry-point) name blocks it before it is imported, and a name a
plugin registers (the trainer ``alphazero``, the player ``stockfish``, the
network ``resnet``) blocks every plugin that registers it, once they are
imported and before any of their classes is used.  A name that is neither is
warned about, naming the valid ones.

A plugin that consumes a kind of class (networks, bayes adapters, board views)
declares it with ``register_kinds``; its hookspec is added here, before any
plugin's hooks are checked, so the order plugins load in does not matter.
"""
from __future__ import annotations

import multiprocessing
import os
import sys
from dataclasses import dataclass
from importlib.metadata import entry_points

import pluggy

from . import hookspecs
from .errors import PluginError
from .hookspecs import HOST_KINDS, Kind

GROUP = "plyground"


@dataclass(frozen=True)
class PluginInfo:
    """Where a loaded plugin came from."""

    name: str
    module: str
    distribution: str
    version: str


pm = pluggy.PluginManager(GROUP)
pm.add_hookspecs(hookspecs)

_loaded = False
_infos: dict[str, PluginInfo] = {}
_failures: list[str] = []
#: Kinds that plugins consume and declared through ``register_kinds``: kind name -> (Kind, plugin name).
_kinds: dict[str, tuple[Kind, str]] = {}
_kinds_read: set[str] = set()        # plugins whose register_kinds was read
#: Plugins PLYGROUND_DISABLE_PLUGINS blocks: plugin name -> (where it came from, the given names that block it).
_blocked: dict[str, tuple["PluginInfo", tuple[str, ...]]] = {}


def strict() -> bool:
    return os.environ.get("PLYGROUND_STRICT_PLUGINS", "").strip().lower() in ("1", "true", "yes", "on")


def disabled() -> set[str]:
    """The names ``PLYGROUND_DISABLE_PLUGINS`` gives: plugins' own names or names plugins register."""
    raw = os.environ.get("PLYGROUND_DISABLE_PLUGINS", "")
    return {name.strip() for name in raw.split(",") if name.strip()}


def report_failure(message: str) -> None:
    """Warn about one broken plugin, or stop in strict mode."""
    if strict():
        raise PluginError(message + " (PLYGROUND_STRICT_PLUGINS is set)")
    _failures.append(message)
    print(f"plyground: warning: {message}; skipped", file=sys.stderr)


def load_plugins() -> None:
    """Import and register every entry point of the ``plyground`` group, once.

    Every plugin is registered before any is checked for unknown hooks: a plugin
    may implement a hook that a consumer loaded after it declares (pluggy keeps
    such hookimpls and checks them when their spec is added).
    """
    global _loaded
    if _loaded:
        return
    _loaded = True
    blocked = disabled()
    registered = []
    points = sorted(entry_points(group=GROUP), key=lambda e: e.name)
    for ep in points:
        if ep.name in _infos:
            continue
        dist = ep.dist
        info = PluginInfo(ep.name, ep.value, dist.name if dist else "?", dist.version if dist else "?")
        if ep.name in blocked:
            _blocked[ep.name] = (info, (ep.name,))
            continue
        try:
            module = ep.load()
        except Exception as exc:  # any import-time failure of third-party code
            report_failure(f"{_where(info)} failed to load: {type(exc).__name__}: {exc}")
            continue
        if _register(module, info):
            registered.append((module, info))
    _add_consumer_hookspecs()
    for module, info in registered:
        if pm.is_registered(module):
            _check_hooks_known(module, info)
    _block_by_registered_names(blocked, {ep.name for ep in points})


def _block_by_registered_names(wanted: set[str], plugin_names: set[str]) -> None:
    """Block every loaded plugin that registers one of the names ``wanted`` (``alphazero`` blocks the plugin
    of that name and ``alphazero-trainer``, which registers the trainer ``alphazero``); warn about a name that
    is neither a plugin's nor registered by one, naming the valid ones."""
    if not wanted:
        return
    provided = {name: names_registered(name) for name in list(_infos)}
    for name, names in provided.items():
        hits = tuple(sorted(wanted & names))
        if hits:
            pm.unregister(pm.get_plugin(name))
            _blocked[name] = (_infos[name], hits)
            _forget(name)
    known = set().union(*provided.values())
    if multiprocessing.parent_process() is not None:
        return                      # a worker process: its parent, with the same environment, has warned
    unimported = sorted(wanted & plugin_names)        # blocked by their own names: what they register is unknown
    for name in sorted(wanted - known - plugin_names):
        valid = ", ".join(sorted(plugin_names | known))
        maybe = (f" (unless {_plugins_text(unimported)}, blocked by name and so never imported, would register it)"
                 if unimported else "")
        print(f"plyground: warning: PLYGROUND_DISABLE_PLUGINS names '{name}', which is no plugin's name and no "
              f"name a plugin registers, so it blocks nothing{maybe}; valid names: {valid} (a plugin's name, or a "
              f"name it registers: plyground plugins lists both)", file=sys.stderr)


def names_registered(plugin: str) -> set[str]:
    """The names plugin ``plugin`` registers in the kinds known by name (games, players, renderers, trainers,
    networks): what users type, asked of its hooks.  A hook that fails gives none (the registry reports it)."""
    module = pm.get_plugin(plugin)
    hooks = {kind.hook for kind in HOST_KINDS} | {kind.hook for kind, _ in _kinds.values() if kind.key == "name"}
    names: set[str] = set()
    callers = (pm.get_hookcallers(module) or []) if module is not None else []
    for caller in callers:
        if caller.name not in hooks:
            continue
        for impl in caller.get_hookimpls():
            if impl.plugin is module:
                try:
                    classes = list(impl.function() or [])
                except Exception:  # noqa: BLE001 - the plugin's own registration code; the registry reports it
                    continue
                names.update(name for name in (getattr(cls, "name", None) for cls in classes) if isinstance(name, str))
    return names


def blocked_plugins() -> dict[str, tuple[PluginInfo, tuple[str, ...]]]:
    """The plugins PLYGROUND_DISABLE_PLUGINS blocks: name -> (where it came from, the given names that block it:
    its own, or names it registers)."""
    load_plugins()
    return dict(_blocked)


def missing_name(what: str, name: str) -> str:
    """How a message begins about a ``what`` (``"trainer"``) called ``name`` that no loaded plugin registers:
    ``unknown trainer 'x'``, or why PLYGROUND_DISABLE_PLUGINS leaves it out."""
    blocked = blocked_plugins()
    by_name = [plugin for plugin, (_, names) in blocked.items() if name in names]
    if by_name:
        return f"{what} '{name}' is blocked: PLYGROUND_DISABLE_PLUGINS={name} blocks {_plugins_text(by_name)}"
    if blocked:
        return f"unknown {what} '{name}' (PLYGROUND_DISABLE_PLUGINS blocks {_plugins_text(blocked)})"
    return f"unknown {what} '{name}'"


def _plugins_text(names) -> str:
    names = list(names)
    return f"plugin{'s' if len(names) > 1 else ''} {', '.join(names)}"


def register(module: object, info: PluginInfo) -> bool:
    """Register one plugin object; reject it (with a warning) if its hooks are misspelled."""
    if not _register(module, info):
        return False
    _add_consumer_hookspecs()
    return pm.is_registered(module) and _check_hooks_known(module, info)


def unregister(name: str) -> None:
    """Remove a plugin (used by tests that register a throwaway plugin)."""
    module = pm.get_plugin(name)
    if module is not None:
        pm.unregister(module)
    _forget(name)


def consumer_kinds() -> list[tuple[Kind, str]]:
    """The kinds plugins declared through ``register_kinds``, each with the plugin that consumes it."""
    load_plugins()
    return list(_kinds.values())


def _where(info: PluginInfo) -> str:
    return f"plugin '{info.name}' ({info.distribution} {info.version})"


def _where_name(name: str) -> str:
    info = _infos.get(name)
    return _where(info) if info is not None else f"plugin '{name}'"


def _register(module: object, info: PluginInfo) -> bool:
    try:
        pm.register(module, name=info.name)
    except Exception as exc:  # pluggy's validation of hook signatures
        report_failure(f"{_where(info)} is invalid: {exc}")
        return False
    _infos[info.name] = info
    return True


def _forget(name: str) -> None:
    """Drop what the host knows of plugin ``name``: its info and the kinds it declared."""
    _infos.pop(name, None)
    _kinds_read.discard(name)
    for kind_name, (_, owner) in list(_kinds.items()):
        if owner == name:
            del _kinds[kind_name]


def _check_hooks_known(module: object, info: PluginInfo) -> bool:
    """Reject ``module`` if it implements a hook nobody declared (a misspelling, usually)."""
    unknown = sorted({caller.name for caller in pm.get_hookcallers(module) or []
                      if not caller.has_spec()
                      and any(impl.plugin is module and not impl.optionalhook for impl in caller.get_hookimpls())})
    if not unknown:
        return True
    pm.unregister(module)
    _forget(info.name)
    known = sorted(name for name, caller in vars(pm.hook).items() if not name.startswith("_") and caller.has_spec())
    report_failure(f"{_where(info)} implements an unknown hook: {', '.join(unknown)} (known hooks: {', '.join(known)})")
    return False


# ------------------------------------------------------------------ hooks that consumers add

def _add_consumer_hookspecs() -> None:
    """Add the hookspecs of the kinds registered plugins consume, each once."""
    for impl in pm.hook.register_kinds.get_hookimpls():
        if impl.plugin_name in _kinds_read:
            continue
        _kinds_read.add(impl.plugin_name)
        where = _where_name(impl.plugin_name)
        try:
            kinds = list(impl.function() or [])
        except Exception as exc:  # the plugin's own declaration code failed
            report_failure(f"{where} failed in register_kinds: {type(exc).__name__}: {exc}")
            continue
        for kind in kinds:
            if not isinstance(kind, Kind):
                report_failure(f"{where} declares {kind!r} in register_kinds, not a plyground.hookspecs.Kind")
            elif kind.hookspecs is None:
                report_failure(f"{where} declares the kind '{kind.name}' without the hookspecs of its hook")
            elif kind.name in _kinds:
                report_failure(f"kind '{kind.name}' is declared twice: by plugin '{_kinds[kind.name][1]}' and by "
                               f"plugin '{impl.plugin_name}'; block one with PLYGROUND_DISABLE_PLUGINS")
            elif _add_hookspecs(kind, where) and pm.get_plugin(impl.plugin_name) is not None:
                _kinds[kind.name] = (kind, impl.plugin_name)


def _add_hookspecs(kind: Kind, where: str) -> bool:
    """``pm.add_hookspecs(kind.hookspecs)``, checking the plugins that implemented its hooks before it came."""
    namespace = kind.hookspecs
    names = [name for name in dir(namespace) if pm.parse_hookspec_opts(namespace, name) is not None]
    if kind.hook not in names:
        report_failure(f"{where} declares the kind '{kind.name}' but its hookspecs have no hook '{kind.hook}'")
        return False
    callers = {name: getattr(pm.hook, name, None) for name in names}
    declared = {name: caller.spec.namespace for name, caller in callers.items()
                if caller is not None and caller.spec is not None}
    if declared:
        if all(owner is namespace for owner in declared.values()) and len(declared) == len(names):
            return True   # already added (two kinds sharing one namespace)
        report_failure(f"{where} declares the hook(s) {', '.join(sorted(declared))}, which are declared already")
        return False
    # pluggy checks early hookimpls when the spec arrives but stops at the first bad one; registering
    # their plugins again after it checks each and lets us reject only the offender.
    early = {impl.plugin_name: impl.plugin for caller in callers.values() if caller is not None
             for impl in caller.get_hookimpls()}
    for plugin in early.values():
        pm.unregister(plugin)
    pm.add_hookspecs(namespace)
    for name, plugin in early.items():
        try:
            pm.register(plugin, name=name)
        except Exception as exc:  # a hookimpl whose arguments the new spec does not have
            where_early = _where_name(name)
            _forget(name)
            report_failure(f"{where_early} is invalid: {exc}")
    return True


def plugin_infos() -> dict[str, PluginInfo]:
    load_plugins()
    return dict(_infos)


def failures() -> list[str]:
    load_plugins()
    return list(_failures)
