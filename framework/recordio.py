"""Writing game records in each game's own format, atomically."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Sequence

from .protocols import Game, GameRecord


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so that a crash leaves either the old or the new file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a saved game is an ordinary file
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_records(game: Game, records: Sequence[GameRecord], path: Path, append: bool = False) -> None:
    text = game.format_records(records)
    path = Path(path)
    if append and path.exists():
        previous = path.read_text(encoding="utf-8")
        if previous and not previous.endswith("\n"):
            previous += "\n"
        text = previous + ("\n" if previous.strip() else "") + text
    atomic_write_text(path, text)
