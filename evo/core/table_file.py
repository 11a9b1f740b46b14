"""Feedback tables kept as files and memory-mapped, so that every process of the machine
shares one copy (a big game's table is built once per machine, not once per process).

A file is a 4096-byte header (magic, format version, the game's name, the table's size,
the CRC-32 of the table) followed by the ``(M, M)`` uint8 table. A file is used only when
its size, header and CRC all agree; anything else is rebuilt. Files are written to a
temporary file and renamed; a lock makes a second process wait for the first one's build
instead of building too.
"""

from __future__ import annotations

import mmap
import os
import struct
import tempfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

MAGIC = b"EVOTABLE"
VERSION = 1
HEADER_BYTES = 4096
_HEADER = struct.Struct("<8sIQI64s")  # magic, version, rows, crc32, game name
_CHUNK = 64 * 1024**2


def mapped_table(
    path: Path, *, name: str, rows: int, blocks: Callable[[], Iterator[np.ndarray]]
) -> np.ndarray:
    """The ``(rows, rows)`` table of game ``name`` mapped read-only from ``path``; when the
    file is missing or invalid, ``blocks()`` (row blocks in order) is written there first.
    Raises OSError when the file can be neither read nor written."""
    table = _map_valid(path, name, rows)
    if table is not None:
        return table
    with _locked(path):
        table = _map_valid(path, name, rows)  # another process may have built it meanwhile
        if table is None:
            _write(path, name, rows, blocks())
            table = _map_valid(path, name, rows)
    if table is None:
        raise OSError(f"the table written to {path} does not read back")
    return table


def _header(name: str, rows: int, crc: int) -> bytes:
    return _HEADER.pack(MAGIC, VERSION, rows, crc, name.encode("ascii")[:64])


def _map_valid(path: Path, name: str, rows: int) -> np.ndarray | None:
    """The mapped table when the file's size, header and CRC are right, else None."""
    try:
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_size != HEADER_BYTES + rows * rows:
                return None
            head = f.read(_HEADER.size)
            crc = _HEADER.unpack(head)[3]
            if head != _header(name, rows, crc):  # magic, version, size and game
                return None
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, struct.error, ValueError):
        return None
    view = memoryview(mm)
    check = 0
    for lo in range(HEADER_BYTES, len(mm), _CHUNK):
        check = zlib.crc32(view[lo : lo + _CHUNK], check)
    view.release()
    if check != crc:
        mm.close()
        return None
    return np.frombuffer(mm, dtype=np.uint8, count=rows * rows, offset=HEADER_BYTES).reshape(
        rows, rows
    )


def _write(path: Path, name: str, rows: int, blocks: Iterator[np.ndarray]) -> None:
    """Write the header and the blocks to a temporary file, then rename it to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)  # mkstemp makes 0600: the file is for every user's runs
        with os.fdopen(fd, "wb") as f:
            f.write(b"\0" * HEADER_BYTES)
            crc = written = 0
            for block in blocks:
                data = np.ascontiguousarray(block, dtype=np.uint8).reshape(-1).data
                crc = zlib.crc32(data, crc)
                f.write(data)
                written += data.nbytes
            if written != rows * rows:
                raise ValueError(f"table blocks gave {written} bytes, not {rows * rows}")
            f.seek(0)
            f.write(_header(name, rows, crc))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


@contextmanager
def _locked(path: Path):
    """Hold an exclusive lock beside ``path`` (where ``fcntl`` exists)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Linux or macOS
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
