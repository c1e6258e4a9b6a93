import pytest

from plyground.games.checkers.endgame import store


@pytest.fixture(scope="session")
def four(tmp_path_factory):
    """The 4-piece database, built on disk once for the session (about 15 s): (database, folder)."""
    directory = tmp_path_factory.mktemp("endgame-4")
    return store.build(4, directory, log=lambda line: None), directory


@pytest.fixture
def endgame_dir(four, monkeypatch):
    """Players' ``endgame=auto`` finds the 4-piece database (tests otherwise see none: tests/conftest.py)."""
    monkeypatch.setenv("PLYGROUND_ENDGAME_DIR", str(four[1]))
    return four[1]
