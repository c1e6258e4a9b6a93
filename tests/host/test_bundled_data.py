"""Games a game ships by name (checkers: ``acf``, the ACF archive) work wherever a record file is asked for,
on a machine with no ../shared/data; a name that is neither a file nor shipped is one line that says what is.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from plyground.files.bundled_data import cache_directory, records_file
from plyground.capabilities import BundledRecords, bundled_records
from plyground.errors import UsageError
from plyground.registry import get_registry

#: The unpacked archive (games/checkers/data/README.md gives the same size and hash).
ACF_SHA256 = "9a03d7fb8edd120accc8e8f9d280646be9b3b9d6bea2808a4ee6f243eb966667"
ACF_GAMES = 9377


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """A cache folder of the test's own, so the user's ~/.cache is never written."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "plyground" / "data"


def game(name: str):
    return get_registry().make_game(name)


def one_error_line(code, err) -> str:
    assert code == 2 and err.startswith("plyground: error: ") and err.count("\n") == 1, (code, err)
    assert "Traceback" not in err
    return err


def test_acf_unpacks_to_the_archive_once(cache):
    checkers = game("checkers")
    assert isinstance(checkers, BundledRecords) and set(bundled_records(checkers)) == {"acf"}
    path = records_file(checkers, "acf", "games")
    assert path.parent == cache == cache_directory()
    data = path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == ACF_SHA256 and data.count(b"[Event ") == ACF_GAMES
    before = path.stat()
    assert records_file(checkers, "acf", "games") == path
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (before.st_ino, before.st_mtime_ns)   # not rewritten
    assert [p.name for p in cache.iterdir()] == [path.name]                                    # no temporary left


def test_an_existing_file_wins_over_a_name(cache, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "acf").write_text("B:W21,22:B9,10\n")
    assert records_file(game("checkers"), "acf", "--openings") == Path("acf")
    assert not cache.exists()


def test_an_unknown_name_lists_what_the_game_ships(cache):
    with pytest.raises(UsageError, match=r"^games 'acf.pdn' is neither an existing file nor the name of games "
                                         r"bundled with checkers \(acf\)$"):
        records_file(game("checkers"), "acf.pdn", "games")


def test_a_game_without_data_says_where_such_files_come_from(cache):
    with pytest.raises(UsageError, match=r"chess bundles no games; give a PGN file of chess games, e\.g\. master "
                                         r"games from the PGN Mentor player files \(https://www\.pgnmentor\.com"):
        records_file(game("chess"), "chess-masters.pgn", "games")


def test_an_unwritable_cache_is_one_clear_error(tmp_path, monkeypatch):
    if os.geteuid() == 0:
        blocked = tmp_path / "file"          # root writes anywhere: a regular file where the folder must go
        blocked.write_text("")
    else:
        blocked = tmp_path / "ro"
        blocked.mkdir(mode=0o500)
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    with pytest.raises(UsageError, match=r"^cannot unpack the bundled file 'acf' into .*; set XDG_CACHE_HOME"):
        records_file(game("checkers"), "acf", "games")


# ------------------------------------------------------------------ the commands that take it
# (`--openings acf` itself runs in tests/host/test_readme_commands.py, on a fresh copy of the repository)


def test_openings_name_neither_file_nor_bundled(cli, cache):
    err = one_error_line(*cli("match", "--game", "checkers", "--black", "random", "--white", "random",
                              "--openings", "../shared/data/missing.pdn")[::2])
    assert "--openings '../shared/data/missing.pdn' is neither 'none', 'N-ply' (e.g. 3-ply), an existing file " \
           "nor the name of games bundled with checkers (acf)" in err


@pytest.mark.parametrize("trainer", ["bonanza", "bayes"])
def test_trainers_resolve_games_through_the_bundled_names(cli, cache, tmp_path, trainer):
    err = one_error_line(*cli("train", trainer, "--game", "checkers", "--run", tmp_path / "run",
                              "--set", "games=acf.pdn")[::2])
    assert "games 'acf.pdn' is neither an existing file nor the name of games bundled with checkers (acf)" in err


def test_the_alphazero_bootstrap_resolves_its_games_through_the_bundled_names(cache):
    from plyground.plugins.trainers.alphazero.bootstrap import expert_positions
    with pytest.raises(UsageError, match=r"^bootstrap_games 'acf.pdn' is neither an existing file nor the name of "
                                         r"games bundled with checkers \(acf\)$"):
        next(expert_positions(game("checkers"), Path("acf.pdn"), seed=0, siblings=False))


def test_the_configs_name_no_file_outside_the_repository():
    configs = Path(__file__).resolve().parents[2] / "configs"
    for config in configs.glob("*.toml"):
        assert "../shared" not in config.read_text(encoding="utf-8"), config.name
