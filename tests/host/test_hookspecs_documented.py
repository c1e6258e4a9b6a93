"""Every hook, the host's and those consumer plugins add, is documented and used by a built-in plugin.

(datasette's habit: a hook nobody documents or implements is a hook nobody can rely on.)
"""
from __future__ import annotations

from pathlib import Path

import click

from plyground import hookspecs, plugin_manager
from plyground.cli import cli
from plyground.registry import get_registry

DOCS = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"
CONSUMER_HOOKS = {"register_networks", "register_bayes_adapters"}


def _hooks() -> dict:
    plugin_manager.load_plugins()
    return {name: caller for name, caller in vars(plugin_manager.pm.hook).items()
            if not name.startswith("_") and caller.has_spec()}


def _builtin_plugins() -> set[str]:
    return {name for name, info in plugin_manager.plugin_infos().items() if info.distribution == "plyground"}


def test_the_consumer_hooks_are_added_by_their_consumers():
    hooks = _hooks()
    assert CONSUMER_HOOKS <= set(hooks)
    assert not CONSUMER_HOOKS & set(vars(hookspecs))          # declared by their consumers, not the host
    assert "register_board_views" in vars(hookspecs)          # board views: the host's, for every front end


def test_every_hook_is_named_in_docs_plugins_md():
    text = DOCS.read_text(encoding="utf-8")
    missing = [name for name in _hooks() if f"`{name}(" not in text]
    assert not missing, f"hooks not documented in {DOCS}: {missing}"


def test_every_hook_is_implemented_by_a_builtin_plugin():
    builtin = _builtin_plugins()
    lonely = [name for name, caller in _hooks().items()
              if not any(impl.plugin_name in builtin for impl in caller.get_hookimpls())]
    assert not lonely, f"hooks no built-in plugin implements: {lonely}"


def test_every_hook_is_exercised():
    """Calling each hook the way the host does gives something from a built-in plugin."""
    registry, builtin = get_registry(), _builtin_plugins()
    by_hook = {kind.hook: name for name, kind in registry.kinds.items()}
    for hook in _hooks():
        if hook in by_hook:          # a kind: the registry collects it through the hook
            assert any(e.plugin in builtin for e in registry.entries(by_hook[hook])), hook
        elif hook == "register_kinds":
            assert {"networks", "bayes-adapters"} <= set(registry.declared_by)
            assert set(registry.declared_by.values()) <= builtin
        elif hook == "register_commands":
            with click.Context(cli) as ctx:
                assert cli.get_command(ctx, "screenshots") is not None   # the pygame plugin's command
        else:
            raise AssertionError(f"hook {hook} is not exercised here: say how the host calls it")
