"""The one plugin manager: entry points are loaded lazily, each in isolation.

``load_plugins()`` is idempotent and is never called at import time, so
``plyground --help`` and the tests stay fast.  A plugin that fails to import,
implements a misspelled hook, or raises while registering is reported with one
warning naming the plugin, its distribution and version, and the error; the rest
keep working.  ``PLYGROUND_STRICT_PLUGINS=1`` makes that a failure instead, and
``PLYGROUND_DISABLE_PLUGINS=a,b`` blocks plugins before they load.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from importlib.metadata import entry_points

import pluggy

from . import hookspecs
from .errors import PluginError

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


def strict() -> bool:
    return os.environ.get("PLYGROUND_STRICT_PLUGINS", "").strip().lower() in ("1", "true", "yes", "on")


def disabled() -> set[str]:
    raw = os.environ.get("PLYGROUND_DISABLE_PLUGINS", "")
    return {name.strip() for name in raw.split(",") if name.strip()}


def report_failure(message: str) -> None:
    """Warn about one broken plugin, or stop in strict mode."""
    if strict():
        raise PluginError(message + " (PLYGROUND_STRICT_PLUGINS is set)")
    _failures.append(message)
    print(f"plyground: warning: {message}; skipped", file=sys.stderr)


def load_plugins() -> None:
    """Import and register every entry point of the ``plyground`` group, once."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    blocked = disabled()
    for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        if ep.name in blocked or ep.name in _infos:
            continue
        dist = ep.dist
        info = PluginInfo(ep.name, ep.value, dist.name if dist else "?", dist.version if dist else "?")
        where = f"plugin '{ep.name}' ({info.distribution} {info.version})"
        try:
            module = ep.load()
        except Exception as exc:  # any import-time failure of third-party code
            report_failure(f"{where} failed to load: {type(exc).__name__}: {exc}")
            continue
        register(module, info)


def register(module: object, info: PluginInfo) -> bool:
    """Register one plugin object; reject it (with a warning) if its hooks are misspelled."""
    where = f"plugin '{info.name}' ({info.distribution} {info.version})"
    try:
        pm.register(module, name=info.name)
    except Exception as exc:  # pluggy's validation of hook signatures
        report_failure(f"{where} is invalid: {exc}")
        return False
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        pm.unregister(module)
        report_failure(f"{where} implements an unknown hook: {exc}")
        return False
    _infos[info.name] = info
    return True


def unregister(name: str) -> None:
    """Remove a plugin (used by tests that register a throwaway plugin)."""
    module = pm.get_plugin(name)
    if module is not None:
        pm.unregister(module)
    _infos.pop(name, None)


def plugin_infos() -> dict[str, PluginInfo]:
    load_plugins()
    return dict(_infos)


def failures() -> list[str]:
    load_plugins()
    return list(_failures)
