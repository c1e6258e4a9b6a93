"""A file a user names must be a regular file (or not exist yet): devices, named pipes and folders are refused;
a file that cannot be written for a full disk is named.

``/dev/full`` never fills and ``/dev/zero`` reads forever (memory grows until
the kernel kills plyground); a named pipe waits forever for its other end.
Each is refused with one line naming the path and what it is.  Real
subprocesses with a timeout, so a hang fails the test instead of hanging it.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from processes import in_namespace, one_error_line, run_plyground
from plyground.errors import ModelFileError, UsageError
from plyground.files.atomic import atomic_write_text, check_regular_file
from plyground.files.storage import read_json

MATCH = ("match", "--game", "checkers", "--black", "random", "--white", "random", "-n", "1", "--quiet")


@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("flag, device", [("--save", "/dev/full"), ("--save", "/dev/zero"),
                                          ("--openings", "/dev/zero")])
def test_a_device_named_as_a_file_is_refused(flag, device):
    if not Path(device).exists():
        pytest.skip(f"no {device} here")
    line = one_error_line(run_plyground(*MATCH, flag, device, timeout=60))
    assert device in line and "is a device, not a regular file" in line


@pytest.mark.parametrize("where", ["--save", "--openings", "eval="])
def test_a_named_pipe_named_as_a_file_is_refused_not_waited_on(fifo, where):
    args = (("--black", f"alphabeta:eval={fifo}") if where == "eval=" else (where, fifo))
    line = one_error_line(run_plyground(*MATCH, *args, timeout=60))
    assert f"{fifo} is a named pipe (FIFO), not a regular file" in line


def test_a_run_whose_state_json_is_a_named_pipe_is_refused(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    os.mkfifo(run / "state.json")
    line = one_error_line(run_plyground("alphazero", "anneal", "--run", run, "--out", tmp_path / "out.npz",
                                        timeout=60))
    assert f"{run / 'state.json'} is a named pipe (FIFO)" in line


def test_the_check_lets_regular_and_missing_files_through_and_writers_refuse_the_rest(tmp_path, fifo):
    regular = tmp_path / "a.json"
    regular.write_text("{}")
    assert check_regular_file(regular) == regular
    assert check_regular_file(tmp_path / "new.json") == tmp_path / "new.json"
    with pytest.raises(UsageError, match="is a folder, not a regular file"):
        check_regular_file(tmp_path, "--out")
    with pytest.raises(ModelFileError, match=r"pipe is a named pipe \(FIFO\)"):
        read_json(fifo)
    with pytest.raises(UsageError, match="named pipe"):      # the rename would have replaced the pipe
        atomic_write_text(fifo, "x")
    assert fifo.exists() and not fifo.is_file()


def test_a_full_disk_names_the_file_it_could_not_write(tmp_path):
    # An atomic write's ENOSPC comes from write(), which names no file: it said "no space left on device".
    full = tmp_path / "full"
    full.mkdir()
    result = in_namespace(f"mount -t tmpfs -o size=64k tmpfs {full}", "endgame", "build", "--pieces", "3",
                          "--dir", full, timeout=120)
    line = result.stderr.strip().splitlines()[-1]
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert line.startswith(f"plyground: error: {full}/slice-") and line.endswith(".npz: no space left on device")


def test_a_pack_onto_a_full_disk_names_its_folder(tmp_path):
    """Issue #72: the pack's part, written through a compressor, failed in write() or close(), which name no file:
    'no space left on device' alone."""
    run = tmp_path / "run"
    trained = run_plyground("train", "alphazero", "--game", "tictactoe", "--run", run, "--set", "iterations=1",
                            "--set", "selfplay_games=1", "--set", "network=mlp:hidden=8,layers=1", "--quiet",
                            timeout=120)
    assert trained.returncode == 0, trained.stderr
    full = tmp_path / "full"
    full.mkdir()
    result = in_namespace(f"mount -t tmpfs -o size=4k tmpfs {full}", "alphazero", "pack", "--run", run,
                          "--to", full / "pack", timeout=120)
    assert one_error_line(result) == f"plyground: error: {full / 'pack'}: no space left on device"
