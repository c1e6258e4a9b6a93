"""`plyground train bayes` on games files it cannot learn from: one line, exit 2, nothing trained.

A file python-chess itself crashes on (``h6)!``), binary garbage, an empty
file, tags only, a lone result, only illegal games - for chess (PGN) and
checkers (PDN).
"""

import pytest

from sample_files import BINARY_GARBAGE, write


def any_format(name: str) -> dict:
    """The cases whose file and message are the same in every records format (``name``: PGN, PDN)."""
    return {
        "binary": (BINARY_GARBAGE, f"{{path}} is not a {name} file: it holds binary data"),
        "empty": ("", "holds no games with moves (it holds no games)"),
        "tags": ('[Event "x"]\n[Result "1-0"]\n\n', "holds no games with moves (1 without moves, 0 unreadable)"),
        "result": ("1-0\n", "holds no games with moves (1 without moves, 0 unreadable)"),
    }


CHESS = {
    **any_format("PGN"),
    "crash": ("h6)!", "holds no games with moves (0 without moves, 1 unreadable; the first: {path}: game 1, "
                      "line 1: move 1. h6 (White) is not legal"),
    "illegal": ('[Event "x"]\n\n1. e4 e5 2. Ke3 *\n', "holds no games with moves (0 without moves, 1 unreadable; "
                "the first: {path}: game 1, line 3: move 2. Ke3 (White) is not legal"),
}
CHECKERS = {
    **any_format("PDN"),
    "paren": ("11-15)!", "holds no games with moves (0 without moves, 1 unreadable; the first: {path}: game 1, "
                         "line 1: ')' closes no variation"),
    "illegal": ('[Event "x"]\n\n1. 11-15 23-19 2. 15-10 *\n', "holds no games with moves (0 without moves, "
                "1 unreadable; the first: {path}: game 1, line 3: move 2. 15-10 (Black)"),
}
CASES = [("chess", name, *case) for name, case in CHESS.items()] + \
        [("checkers", name, *case) for name, case in CHECKERS.items()]


@pytest.mark.parametrize("game, name, content, message", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_one_line_and_exit_2_before_any_training(cli, tmp_path, game, name, content, message):
    path = write(tmp_path, f"{name}.{'pgn' if game == 'chess' else 'pdn'}", content)
    run = tmp_path / "run"
    code, out, err = cli("train", "bayes", "--game", game, "--run", run, "--set", f"games={path}", "--quiet")
    assert code == 2 and "trained:" not in out
    assert err.startswith("plyground: error: ") and err.count("\n") == 1, err
    assert message.format(path=path) in err
    if "binary" not in message:
        assert f"games file {path} " in err and f"give a file of expert {game} games" in err
    assert not (run / "model.npz").exists() and not list(run.glob("*.npz"))
