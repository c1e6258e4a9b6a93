"""Files a user might hand a reader by mistake, written for a test (importable from any test)."""
from __future__ import annotations

import random
from pathlib import Path

#: 200 bytes that are no text: not UTF-8 (0xff starts no character), with a NUL at offset 2.
BINARY_GARBAGE = b"\xff\xfe\x00\xc3\x28" + bytes(random.Random(0).randrange(256) for _ in range(195))


def write(folder: Path, name: str, content: str | bytes) -> Path:
    """``folder/name`` holding ``content``: bytes as they are, text as UTF-8."""
    path = Path(folder) / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def read_both_ways(read, text: str) -> None:
    """Read ``text`` with ``read(text, strict=...)`` strictly and leniently, to the end: a RecordError
    is a fine answer to garbage, anything else escapes (the readers' fuzz tests)."""
    from plyground.errors import RecordError
    for strict in (True, False):
        try:
            list(read(text, strict=strict))
        except RecordError:
            pass
