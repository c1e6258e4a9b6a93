"""Writing game records in each game's own format, atomically."""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator, Sequence

from .protocols import Game, GameRecord


@contextmanager
def atomic_writer(path: Path, mode: str = "w") -> Iterator[IO]:
    """A file to write whose content replaces ``path`` only if the block completes.

    The data goes to a temporary file in the same folder, is fsync'd and then
    renamed over ``path``, so a crash or Ctrl-C leaves either the old file or the
    new one, never half of one.  The file gets the usual permissions (0666 less
    the umask), not mkstemp's 0600.  ``mode`` is ``"w"`` (UTF-8 text) or ``"wb"``.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` atomically (see :func:`atomic_writer`)."""
    with atomic_writer(path) as handle:
        handle.write(text)


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
