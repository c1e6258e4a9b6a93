from pathlib import Path

import pytest

from plyground.errors import OptionError
from plyground.options import Option, Spec, resolve_options

SIMS = Option("simulations", int, 1000, "simulations per move", min=1)
C = Option("c", float, 1.41, "exploration", min=0.0001)
REUSE = Option("reuse", bool, True, "reuse the tree")
MODE = Option("mode", str, "puct", "root search", choices=("puct", "gumbel"))
MODEL = Option("model", Path, None, "model file", optional=True)
ALL = (SIMS, C, REUSE, MODE, MODEL)


def test_spec_parses_name_and_inline_options():
    spec = Spec.parse("mcts:simulations=800, c=1.4")
    assert spec.name == "mcts" and spec.options == {"simulations": "800", "c": "1.4"}
    assert str(spec) == "mcts:simulations=800,c=1.4"
    assert Spec.parse("random") == Spec("random", {})


def test_spec_keeps_commas_inside_a_value():
    assert Spec.parse("alphazero:model=runs/a,b.npz,simulations=5").options == {
        "model": "runs/a,b.npz", "simulations": "5"}


@pytest.mark.parametrize("text, message", [
    ("", "there is no plugin name"), (":x=1", "no plugin name before the ':'"),
    ("mcts:simulations", "option 'simulations' has no '='"), ("mcts:c=1,c=2", "option 'c' is given twice"),
    ("mcts:=3", "option '=3' has no name before the '='")])
def test_malformed_specs_are_rejected(text, message):
    with pytest.raises(OptionError, match=message) as info:
        Spec.parse(text)
    assert str(info.value).endswith("; expected NAME or NAME:key=value,key=value")


def test_values_are_typed_and_defaults_filled():
    values = resolve_options(ALL, {"simulations": "800", "reuse": "no", "model": "~/m.npz"}, "player mcts")
    assert values == {"simulations": 800, "c": 1.41, "reuse": False, "mode": "puct",
                      "model": Path("~/m.npz").expanduser()}


@pytest.mark.parametrize("given, message", [
    ({"simulations": "-5"}, "bad value '-5' for option 'simulations': expected integer >= 1"),
    ({"simulations": "1.5"}, "expected integer >= 1"),
    ({"c": "0"}, "expected number >= 0.0001"),
    ({"c": "nan"}, "expected number >= 0.0001"),
    ({"reuse": "maybe"}, "expected true/false"),
    ({"mode": "greedy"}, "expected one of puct, gumbel"),
    ({"simulation": "5"}, "unknown option 'simulation'; valid options: simulations, c, reuse, mode, model"),
    ({"simulations": True}, "expected integer"),
])
def test_bad_values_name_the_option_and_what_is_valid(given, message):
    with pytest.raises(OptionError, match=message) as info:
        resolve_options(ALL, given, "player mcts")
    assert str(info.value).startswith("player mcts: ")


def test_typed_values_from_config_files_are_checked_too():
    assert resolve_options(ALL, {"c": 2, "simulations": 5}, "x")["c"] == 2.0
    with pytest.raises(OptionError):
        resolve_options(ALL, {"simulations": 0}, "x")
    assert resolve_options(ALL, {"model": None}, "x")["model"] is None


@pytest.mark.parametrize("args, message", [
    (["match", "--black", "random", "--white", "random", "--simulations", "99999999999999999999"],
     "'--simulations': 99999999999999999999 is not in the range 1<=x<=1000000000"),
    (["tournament", "random", "r2=random", "--simulations", "99999999999999999999"],
     "'--simulations': 99999999999999999999 is not in the range 1<=x<=1000000000"),
    (["match", "--black", "alphabeta:nodes=10000000000", "--white", "random"],
     "bad value '10000000000' for option 'nodes': expected integer in [1, 1000000000] or none"),
])
def test_a_budget_no_search_finishes_is_refused_naming_the_limit(cli, args, message):
    # --simulations 99999999999999999999 once started a search that never returned.
    code, _, err = cli(args[0], "--game", "tictactoe", *args[1:])
    assert code == 2 and message in err, err


def test_a_remote_option_is_one_whose_every_value_is_harmless():
    from plyground.options import Option
    for bad in (dict(type=str, default="x"), dict(type=int, default=1, min=0), dict(type=float, default=1.0),
                dict(type=int, default=1, remote=("a",))):
        kwargs = {"remote": True, **bad}
        with pytest.raises(ValueError, match="remote"):
            Option("o", help="", **kwargs)
    Option("o", int, 1, "", min=0, max=9, remote=True)
    Option("o", str, "a", "", choices=("a", "b"), remote=True)
    Option("o", str, "a", "", remote=("a", "b"))


def test_remote_refusal_names_the_option_and_never_looks_at_the_value_s_target(tmp_path):
    from plyground.options import Option, remote_refusal
    declared = (Option("depth", int, 1, "", min=1, max=9, remote=True), Option("eval", str, "a", "",
                                                                           remote=("a", "b")),
                Option("path", str, "x", ""))
    assert remote_refusal(declared, {"depth": "3", "eval": "b"}, "player p") is None
    assert "'path'" in remote_refusal(declared, {"path": "x"}, "player p")
    assert "'nothing'" in remote_refusal(declared, {"nothing": "1"}, "player p")
    assert "depth" in remote_refusal(declared, {"depth": "1e400"}, "player p")
    existing = tmp_path / "file"
    existing.write_text("")
    assert remote_refusal(declared, {"eval": str(existing)}, "p") == remote_refusal(declared, {"eval": "/no/such"}, "p")
