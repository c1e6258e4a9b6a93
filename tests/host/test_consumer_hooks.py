"""Kinds a consumer plugin owns: their hookspecs are added by the consumer, in any load order, and listed."""
from __future__ import annotations

import json
from dataclasses import dataclass

import pluggy
import pytest

from plyground import hookspecs, plugin_manager, registry
from plyground.hookspecs import Kind, hookimpl, hookspec
from plyground.protocols import Plugin


class Sprocket(Plugin):
    """What the consumer below consumes."""


class Gear(Sprocket):
    name = "gear"
    description = "a sprocket with teeth"


class SprocketHooks:
    @hookspec
    def register_sprockets(self) -> list[type]:
        """Return Sprocket subclasses."""


class Consumer:
    @hookimpl
    def register_kinds(self):
        return [Kind("sprockets", "sprocket", "register_sprockets", Sprocket, hookspecs=SprocketHooks)]


class Provider:
    @hookimpl
    def register_sprockets(self):
        return [Gear]


class WrongArguments:
    @hookimpl
    def register_sprockets(self, colour):
        return []


class Optional:
    @hookimpl(optionalhook=True)
    def register_sprockets(self):
        return [Gear]


class Misspelled:
    @hookimpl
    def register_sprocket(self):
        return []


@dataclass
class FakeEntryPoint:
    name: str
    plugin: object
    dist: None = None

    @property
    def value(self) -> str:
        return f"tests.{self.name}"

    def load(self):
        return self.plugin


@pytest.fixture
def host(monkeypatch):
    """The plugin manager with a fresh pluggy manager and the given entry points (loaded in name order)."""
    manager = pluggy.PluginManager("plyground")
    manager.add_hookspecs(hookspecs)
    for name, value in (("pm", manager), ("_infos", {}), ("_kinds", {}), ("_kinds_read", set()),
                        ("_failures", []), ("_loaded", False), ("strict", lambda: False)):
        monkeypatch.setattr(plugin_manager, name, value)
    monkeypatch.setattr(registry, "_registry", None)

    def load(**plugins):
        entry_points = [FakeEntryPoint(name.replace("_", "-"), plugin) for name, plugin in plugins.items()]
        monkeypatch.setattr(plugin_manager, "entry_points", lambda group: entry_points)
        plugin_manager.load_plugins()
        return registry.get_registry()

    return load


def test_a_provider_loaded_before_its_consumer_is_kept_and_checked(host, capsys):
    reg = host(a_gears=Provider(), z_sprockets=Consumer())      # "a-gears" registers first
    assert plugin_manager.failures() == []
    assert reg.names("sprockets") == ["gear"]
    assert reg.get("sprockets", "gear").plugin == "a-gears"
    assert reg.declared_by["sprockets"] == "z-sprockets"
    assert set(plugin_manager.plugin_infos()) == {"a-gears", "z-sprockets"}
    assert capsys.readouterr().err == ""


def test_a_provider_whose_hook_does_not_match_the_consumers_spec_is_rejected_alone(host, capsys):
    reg = host(a_bad=WrongArguments(), b_gears=Provider(), z_sprockets=Consumer())
    [failure] = plugin_manager.failures()
    assert "plugin 'a-bad'" in failure and "colour" in failure
    assert reg.names("sprockets") == ["gear"]
    assert "a-bad" not in plugin_manager.plugin_infos()
    assert "warning" in capsys.readouterr().err


def test_without_the_consumer_a_plain_hookimpl_is_unknown_and_an_optional_one_is_fine(host):
    reg = host(a_gears=Provider(), b_optional=Optional(), c_typo=Misspelled())
    failures = plugin_manager.failures()
    assert len(failures) == 2
    assert any("plugin 'a-gears'" in f and "unknown hook: register_sprockets" in f for f in failures)
    typo = next(f for f in failures if "plugin 'c-typo'" in f)
    assert "register_sprocket " in typo and "known hooks:" in typo and "register_players" in typo
    assert set(plugin_manager.plugin_infos()) == {"b-optional"}
    assert "sprockets" not in reg.kinds


def test_unregistering_the_consumer_drops_its_kind(host):
    host(a_gears=Provider(), z_sprockets=Consumer())
    plugin_manager.unregister("z-sprockets")
    registry.reset_registry()
    assert "sprockets" not in registry.get_registry().kinds


def test_the_builtin_consumers_kinds_are_listed(cli):
    code, out, err = cli("plugins", "--json")
    assert code == 0, err
    rows = {row["name"]: row for row in json.loads(out)}
    assert rows["alphazero"]["adds_kinds"] == ["networks"]
    assert rows["bayes"]["adds_kinds"] == ["bayes-adapters"]
    assert "adds_kinds" not in rows["pygame"] and "adds_kinds" not in rows["web"]   # board views: the host's kind
    assert {"resnet", "mlp"} <= set(rows["autograd"]["networks"])
    # each game's plugin registers its own adapter through the consumer's hook, and its view through the host's
    assert rows["checkers"]["bayes-adapters"] == ["checkers"] and rows["chess"]["bayes-adapters"] == ["chess"]
    assert [rows[game]["board-views"] for game in ("checkers", "chess", "tictactoe")] == [
        ["checkers"], ["chess"], ["tictactoe"]]
    assert "board-views" not in rows["pygame"] and "bayes-adapters" not in rows["bayes"]
    code, out, _ = cli("plugins")
    assert "adds kinds: board-views" not in out and "board-views: checkers" in out
    # the columns line up whatever the length of a plugin's name (alphazero-trainer is the longest)
    lines = out.splitlines()
    for heading in ("distribution", "version", "provides"):
        column = lines[0].index(heading)
        assert all(line[column - 2:column] == "  " and line[column] != " " for line in lines[1:]), heading
    code, out, _ = cli("list", "networks")
    assert code == 0 and "resnet: " in out
    code, out, _ = cli("list", "bayes-adapters", "--json")
    assert {row["name"] for row in json.loads(out)} == {"checkers", "chess"}
