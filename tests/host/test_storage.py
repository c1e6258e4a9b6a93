"""plyground.files.storage: the trainers' atomic .npz + JSON files, JSON files and the run-directory lock."""
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from plyground.errors import ModelFileError, UsageError
from plyground.protocols import GameRecord
from plyground.files.recordio import record_from_json
from plyground.files.storage import (LOCK_FILE, METADATA_KEY, RunLock, array_json, check_format, copy_file, json_array,
                               load_npz, pop_metadata, read_json, read_json_lines, save_npz, write_json,
                               write_json_lines)


def test_arrays_and_metadata_round_trip_without_pickle(tmp_path):
    path = tmp_path / "sub" / "m.npz"
    save_npz(path, {"w": np.arange(3.0), "n": np.int64(7)}, {"format": "x", "list": [1, 2]}, compress=True)
    arrays = load_npz(path)
    assert arrays[METADATA_KEY].dtype == np.uint8
    assert pop_metadata(arrays, "m") == {"format": "x", "list": [1, 2]}
    assert set(arrays) == {"w", "n"} and arrays["w"].tolist() == [0.0, 1.0, 2.0] and int(arrays["n"]) == 7
    assert array_json(json_array({"a": "é"})) == {"a": "é"}


def test_a_metadata_key_of_the_format_s_own_choosing(tmp_path):
    save_npz(tmp_path / "c.npz", {"x": np.zeros(2)}, [{"game": "g"}], metadata_key="records_json")
    arrays = load_npz(tmp_path / "c.npz")
    assert pop_metadata(arrays, "c", "records_json") == [{"game": "g"}] and pop_metadata(arrays, "c") is None


def test_only_numbers_are_written_and_the_metadata_name_is_reserved(tmp_path):
    with pytest.raises(TypeError, match="'bad' has dtype object; only numbers"):
        save_npz(tmp_path / "m.npz", {"bad": np.array([object()])})
    with pytest.raises(ValueError, match="reserved"):
        save_npz(tmp_path / "m.npz", {METADATA_KEY: np.zeros(1)}, {})
    assert not list(tmp_path.iterdir())


def test_unreadable_npz_files_name_the_file_and_the_reason(tmp_path):
    with pytest.raises(ModelFileError, match=r"^model file .*nope.npz does not exist$"):
        load_npz(tmp_path / "nope.npz", f"model file {tmp_path / 'nope.npz'}")
    with pytest.raises(ModelFileError, match="is a folder, not a regular file"):
        load_npz(tmp_path)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(ModelFileError, match=r"junk.npz is corrupt or not an .npz archive; delete it$"):
        load_npz(junk, advice="; delete it")
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, x=np.array([object()], dtype=object))
    with pytest.raises(ModelFileError, match="cannot be loaded safely"):
        load_npz(pickled)
    bad_json = {"m": np.frombuffer(b"{not json", np.uint8)}
    with pytest.raises(ModelFileError, match="^f has unreadable metadata"):
        pop_metadata(bad_json, "f", "m")


def test_check_format_says_what_was_found_and_what_is_read():
    assert check_format({"format": "f", "format_version": 1}, "file x", "f", 1, "thing") == {"format": "f",
                                                                                         "format_version": 1}
    with pytest.raises(ModelFileError, match=r"file x is not a thing \(it has no metadata, expected 'f'\)"):
        check_format(None, "file x", "f", 1, "thing")
    with pytest.raises(ModelFileError, match=r"its format is 'g', expected 'f'"):
        check_format({"format": "g"}, "file x", "f", 1, "thing")
    with pytest.raises(ModelFileError, match=r"format version 2 is not supported \(this plyground reads version 1\)"):
        check_format({"format": "f", "format_version": 2}, "file x", "f", 1, "thing")


def test_json_files(tmp_path):
    path = tmp_path / "state.json"
    assert read_json(path) is None
    write_json(path, {"iteration": 3})
    assert read_json(path) == {"iteration": 3} and path.read_text().endswith("}\n")
    path.write_text("{torn")
    with pytest.raises(ModelFileError, match=r"state.json is unreadable \(.*\); start over$"):
        read_json(path, "; start over")
    copy_file(path, tmp_path / "copy.json")
    assert (tmp_path / "copy.json").read_text() == "{torn"


def test_json_lines_leave_out_a_line_a_crash_cut_short(tmp_path):
    path = tmp_path / "metrics.jsonl"
    assert read_json_lines(path) == []
    write_json_lines(path, [{"iteration": 1}, {"iteration": 2}])
    with open(path, "a") as handle:
        handle.write('{"iteration": 3, "lo')
    assert read_json_lines(path) == [{"iteration": 1}, {"iteration": 2}]


def test_a_log_of_json_lines_grows_by_appending_and_cuts_off_a_torn_last_line(tmp_path):
    from plyground.files.storage import append_json_line, open_json_lines
    log = tmp_path / "sub" / "games.jsonl"
    assert open_json_lines(log) == []
    for i in range(3):
        append_json_line(log, {"game": i})
    assert open_json_lines(log) == [{"game": 0}, {"game": 1}, {"game": 2}]
    with open(log, "ab") as handle:                      # a kill in the middle of the fourth write
        handle.write(b'{"game": 3, "rec')
    assert open_json_lines(log) == [{"game": 0}, {"game": 1}, {"game": 2}]
    append_json_line(log, {"game": 3})                   # starts a clean line: nothing glued to the torn one
    assert open_json_lines(log) == [{"game": i} for i in range(4)]
    assert log.read_text().count("\n") == 4
    log.write_text('{"game": 0}\nnot json\n{"game": 2}\n')
    with pytest.raises(ModelFileError, match=r"games.jsonl:2: not a JSON line .*the file is damaged"):
        open_json_lines(log)


def test_a_second_run_on_a_locked_folder_gets_one_clear_error(tmp_path):
    with RunLock(tmp_path, "training run"):
        assert (tmp_path / LOCK_FILE).exists()
        with pytest.raises(UsageError, match=f"another training run is writing to {tmp_path} .*wait for it"):
            RunLock(tmp_path, "training run").acquire()
    with RunLock(tmp_path):          # released on leaving the block
        pass


def test_the_lock_of_a_killed_run_is_free_at_once(tmp_path):
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from plyground.files.storage import RunLock; "
                               f"lock = RunLock({str(tmp_path)!r}).acquire(); print('held', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(UsageError, match="another run is writing to"):
            RunLock(tmp_path).acquire()
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    deadline = time.monotonic() + 10
    while True:
        try:
            RunLock(tmp_path).acquire().release()
            break
        except UsageError:
            assert time.monotonic() < deadline
            time.sleep(0.05)


def test_record_from_json_reverses_to_json():
    record = GameRecord(game="tictactoe", players=("a", "b"), start="...", moves=["b2", "a1"], returns=(1.0, -1.0),
                        reason="three in a row", finished=True, tags={"Round": "2"})
    assert record_from_json(json.loads(json.dumps(record.to_json()))) == record
    old = {k: v for k, v in record.to_json().items() if k not in ("reason", "finished", "tags")}
    assert record_from_json(old) == GameRecord("tictactoe", ("a", "b"), "...", ["b2", "a1"], (1.0, -1.0))
