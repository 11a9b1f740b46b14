"""Files: atomic writes (a temporary file beside the target, then a rename) and reads of
the files users give, with one-line errors."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

#: Temporary files of :func:`atomic_write_bytes` are named ``.<target>.<random>.tmp``.
TEMP_PATTERN = ".*.tmp"

#: Files users give (configs, tree files) larger than this are refused before reading.
MAX_READ_BYTES = 256 * 2**20


class FileWriteError(OSError):
    """A file could not be written (disk full, no permission…): the message names it."""


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` so that a crash leaves either the old file or the new one.
    A failed write removes its temporary file and raises :class:`FileWriteError`."""
    path = Path(path)
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual permissions
        with os.fdopen(fd, "wb") as f:
            _write(f, data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(e, OSError) and not isinstance(e, FileWriteError):
            raise FileWriteError(e.errno, f"cannot write {path}: {e.strerror or e}") from e
        raise
    return path


def _write(f, data: bytes) -> None:
    """The one place bytes reach a file (tests replace it to simulate a full disk)."""
    f.write(data)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) atomically."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | os.PathLike, data: Any, indent: int | None = 1) -> Path:
    """Write ``data`` as JSON atomically."""
    return atomic_write_text(path, json.dumps(data, indent=indent) + "\n")


def remove_temporaries(folder: str | os.PathLike) -> list[Path]:
    """Delete the temporary files that writers killed mid-write left in ``folder`` and its
    subfolders (only call it while no other process writes there); returns them."""
    gone = []
    for tmp in Path(folder).rglob(TEMP_PATTERN):
        if tmp.is_file():
            tmp.unlink(missing_ok=True)
            gone.append(tmp)
    return gone


def open_regular(path: str | os.PathLike) -> int:
    """A read-only descriptor of ``path``, which must be a regular file: a FIFO or device
    would block the read or do something else, so it raises OSError without reading."""
    if not stat.S_ISREG(os.stat(path).st_mode):  # not even opened: a device may act on open
        raise OSError(f"{path} is not a regular file")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # replaced by a FIFO meanwhile: no wait
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bytes(
    path: str | os.PathLike,
    *,
    what: str,
    error: type[Exception],
    max_bytes: int = MAX_READ_BYTES,
) -> bytes:
    """The bytes of a file the user gave (``what`` it is: ``config``, ``tree file``); when
    it is not a regular file, cannot be read or is too big, ``error`` with one line naming
    the file and why."""
    path = Path(path)
    try:
        with os.fdopen(open_regular(path), "rb") as f:  # a FIFO would wait for a writer
            size = os.fstat(f.fileno()).st_size
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise error(f"cannot read {what} {path}: {e.strerror or e}") from None
    if max(size, len(data)) > max_bytes:
        raise error(f"{path} is too big for a {what} ({size:,} bytes; the limit is {max_bytes:,})")
    return data


def read_text(
    path: str | os.PathLike,
    *,
    what: str,
    error: type[Exception],
    max_bytes: int = MAX_READ_BYTES,
) -> str:
    """The UTF-8 text of a file the user gave (see :func:`read_bytes`); ``error`` also
    when it is not UTF-8."""
    data = read_bytes(path, what=what, error=error, max_bytes=max_bytes)
    return decode_text(data, path=path, what=what, error=error)


def decode_text(data: bytes, *, path: str | os.PathLike, what: str, error: type[Exception]) -> str:
    """The UTF-8 text of a file's ``data``; ``error`` naming the file and the first byte
    that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise error(
            f"{path} is not a {what} (not UTF-8 text: byte {e.start} is {e.object[e.start]:#04x})"
        ) from None


def parse_json(text: str, *, where: str, error: type[Exception]) -> Any:
    """JSON text as data; ``error`` with one line naming ``where`` when it is not valid
    JSON or is nested too deep to read."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise error(
            f"{where} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); "
            "the file is corrupted or truncated"
        ) from None
    except RecursionError:
        raise error(
            f"{where} is nested too deep to read (arrays or objects inside each other)"
        ) from None


def cache_dir() -> Path:
    """The cache root of this machine (baseline trees, feedback tables): ``$EVO_CACHE``,
    else ``~/.cache/evo``."""
    root = os.environ.get("EVO_CACHE")
    return Path(root).expanduser() if root else Path.home() / ".cache" / "evo"


def path_argument(value: Any, *, what: str) -> Path:
    """A path a caller gave (a string or path-like, not empty, without NUL bytes) as a
    :class:`~pathlib.Path`; ValueError naming ``what`` otherwise."""
    if not isinstance(value, str | os.PathLike):
        raise ValueError(f"{what} must be a path, not {value!r}")
    text = os.fspath(value)
    if isinstance(text, bytes) or not text.strip() or "\0" in text:
        raise ValueError(f"{what} must name a file or folder, not {value!r}")
    return Path(text)
