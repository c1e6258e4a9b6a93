"""``plyground endgame build|probe``: a resumable build on disk, probes, and bad input named."""
from __future__ import annotations

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
    assert code == 2 and "slice-0101.npz is corrupt" in err and "delete it and build again" in err
