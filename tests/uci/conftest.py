import stat
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "chess"))   # chess_helpers

from chess_helpers import game, registry  # noqa: E402,F401 - fixtures shared with the chess tests

FAKE_ENGINE = Path(__file__).resolve().parent / "fake_engine.py"


@pytest.fixture
def fake_engine(tmp_path):
    """fake_engine(mode, helper_pidfile=None) -> path of an executable that runs the fake UCI engine in that mode.

    With ``helper_pidfile`` the engine also starts a helper that ignores SIGTERM and writes its pid there.
    """
    def make(mode: str = "ok", helper_pidfile=None) -> str:
        path = tmp_path / f"fake-{mode}" if helper_pidfile is None else tmp_path / f"fake-{mode}-with-helper"
        extra = "" if helper_pidfile is None else f" {helper_pidfile}"
        path.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE_ENGINE} {mode}{extra}\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return str(path)
    return make
