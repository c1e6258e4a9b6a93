"""Files written whole or not at all, and files a user names checked before they are opened.

The lowest room of :mod:`plyground.files`: it knows no game.  Every record, model, run file and report is
written through :func:`atomic_writer` (a temporary file in the same folder, fsync'd, renamed over the old one), so
a crash or Ctrl-C leaves the old file or the new one, never half of one; every path a user names passes
:func:`check_regular_file` first; an OSError reaches the user in words (:func:`describe_os_error`).
"""
from __future__ import annotations

import errno
import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

from ..errors import PlygroundError, UsageError


def check_regular_file(path: Path, what: str = "file", error: type[PlygroundError] = UsageError,
                       label: str | None = None) -> Path:
    """``path`` if it is a regular file or does not exist yet; else one ``error`` naming it and what it is.

    Every file a user names goes through this before it is opened: a device
    (``/dev/zero`` reads forever, ``/dev/full`` never fills), a named pipe (it
    waits for a writer that never comes), a socket or a folder is refused.
    ``what`` says what the file is for ("--save", "opening file"); a ``label``
    replaces both it and the path in the message.
    """
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return path
    except OSError:
        return path     # cannot look (no permission, a file as a folder): the open that follows says why
    if stat.S_ISREG(mode):
        return path
    kind = ("a folder" if stat.S_ISDIR(mode) else "a named pipe (FIFO)" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "not a plain file")
    raise error(f"{label or f'{what} {path}'} is {kind}, not a regular file; name a regular file")


@contextmanager
def atomic_writer(path: Path, mode: str = "w") -> Iterator[IO]:
    """A file to write whose content replaces ``path`` only if the block completes.

    The data goes to a temporary file in the same folder, is fsync'd and then
    renamed over ``path``, so a crash or Ctrl-C leaves either the old file or the
    new one, never half of one.  The file gets the usual permissions (0666 less
    the umask), not mkstemp's 0600.  ``mode`` is ``"w"`` (UTF-8 text) or ``"wb"``.
    """
    path = check_regular_file(Path(path))      # the rename would replace a device or a pipe
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        name_os_error(exc, path)
        raise


def name_os_error(exc: BaseException, path: Path) -> None:
    """Let ``exc``, an OSError that names no file (a full disk's write, flush or fsync), name ``path``: the user's
    message must say where (the command line prints an OSError as "FILE: why")."""
    if isinstance(exc, OSError) and exc.errno is not None and not exc.filename:
        exc.filename = str(path)


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` atomically (see :func:`atomic_writer`)."""
    with atomic_writer(path) as handle:
        handle.write(text)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def describe_os_error(exc: OSError) -> str:
    """An OSError in words a user acts on ("no space left on device", "read-only file system")."""
    if exc.errno == errno.ENOSPC:
        return "no space left on device"
    return (exc.strerror or str(exc)).lower()
