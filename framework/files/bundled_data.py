"""Record files named on the command line: a path, or the name of games a game ships (``acf``).

``--openings acf``, ``--set games=acf`` and ``bootstrap_games = "acf"`` all
come here (:func:`records_file`), so a name means the same everywhere and a
fresh clone needs no data beside it.  An existing file always wins over a
name.  A bundled file is shipped compressed (xz) and unpacked once into the
user's cache folder, under a name that carries a hash of the compressed
file, so a newer package never reads an older copy; the readers then get an
ordinary path.
"""
from __future__ import annotations

import hashlib
import lzma
import os
from pathlib import Path

from ..capabilities import bundled_records, records_advice
from ..errors import UsageError
from ..protocols import Game
from .atomic import check_regular_file, describe_os_error
from .storage import write_bytes

__all__ = ["records_file", "cache_directory", "describe_bundled"]


def cache_directory() -> Path:
    """Where bundled files are unpacked: ``$XDG_CACHE_HOME/plyground/data``, else ``~/.cache/plyground/data``."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "plyground" / "data"


def describe_bundled(game: Game) -> str:
    """How a message names what ``game`` ships: ``the name of games bundled with checkers (acf)``, or why
    there is none and where such files come from."""
    names = sorted(bundled_records(game))
    if names:
        return f"the name of games bundled with {game.name} ({', '.join(names)})"
    advice = records_advice(game)
    return f"a name: {game.name} bundles no games" + (f"; {advice}" if advice else "")


def records_file(game: Game, source: str | Path, option: str, also: str = "") -> Path:
    """The record file ``source`` means for ``game``: an existing file, else a bundled one by name.

    Anything else is one UsageError naming ``option`` and what it would take
    (``also``: further valid forms for the message, e.g. ``"'none', 'N-ply', "``); so is an existing path
    that is not a regular file (a device, a named pipe, a folder).
    """
    text = str(source)
    path = Path(text).expanduser()
    if path.exists():
        return check_regular_file(path, option)
    shipped = bundled_records(game)
    if text in shipped:
        return _unpacked(text, Path(shipped[text]))
    raise UsageError(f"{option} {text!r} is neither {also}an existing file nor {describe_bundled(game)}")


def _unpacked(name: str, packed: Path) -> Path:
    """The unpacked copy of a bundled ``.xz`` file in the cache folder, made on first use."""
    try:
        data = packed.read_bytes()
    except OSError as exc:
        raise UsageError(f"the bundled file {name!r} ({packed}) cannot be read: {describe_os_error(exc)}; "
                         f"reinstall plyground") from None
    digest = hashlib.sha256(data).hexdigest()[:16]
    stem = packed.name.removesuffix(".xz")
    target = cache_directory() / f"{Path(stem).stem}-{digest}{Path(stem).suffix}"
    if target.is_file():
        return target
    try:
        unpacked = lzma.decompress(data)
    except lzma.LZMAError as exc:
        raise UsageError(f"the bundled file {name!r} ({packed}) is damaged ({exc}); reinstall plyground") from None
    try:
        write_bytes(target, unpacked)
    except OSError as exc:
        raise UsageError(f"cannot unpack the bundled file {name!r} into {target.parent}: "
                         f"{describe_os_error(exc)}; set XDG_CACHE_HOME to a writable folder") from None
    return target
