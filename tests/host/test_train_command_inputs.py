"""`plyground train` refuses bad inputs with one line and exit 2 before anything is trained.

A config file that is not UTF-8 text; a --run that is a file, lies under a
file, cannot be created or is not writable; a bootstrap games file without
a single game with moves.
"""
import json
import os
import random
import tempfile
from pathlib import Path

import pytest

from processes import in_namespace, one_error_line, run_plyground

TICTACTOE = ("train", "alphazero", "--game", "tictactoe", "--set", "iterations=1", "--set", "selfplay_games=1",
             "--set", "network=mlp:hidden=8,layers=1", "--quiet")


def one_line_error(code, out, err) -> str:
    assert code == 2 and "trained:" not in out, (code, out, err)
    assert err.startswith("plyground: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err.strip()


# ------------------------------------------------------------------ --config

def test_a_binary_config_file_is_one_line(cli, tmp_path):
    config = tmp_path / "config.toml"
    config.write_bytes(b"\x92\xff\x00" + bytes(random.Random(0).randrange(256) for _ in range(200)))
    err = one_line_error(*cli(*TICTACTOE, "--run", tmp_path / "run", "--config", config))
    assert err == (f"plyground: error: config file {config} is not UTF-8 text (byte 0x92 at offset 0); a config is "
                   f"a TOML text file of option = value lines")
    assert not (tmp_path / "run").exists()


def test_a_latin1_config_file_names_the_byte(cli, tmp_path):
    config = tmp_path / "config.toml"
    config.write_bytes('# caf\xe9\niterations = 1\n'.encode("latin-1"))
    err = one_line_error(*cli(*TICTACTOE, "--run", tmp_path / "run", "--config", config))
    assert "is not UTF-8 text (byte 0xe9 at offset 5)" in err


def test_utf8_with_control_characters_is_not_valid_toml(cli, tmp_path):
    config = tmp_path / "config.toml"
    config.write_bytes(b"iterations = 1\n\x00\x01\x02\n")
    err = one_line_error(*cli(*TICTACTOE, "--run", tmp_path / "run", "--config", config))
    assert f"config file {config} is not valid TOML" in err


# ------------------------------------------------------------------ --run

def test_a_run_that_is_a_regular_file_is_refused(cli, tmp_path):
    run = tmp_path / "run"
    run.write_text("keep me\n")
    err = one_line_error(*cli(*TICTACTOE, "--run", run))
    assert err == f"plyground: error: --run {run} is a file, not a folder"
    assert run.read_text() == "keep me\n"


def test_a_run_under_a_regular_file_is_refused(cli, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    err = one_line_error(*cli(*TICTACTOE, "--run", blocker / "run"))
    assert err == f"plyground: error: --run {blocker / 'run'}: {blocker} is a file, not a folder"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc, where no folder can be created")
def test_a_run_that_cannot_be_created_is_refused(cli):
    run = Path("/proc/plyground-no-such-folder/run")
    err = one_line_error(*cli(*TICTACTOE, "--run", run))
    assert err.startswith(f"plyground: error: --run {run}: cannot write there (")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a chmod 0o555 folder anyway (permission bits "
                                               "are not enforced for root); the read-only tmpfs test covers it")
def test_a_read_only_run_directory_is_refused(cli, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    run.chmod(0o555)
    try:
        err = one_line_error(*cli(*TICTACTOE, "--run", run))
    finally:
        run.chmod(0o755)
    assert err == f"plyground: error: --run {run}: cannot write there (permission denied)"
    assert list(run.iterdir()) == []


def _unwritable_even_for_root(folder: str) -> bool:
    try:
        fd, probe = tempfile.mkstemp(dir=folder)
    except OSError:
        return True
    os.close(fd)
    os.unlink(probe)
    return False


@pytest.mark.skipif(not Path("/sys").is_dir() or not _unwritable_even_for_root("/sys"),
                    reason="needs a /sys folder no one can create files in")
def test_a_read_only_run_folder_is_refused_before_training(tmp_path):
    read_only = tmp_path / "ro"
    read_only.mkdir()
    result = in_namespace(f"mount -t tmpfs -o ro tmpfs {read_only}", *TICTACTOE, "--run", read_only / "run")
    assert one_error_line(result) == f"plyground: error: --run {read_only / 'run'}: cannot write there " \
                                     f"(read-only file system)"


def test_a_folder_of_someone_elses_files_is_refused(cli, tmp_path):
    (tmp_path / "thesis.tex").write_text("precious")
    err = one_line_error(*cli(*TICTACTOE, "--run", tmp_path))
    assert err.startswith(f"plyground: error: --run {tmp_path} holds files plyground did not write")
    assert [p.name for p in tmp_path.iterdir()] == ["thesis.tex"]


# ------------------------------------------------------------------ AlphaZero bootstrap games

BOOTSTRAP = ("train", "alphazero", "--game", "checkers", "--set", "network=mlp:hidden=8,layers=1",
             "--set", "bootstrap_positions=10", "--set", "bootstrap_teacher=alphabeta:depth=1",
             "--set", "iterations=1", "--quiet")


@pytest.mark.parametrize("content, detail", [
    ("", "(it holds no games)"),
    ('[Event "x"]\n[Black "a"]\n[White "b"]\n[Result "1-0"]\n\n', "(1 without moves)"),
    ("1-0\n", "(1 without moves)"),
], ids=["empty", "tags-only", "result-only"])
def test_a_bootstrap_file_without_moves_stops_before_labelling(cli, tmp_path, content, detail):
    games = tmp_path / "games.pdn"
    games.write_text(content)
    run = tmp_path / "run"
    err = one_line_error(*cli(*BOOTSTRAP, "--run", run, "--set", f"bootstrap_games={games}"))
    assert err.startswith(f"plyground: error: bootstrap games file {games} holds no games with moves {detail}; "
                          f"give a file of expert checkers games")
    assert not list(run.glob("bootstrap/labels-*.npz"))


def test_an_unreadable_bootstrap_file_names_the_file_game_and_line(cli, tmp_path):
    games = tmp_path / "games.pdn"
    games.write_text('[Event "x"]\n\n1. 11-15 23-19 2. 15-10 *\n')
    err = one_line_error(*cli(*BOOTSTRAP, "--run", tmp_path / "run", "--set", f"bootstrap_games={games}"))
    assert err.startswith(f"plyground: error: bootstrap games file {games}: game 1, line 3: move 2. 15-10 (Black)")


# ------------------------------------------------------------------ a damaged run

@pytest.mark.parametrize("field, value, detail", [
    ("phase", "bogus", "its phase 'bogus' is not one of selfplay, train, compare, evaluate, ladder"),
    ("iteration", "x", "its iteration 'x' is not a whole number from 1")])
def test_a_damaged_state_json_is_one_line_naming_it(tmp_path, field, value, detail):
    """Issue #72: a run whose state.json names no phase of ours, or no iteration, stopped with a RuntimeError or
    TypeError traceback."""
    run = tmp_path / "run"
    assert run_plyground(*TICTACTOE, "--run", run, timeout=120).returncode == 0    # a real run, one iteration
    state_path = run / "state.json"
    state = json.loads(state_path.read_text(encoding="utf-8"))
    state_path.write_text(json.dumps({**state, field: value}), encoding="utf-8")
    line = one_error_line(run_plyground(*TICTACTOE, "--run", run, "--set", "iterations=2", timeout=120))
    assert line == f"plyground: error: {state_path} is damaged: {detail}; correct it, or give a new --run directory"
