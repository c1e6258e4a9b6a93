"""A crafted run pack (``plyground alphazero unpack``) is refused in one line, reading no more than it must
(issue #72, point 6): its tar's headers are bounded before they are read.

The pack is made here by hand, as someone would craft it: a manifest whose parts' sizes and SHA-256 are
right, and one part, an xz stream of a tar that starts with a pax extended header declaring 400 MiB.
The stream is the same compressed megabyte of zeros over and over (xz files may be concatenated streams),
so the part is written at once and is a few hundred kilobytes.  The child's peak memory is what the kernel
measured (wait4).  Before, tarfile read the whole header into memory: a 2 GiB one took 4.3 GB, a 3 GiB one
ended in a MemoryError traceback.
"""
from __future__ import annotations

import hashlib
import json
import lzma
import tarfile

from processes import one_error_line, run_plyground_peak

MEMORY_BOUND = 300 * 10 ** 6          # bytes: the interpreter and numpy take well under half of it
HEADER_BYTES = 400 * 2 ** 20


def test_a_pack_whose_tar_starts_with_a_huge_pax_header_is_refused_unread(tmp_path):
    header = tarfile.TarInfo("././@PaxHeader")
    header.type, header.size = tarfile.XHDTYPE, HEADER_BYTES
    megabyte = lzma.compress(bytes(2 ** 20))
    part = lzma.compress(header.tobuf(format=tarfile.USTAR_FORMAT)) + megabyte * (HEADER_BYTES // 2 ** 20)
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "run-01.tar.xz").write_bytes(part)
    files = {"config.toml": b"", "state.json": b"{}"}
    manifest = {"format": "plyground-run-pack", "version": 1, "trainer": "alphazero", "replay": False,
                "parts": [{"name": "run-01.tar.xz", "bytes": len(part), "sha256": hashlib.sha256(part).hexdigest()}],
                "members": [{"path": name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
                            for name, data in files.items()]}
    (pack / "pack.json").write_text(json.dumps(manifest))
    assert len(part) < 10 ** 6
    result, peak = run_plyground_peak("alphazero", "unpack", "--from", pack, "--run", tmp_path / "run")
    assert peak < MEMORY_BOUND, f"{peak:,} bytes"
    assert one_error_line(result) == (
        f"plyground: error: the pack in {pack} cannot be read (at byte 0 of its tar, a pax extended header of "
        f"{HEADER_BYTES:,} bytes, refused unread: a pack's members are plain files, each behind one 512-byte "
        f"header); pack the run again")
    assert {path.name for path in (tmp_path / "run").iterdir()} <= {".lock"}       # nothing was unpacked
