"""Third-party plugins are real packages: built, installed into a fresh virtual environment, used."""
from __future__ import annotations

import json
import site
import subprocess
import venv
from pathlib import Path

from plugin_venv import REPO, external, pip_install, plyground


def test_installed_player_is_listed_and_plays(env, tmp_path_factory):
    pip_install(env, external("good", tmp_path_factory))
    listing = plyground(env, "plugins", "--json")
    assert listing.returncode == 0, listing.stderr
    rows = {row["name"]: row for row in json.loads(listing.stdout)}
    assert rows["firstmove"]["distribution"] == "plyground-firstmove"
    assert rows["firstmove"]["version"] == "1.2.3"
    assert rows["firstmove"]["players"] == ["firstmove"]
    assert {"tictactoe", "random", "human", "console"} <= set(rows)

    match = plyground(env, "match", "--game", "tictactoe", "--black", "firstmove:reverse=true",
                      "--white", "random", "-n", "4", "--quiet")
    assert match.returncode == 0, match.stderr
    assert "firstmove:reverse=true vs random: 4 games" in match.stdout

    bad = plyground(env, "match", "--game", "tictactoe", "--black", "firstmove:reverse=maybe",
                    "--white", "random")
    assert bad.returncode == 2
    assert "bad value 'maybe' for option 'reverse': expected true/false" in bad.stderr


def test_broken_plugins_are_reported_and_skipped(env, tmp_path_factory):
    pip_install(env, external("broken", tmp_path_factory))
    pip_install(env, external("misspelled", tmp_path_factory))
    result = plyground(env, "match", "--game", "tictactoe", "--black", "random", "--white", "random",
                       "-n", "2", "--quiet")
    assert result.returncode == 0
    assert "2 games" in result.stdout
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert any("plugin 'broken' (plyground-broken 0.0.1) failed to load: ModuleNotFoundError" in w
               for w in warnings), result.stderr
    assert any("plugin 'misspelled' (plyground-misspelled 0.0.2)" in w and "register_player" in w
               for w in warnings), result.stderr


def test_strict_mode_turns_a_broken_plugin_into_a_failure(env, tmp_path_factory):
    pip_install(env, external("broken", tmp_path_factory))
    result = plyground(env, "plugins", PLYGROUND_STRICT_PLUGINS="1")
    assert result.returncode == 1
    assert "plugin 'broken' (plyground-broken 0.0.1) failed to load" in result.stderr
    assert "PLYGROUND_STRICT_PLUGINS" in result.stderr
    assert "Traceback" not in result.stderr


def test_disabled_plugins_are_never_imported(env, tmp_path_factory):
    pip_install(env, external("broken", tmp_path_factory))
    result = plyground(env, "plugins", "--json", PLYGROUND_DISABLE_PLUGINS="broken,misspelled",
                       PLYGROUND_STRICT_PLUGINS="1")
    assert result.returncode == 0, result.stderr
    names = {row["name"] for row in json.loads(result.stdout)}
    assert "broken" not in names and "tictactoe" in names


def test_editable_install_of_plyground_itself(env):
    """``pip install -e .`` maps framework/, games/, players/, plugins/ into one namespace."""
    pip_install(env, "-e", str(REPO))
    probe = subprocess.run([env / "bin" / "python", "-c",
                            "import plyground, plyground.games.tictactoe as t, plyground.plugins.console as c;"
                            "print(plyground.__file__); print(t.__file__); print(c.__file__)"],
                           capture_output=True, text=True, check=True)
    files = probe.stdout.split()
    assert files[0] == str(REPO / "framework" / "__init__.py")
    assert files[1] == str(REPO / "games" / "tictactoe" / "__init__.py")
    assert files[2] == str(REPO / "plugins" / "console" / "__init__.py")


def test_regular_install_lists_every_builtin_from_entry_point_metadata(tmp_path):
    """``pip install .`` (a built wheel, not the source tree) registers every built-in plugin."""
    root = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(root)
    inner_site = subprocess.run([root / "bin" / "python", "-c", "import site; print(site.getsitepackages()[0])"],
                                capture_output=True, text=True, check=True).stdout.strip()
    outer = [p for p in site.getsitepackages() if Path(p).is_dir()]
    Path(inner_site, "_outer_env.pth").write_text(
        "import site; " + "; ".join(f"site.addsitedir({p!r})" for p in outer) + "\n")
    pip_install(root, str(REPO))
    probe = subprocess.run([root / "bin" / "python", "-c", "import plyground.games; print(plyground.games.__file__)"],
                           capture_output=True, text=True, check=True, cwd=tmp_path)
    assert probe.stdout.strip().startswith(inner_site)
    listing = subprocess.run([root / "bin" / "python", "-m", "plyground", "plugins", "--json"],
                             capture_output=True, text=True, cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    declared = _declared_entry_points()
    listed = {row["name"] for row in json.loads(listing.stdout)}
    assert declared <= listed, declared - listed
    assert "tictactoe" in declared and "console" in declared
    # the data files beside the modules come too: the alphazero player's bundled networks
    bundled = subprocess.run([root / "bin" / "python", "-c",
                              "from plyground.games.tictactoe import TicTacToe;"
                              "from plyground.players.alphazero.networks import resolve_model_path;"
                              "print(resolve_model_path(None, TicTacToe()))"],
                             capture_output=True, text=True, cwd=tmp_path)
    assert bundled.returncode == 0, bundled.stderr
    assert bundled.stdout.strip() == str(Path(inner_site, "plyground", "players", "alphazero", "models", "tictactoe.npz"))


def _declared_entry_points() -> set[str]:
    import tomllib
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    return set(project["entry-points"]["plyground"])
