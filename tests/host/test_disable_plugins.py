"""PLYGROUND_DISABLE_PLUGINS takes the names users type (issue #75 point 4): a plugin's own name, or any name
it registers, which blocks every plugin that registers it; a name that is neither is warned about."""
from __future__ import annotations

import json

from processes import run_plyground


def blocking(names: str, *args: str):
    return run_plyground(*args, env={"PLYGROUND_DISABLE_PLUGINS": names}, timeout=120)


def test_a_trainers_name_blocks_the_plugin_that_registers_it(tmp_path):
    """``alphazero`` is the player's plugin and also the trainer the alphazero-trainer plugin registers: both go,
    and asking for the trainer says why in one line."""
    run = tmp_path / "run"
    result = blocking("alphazero", "train", "alphazero", "--game", "tictactoe", "--run", run, "--quiet")
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("plyground: error: trainer 'alphazero' is blocked: "
                                    "PLYGROUND_DISABLE_PLUGINS=alphazero blocks plugins alphazero, alphazero-trainer; "
                                    "valid trainers: bayes, bonanza, expert-iteration, nnue"), result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert not run.exists()
    listed = blocking("alphazero", "plugins")
    blocked = {line.split()[0]: line for line in listed.stdout.splitlines() if "(blocked" in line}
    assert set(blocked) == {"alphazero", "alphazero-trainer"}
    assert blocked["alphazero-trainer"].endswith("(blocked by PLYGROUND_DISABLE_PLUGINS: alphazero)")


def test_a_players_name_blocks_its_plugin_and_plugin_names_still_work():
    result = blocking("stockfish,alphazero-trainer", "list", "--json")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    kinds = json.loads(result.stdout)
    assert "stockfish" not in kinds["players"] and "uci" not in kinds["players"]      # the uci plugin registers both
    assert "alphazero" in kinds["players"] and "alphazero" not in kinds["trainers"]   # the entry-point name alone
    assert "mcts" in kinds["players"] and "expert-iteration" in kinds["trainers"]


def test_a_networks_name_blocks_the_plugin_of_its_family():
    result = blocking("resnet", "list", "--json")
    assert result.returncode == 0, result.stderr
    networks = json.loads(result.stdout)["networks"]
    assert "resnet" not in networks and "mlp" not in networks and "deep-pepper-parts" in networks


def test_a_name_nothing_registers_is_a_warning_naming_the_valid_ones():
    result = blocking("alphazro", "list", "--json")
    assert result.returncode == 0
    assert "alphazero" in json.loads(result.stdout)["trainers"]                      # nothing is blocked
    assert result.stderr.startswith("plyground: warning: PLYGROUND_DISABLE_PLUGINS names 'alphazro', which is no "
                                    "plugin's name and no name a plugin registers, so it blocks nothing; valid "
                                    "names: "), result.stderr
    valid = result.stderr.split("valid names: ", 1)[1]
    for name in ("alphazero", "alphazero-trainer", "stockfish", "uci", "resnet", "tictactoe"):
        assert f" {name}," in f" {valid}", name
    # a plugin blocked by its own name is never imported, so what it registers is not known: the warning says so
    result = blocking("uci,stockfish", "list", "--json")
    assert result.returncode == 0 and "stockfish" not in json.loads(result.stdout)["players"]
    assert ("names 'stockfish', which is no plugin's name and no name a plugin registers, so it blocks nothing "
            "(unless plugin uci, blocked by name and so never imported, would register it); valid names: ") \
        in result.stderr, result.stderr


def test_list_names_the_plugin_of_a_name_that_is_not_its_own(cli):
    code, out, _ = cli("list", "trainers")
    assert code == 0
    lines = out.splitlines()
    assert lines[lines.index(next(line for line in lines if line.startswith("alphazero: "))) + 1] == \
        "    from plugin alphazero-trainer"
    code, out, _ = cli("list", "players")
    assert "    from plugin uci" in out and "    from plugin random" not in out
