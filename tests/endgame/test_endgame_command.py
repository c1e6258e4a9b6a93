"""``plyground endgame build|probe``: a resumable build on disk, probes, and bad input named."""
from __future__ import annotations

import numpy as np
import pytest

from plyground.games.checkers.endgame import store


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    directory = tmp_path_factory.mktemp("endgame")
    lines = []
    store.build(3, directory, log=lines.append)
    return directory, lines


def test_build_writes_one_file_per_slice_and_reports_progress(built):
    directory, lines = built
    assert len(list(directory.glob("slice-*.npz"))) == 16 == len(lines)
    assert lines[-1].startswith("endgame: slice 16/16 2m0k-1m0k solved in ")
    assert "100.0% of 432,000 entries" in lines[-1] and "ETA" in lines[-1]


def test_a_build_resumes_from_the_slices_on_disk(built, tmp_path):
    directory, _ = built
    for path in directory.glob("slice-*.npz"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    (tmp_path / "slice-0101.npz").unlink()                  # as if interrupted before that slice was written
    lines = []
    again = store.build(3, tmp_path, log=lines.append)
    assert sum("solved in" in line for line in lines) == 1 and "1m0k-0m1k" not in lines[0]
    assert [line for line in lines if "solved in" in line][0].split()[3] == "0m1k-0m1k"
    first = store.open_database(3, directory)
    assert (again.result == first.result).all() and (again.dist == first.dist).all()


def test_probe_names_the_result_of_the_position_and_of_every_move(cli, built):
    directory, _ = built
    code, out, err = cli("endgame", "probe", "--fen", "W:WK1,K3:BK32", "--dir", directory)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "W:WK1,K3:BK32 (White to move): win in 33 plies"
    assert {line.split()[0] for line in lines[1:]} == {"1-5", "1-6", "3-7", "3-8"}
    code, out, _ = cli("endgame", "probe", "--fen", "B:WK1,K3:BK32", "--dir", directory)
    assert out.splitlines()[0] == "B:WK1,K3:BK32 (Black to move): loss in 30 plies"


def test_bad_input_is_named(cli, built, tmp_path):
    directory, _ = built
    code, _, err = cli("endgame", "probe", "--fen", "W:WK1,K3,K5,K7:BK32", "--pieces", "3", "--dir", directory)
    assert code == 2 and "the position has 5 pieces; a 3-piece database cannot tell" in err
    code, _, err = cli("endgame", "probe", "--fen", "W:WK1,K3,K5,K7:BK32", "--dir", directory)
    assert code == 2 and "no 5-piece endgame database" in err
    code, _, err = cli("endgame", "probe", "--fen", "W:WK1:BK32", "--dir", tmp_path / "none")
    assert code == 2 and "no 2-piece endgame database" in err and "plyground endgame build --pieces 2" in err
    code, _, err = cli("endgame", "probe", "--fen", "W:WK1:BX32", "--dir", directory)
    assert code == 2 and "bad FEN" in err
    broken = tmp_path / "broken"
    broken.mkdir()
    for path in directory.glob("slice-*.npz"):
        (broken / path.name).write_bytes(path.read_bytes())
    (broken / "slice-0101.npz").write_bytes(b"not a zip")
    code, _, err = cli("endgame", "probe", "--fen", "W:WK1:BK32", "--dir", broken)
    assert code == 2 and "slice-0101.npz is corrupt" in err and "build solves it again: plyground endgame build " \
                                                                  f"--pieces 2 --dir {broken}" in err


def test_slice_files_hold_two_bit_results_and_the_distances_of_decided_positions(built):
    from plyground.games.checkers.endgame import solve
    from plyground.files.storage import load_npz
    directory, _ = built
    memory = solve.build(3)
    on_disk = store.open_database(3, directory)
    assert (on_disk.result == memory.result).all() and (on_disk.dist == memory.dist).all()
    s = (0, 2, 0, 1)
    arrays = load_npz(store.slice_path(directory, s))
    part = memory.part(s)
    entries = part.stop - part.start
    decided = np.isin(memory.result[part], (solve.WIN, solve.LOSS))
    assert arrays["wld"].dtype == np.uint8 and arrays["wld"].shape == (entries // 4,)
    assert arrays["dist"].dtype == np.uint8 and arrays["dist"].shape == (decided.sum(),)
    compressed = sum(path.stat().st_size for path in directory.glob("slice-*.npz"))
    assert compressed * 8 < 4 * sum(memory.counts().values())      # under 4 bits a position, distances included


def test_a_slice_file_of_another_size_is_refused(built, tmp_path):
    directory, _ = built
    for path in directory.glob("slice-*.npz"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    (tmp_path / "slice-0101.npz").write_bytes(store.slice_path(directory, (0, 2, 0, 1)).read_bytes())
    from plyground.errors import ModelFileError
    with pytest.raises(ModelFileError, match="slice-0101.npz does not hold slice"):
        store.open_database(3, tmp_path)


SEVEN = "W:WK1,K3,K5,K7:BK32,K30,K28"


def test_a_database_too_large_for_memory_is_refused_before_anything_is_allocated(cli, tmp_path):
    # 7 pieces: 124,909,766,240 entries of 3 bytes; numpy once said "Unable to allocate 116 GiB" instead.
    # held packed above 5 pieces: 2 bits an entry, and the 6-piece slices' distances
    need = "a 7-piece endgame database needs 46.2 GB of memory (124,909,766,240 entries); this machine has "
    code, _, err = cli("endgame", "probe", "--fen", SEVEN, "--dir", tmp_path / "none")
    assert code == 2 and need in err and "Unable to allocate" not in err, err
    # built slice by slice: every 6-piece slice held (22 GB), and the largest 7-piece slice with what it reads
    code, _, err = cli("endgame", "build", "--pieces", "7", "--dir", tmp_path / "none")
    assert code == 2 and "building the 7-piece endgame database slice by slice needs 98.2 GB of memory" in err, err
    code, _, err = cli("match", "--game", "checkers", "--black", "alphabeta:endgame=7", "--white", "random",
                       "-n", "1")
    assert code == 2 and need in err, err
    assert not (tmp_path / "none").exists()


@pytest.mark.parametrize("fen, empty", [("W:W20:B", "Black has"), ("B:B20:W", "White has"),
                                        ("W:W:B", "Black and White have")])
def test_a_position_where_a_side_has_no_pieces_is_no_probe(cli, built, fen, empty):
    # W:W20:B was called a draw (its one move "wins"), W:W:B a "loss in 0 plies".
    code, out, err = cli("endgame", "probe", "--fen", fen, "--dir", built[0])
    assert code == 2 and out == "", out
    assert f"--fen {fen!r}: {empty} no pieces, so the game is over (or never was): there is nothing to probe" in err


def test_ctrl_c_ends_a_build_at_once_and_keeps_every_slice_written(tmp_path):
    """A slice is solved by compiled calls, which Python's Ctrl-C handler would wait for: the build ends at
    once.  The signal is sent as slice 42's line comes out (the first 5-piece slice); slice 43 (0m2k-0m3k,
    4.9 million entries, a second or more) is being solved then, and the process must end by the signal,
    not after that slice with Python's KeyboardInterrupt.  Every file in the folder is a whole slice."""
    import os
    import signal
    import subprocess
    import sys

    from process_table import ctrl_c_as_at_a_terminal, interrupt_when_seen

    from plyground.files.storage import load_npz
    proc = subprocess.Popen([sys.executable, "-m", "plyground", "endgame", "build", "--pieces", "5", "--dir",
                             str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"}, preexec_fn=ctrl_c_as_at_a_terminal)
    rest, _ = interrupt_when_seen(proc, lambda out: "endgame: slice 42/85 " in out, settle=0)
    assert proc.returncode == -signal.SIGINT, rest
    files = sorted(tmp_path.iterdir())
    assert len(files) == 42 and all(path.name.startswith("slice-") and path.suffix == ".npz" for path in files)
    for path in files:                                       # each is read back whole
        assert {"wld", "dist"} <= set(load_npz(path)), path


def plyground(*args):
    """``plyground ARGS`` as a user runs it: a child process (issue #72 asks for real processes)."""
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-m", "plyground", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def one_line(result) -> str:
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize("damage", ["swapped", "flipped"])
def test_a_damaged_or_altered_slice_is_named_by_probe_and_solved_again_by_build(built, tmp_path, damage):
    """Before: a slice whose win and loss codes were swapped consistently was used silently ('loss in 33' for
    a won position); a byte flipped in its deflate stream ended probe and build in a zlib.error traceback."""
    import struct
    import zipfile

    from plyground.files.storage import load_npz, save_npz
    directory, _ = built
    fen, s = "W:WK1,K3:BK32", (0, 1, 0, 2)
    copy = tmp_path / damage
    copy.mkdir()
    for path in directory.glob("slice-*.npz"):
        (copy / path.name).write_bytes(path.read_bytes())
    target = store.slice_path(copy, s)
    if damage == "swapped":          # win <-> loss (codes 1 and 2 of each 2-bit field), the metadata kept
        arrays = load_npz(target)
        metadata = arrays.pop("__metadata__")
        fields = [(arrays["wld"] >> shift) & 3 for shift in (0, 2, 4, 6)]
        swapped = [np.where(f == 1, 2, np.where(f == 2, 1, f)).astype(np.uint8) for f in fields]
        arrays["wld"] = swapped[0] | swapped[1] << 2 | swapped[2] << 4 | swapped[3] << 6
        save_npz(target, {**arrays, "__metadata__": metadata}, compress=True)
    else:                            # the second byte of the results' deflate stream: a zlib.error, not a CRC's
        with zipfile.ZipFile(target) as archive:
            offset = archive.getinfo("wld.npy").header_offset
        data = bytearray(target.read_bytes())
        name_length, extra_length = struct.unpack("<HH", data[offset + 26:offset + 30])     # its local header
        data[offset + 30 + name_length + extra_length + 1] ^= 0xFF
        target.write_bytes(bytes(data))
    line = one_line(plyground("endgame", "probe", "--fen", fen, "--dir", copy))
    assert f"endgame slice file {target} is " in line and line.endswith(
        f"; build solves it again: plyground endgame build --pieces 3 --dir {copy}"), line
    built_again = plyground("endgame", "build", "--pieces", "3", "--dir", copy)
    assert built_again.returncode == 0, built_again.stderr
    named = [line for line in built_again.stderr.splitlines() if "solving it again" in line]
    assert len(named) == 1 and str(target) in named[0], built_again.stderr
    assert sum("solved in" in line for line in built_again.stderr.splitlines()) == 1
    probed = plyground("endgame", "probe", "--fen", fen, "--dir", copy)
    assert probed.stdout.splitlines()[0] == f"{fen} (White to move): win in 33 plies", probed.stderr


def test_a_slice_written_before_the_checksum_is_solved_again_by_build(built, tmp_path):
    from plyground.errors import ModelFileError
    from plyground.files.storage import load_npz, pop_metadata, save_npz
    directory, _ = built
    for path in directory.glob("slice-*.npz"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    old = store.slice_path(tmp_path, (0, 1, 0, 1))
    arrays = load_npz(old)
    metadata = pop_metadata(arrays, "old")
    del metadata["sha256"]
    save_npz(old, arrays, {**metadata, "format_version": 2}, compress=True)      # as plyground wrote it before
    with pytest.raises(ModelFileError, match=r"slice-0101.npz: format version 2 is not supported \(this plyground "
                                             r"reads version 3\); build solves it again"):
        store.open_database(3, tmp_path)
    lines = []
    store.build(3, tmp_path, log=lines.append)
    assert [line.split()[3] for line in lines if "solved in" in line] == ["0m1k-0m1k"]
    assert any("slice-0101.npz: format version 2" in line and "solving it again" in line for line in lines)
    assert (store.open_database(3, tmp_path).result == store.open_database(3, directory).result).all()
