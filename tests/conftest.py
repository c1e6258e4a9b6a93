import os
from pathlib import Path

import pytest

# Windows are never needed by the default test run; pygame tests open a dummy display.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture
def acf_pdn() -> Path:
    path = SHARED_DATA / "acf.pdn"
    if not path.exists():
        pytest.skip(f"the ACF archive is not at {path} (tests read ../shared/data beside the repository)")
    return path
