"""Plugin specs typed on the command line: every malformed one stops with exit code 2 and one line naming it."""
from __future__ import annotations

import pytest

from plyground.options import Spec

FORM = "; expected NAME or NAME:key=value,key=value"


@pytest.mark.parametrize("spec, problem", [
    ("mcts:", "nothing follows the ':' (write mcts alone for its defaults)"),
    ("mcts:simulations=10,", "an empty option"),
    ("mcts:,c=1", "an empty option"),
    ("mcts:simulations=10,,c=1", "an empty option"),
    ("mcts:simulations", "option 'simulations' has no '=' (write simulations=VALUE)"),
    (":x=1", "there is no plugin name before the ':'"),
    ("mcts:simulations=", "option 'simulations' has no value after the '='"),
    ("mcts:c=1.4,simulations=", "option 'simulations' has no value after the '='"),
])
def test_a_malformed_spec_on_the_command_line_exits_2_naming_it(cli, spec, problem):
    code, out, err = cli("match", "--game", "tictactoe", "--black", spec, "--white", "random", "-n", "1")
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"plyground: error: bad plugin spec {spec!r}: {problem}"), lines[0]
    assert lines[0].endswith(FORM), lines[0]


def test_well_formed_specs_still_play(cli):
    code, out, err = cli("match", "--game", "tictactoe", "--black", "mcts:simulations=20, c=1.4",
                         "--white", "random", "-n", "1", "--seed", "3")
    assert code == 0, err
    assert out.strip()


def test_commas_inside_values_and_words_after_the_first_colon_are_kept():
    # A piece without '=' belongs to the value before it (paths may hold commas); only the
    # first ':' ends the name, so values may hold colons and '=' (engine options).
    spec = Spec.parse("uci:path=/opt/a,b/stockfish,options=Move Overhead=30; Hash=8,timeout=none")
    assert spec == Spec("uci", {"path": "/opt/a,b/stockfish", "options": "Move Overhead=30; Hash=8",
                                "timeout": "none"})
    assert Spec.parse("  random  ") == Spec("random", {})
    assert Spec.parse("alphazero:model=C:/runs/a.npz").options == {"model": "C:/runs/a.npz"}
