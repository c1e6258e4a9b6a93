"""`plyground train bonanza` on PDN files it cannot learn from: one line, exit 2, before any training."""
import pytest

from sample_files import BINARY_GARBAGE, write

CASES = {
    "paren": ("11-15)!", "holds no games with moves (0 without moves, 1 unreadable; the first: {path}: game 1, "
                         "line 1: ')' closes no variation"),
    "binary": (BINARY_GARBAGE, "bonanza: cannot read the games: {path} is not a PDN file: it holds binary data"),
    "empty": ("", "bonanza: {path} holds no games with moves (it holds no games); give a PDN file of expert "
                  "checkers games"),
    "tags": ('[Event "x"]\n[Black "a"]\n[White "b"]\n[Result "1-0"]\n\n',
             "bonanza: {path} holds no games with moves (1 without moves, 0 unreadable)"),
    "result": ("1-0\n", "bonanza: {path} holds no games with moves (1 without moves, 0 unreadable)"),
    "illegal": ('[Event "x"]\n\n1. 11-15 23-19 2. 15-10 *\n', "holds no games with moves (0 without moves, "
                "1 unreadable; the first: {path}: game 1, line 3: move 2. 15-10 (Black)"),
}


@pytest.mark.parametrize("name", CASES)
def test_one_line_and_exit_2_before_any_training(cli, tmp_path, name):
    content, message = CASES[name]
    path = write(tmp_path, f"{name}.pdn", content)
    run = tmp_path / "run"
    code, out, err = cli("train", "bonanza", "--game", "checkers", "--run", run, "--set", f"games={path}",
                         "--set", "iterations=1", "--quiet")
    assert code == 2 and "trained:" not in out
    assert err.startswith("plyground: error: ") and err.count("\n") == 1, err
    assert message.format(path=path) in err
    assert not (run / "checkpoint.npz").exists() and not (run / "eval.npz").exists()
