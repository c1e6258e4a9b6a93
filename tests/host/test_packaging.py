"""A non-editable install carries the data files a game ships in its package (pyproject.toml,
[tool.setuptools.package-data]): the wheel is built for real from a copy of the source tree."""
from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not (REPO / ".git").exists(), reason="needs the source tree")
def test_the_wheel_carries_the_learned_checkers_evaluation(tmp_path):
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO, capture_output=True,
                            text=True, check=True).stdout.splitlines()
    source = tmp_path / "src"
    for name in listed:                          # the tracked and new files only: no build, venv or cache
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-index",
                            "--no-build-isolation", "-w", str(tmp_path / "dist"), str(source)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("plyground-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (listing,) = [name for name in names if name.endswith(".dist-info/entry_points.txt")]
        entry_points = archive.read(listing).decode()
    assert "plyground/games/checkers/alphabeta/weights/checkers.npz" in names          # eval=learned
    assert "plyground/games/checkers/data/acf.pdn.xz" in names                        # --openings acf
    assert "plyground/games/checkers/data/acf-book.npz" in names                      # alphabeta's book=auto
    assert "hub = plyground.games.checkers.hub.plugin" in entry_points.splitlines()
    assert "plyground/games/checkers/hub/plugin.py" in names
