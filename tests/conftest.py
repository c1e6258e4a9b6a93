import os
import tempfile
from pathlib import Path

import pytest

# Windows are never needed by the default test run; pygame tests open a dummy display.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

# Players use the largest endgame database built (endgame=auto): the tests see none unless they build one,
# whatever the machine running them has built.
os.environ["PLYGROUND_ENDGAME_DIR"] = tempfile.mkdtemp(prefix="plyground-tests-no-endgame-")
# Saved games (Ctrl-C, 'save', the window's Save) never land in the user's ~/plyground-games; a test that
# looks at them points PLYGROUND_GAMES at its own folder.
os.environ["PLYGROUND_GAMES"] = tempfile.mkdtemp(prefix="plyground-tests-games-")


# Where PYTHONDONTWRITEBYTECODE is set (some containers set it), every ``plyground`` the tests start (about
# 400 a run) would compile its ~200 modules from source again, 0.3-0.6 s each time: the processes this run
# starts write their bytecode, into the ``__pycache__`` folders beside the sources that git ignores and
# numba's kernel cache fills anyway: 964 s for the whole suite against 1023 s (2 cores, fresh numba caches).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def acf_pdn(tmp_path_factory) -> Path:
    """The ACF archive: ../shared/data/acf.pdn beside the repository, else the copy the checkers game ships
    (unpacked into a cache folder of the test session's own, never the user's)."""
    path = SHARED_DATA / "acf.pdn"
    if path.exists():
        return path
    from plyground.files.bundled_data import records_file
    from plyground.games.checkers.game import CheckersGame
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        return records_file(CheckersGame(), "acf", "the ACF archive")


@pytest.fixture(autouse=True)
def notes_on():
    """Every test starts with plyground's notes on stderr, as a new process does: a command run in this
    process with --quiet (or ``plyground uci``) turns them off for the rest of the process."""
    from plyground.util import notices
    notices.set_quiet(False)
    yield


@pytest.fixture
def cli(capsys):
    """Run ``plyground ARGS...`` in this process; returns (exit code, stdout, stderr)."""
    from plyground.cli import main

    def run(*args: str):
        try:
            main([str(a) for a in args])
            code = 0
        except SystemExit as exc:
            code = exc.code or 0
        out, err = capsys.readouterr()
        return code, out, err

    return run
