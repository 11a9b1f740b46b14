"""Files: atomic writes (a temporary file beside the target, then a rename) and reads of
the files users give, with one-line errors."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import gzip
import json
import os
import re
import socket
import stat
import tempfile
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeGuard

#: Temporary files of :func:`atomic_write_bytes` are named ``.<target>.<random>.tmp``.
TEMP_PATTERN = ".*.tmp"

#: Files users give (configs, tree files) larger than this are refused before reading.
MAX_READ_BYTES = 256 * 2**20


class FileWriteError(OSError):
    """A file could not be written (disk full, no permission…): the message names it."""


def atomic_write_bytes(path: str | os.PathLike, data: bytes, *, replace_any: bool = False) -> Path:
    """Write ``data`` to ``path`` so that a crash leaves either the old file or the new one.
    What is at ``path`` must be a regular file or nothing (:func:`check_target`, checked
    before writing and again just before the rename), unless ``replace_any`` (a file of
    evo's own, such as a cache entry, whatever is there). A failed or refused write
    removes its temporary file and raises :class:`FileWriteError`."""
    path = Path(path)
    tmp: str | None = None
    try:
        if not replace_any:
            check_target(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual permissions
        with os.fdopen(fd, "wb") as f:
            _write(f, data)
            f.flush()
            os.fsync(f.fileno())
        if not replace_any:
            check_target(path)  # something else may have come there meanwhile
        os.replace(tmp, path)
    except BaseException as e:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(e, OSError) and not isinstance(e, FileWriteError):
            raise FileWriteError(e.errno, f"cannot write {path}: {e.strerror or e}") from e
        raise
    return path


#: What :func:`check_target` calls the entries that are not regular files.
_KINDS = {
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}


def check_target(path: str | os.PathLike) -> Path:
    """``path`` as a name a writer may replace: a new name, or a regular file. Anything
    else a rename would swap for a file: a symbolic link, a FIFO, a device (``-o
    /dev/null`` run as root would replace the machine's /dev/null), a folder. Else
    :class:`FileWriteError` naming it and what it is."""
    if os.fspath(path) == "":
        raise FileWriteError(errno.ENOENT, "cannot write a file with an empty name")
    path = Path(path)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return path
    except OSError as e:  # e.g. a path through a regular file
        raise FileWriteError(e.errno, f"cannot write {path}: {e.strerror or e}") from None
    if not stat.S_ISREG(mode):
        kind = _KINDS.get(stat.S_IFMT(mode), "a special file")
        raise FileWriteError(
            errno.EEXIST,
            f"cannot write {path}: it is {kind}, not a regular file, and is left as it is "
            "(give another name)",
        )
    return path


def check_output(path: str | os.PathLike) -> Path:
    """The file a command is asked to write, checked before its work: a name that is not
    empty and does not end in a slash, in a folder that exists and may be written in,
    naming nothing or a regular file (:func:`check_target`); else
    :class:`FileWriteError` saying why. The writer checks the file again when it writes."""
    text = os.fspath(path)
    if text == "":
        raise FileWriteError(errno.ENOENT, "the output file name is empty")
    if text.endswith(("/", os.sep)):
        raise FileWriteError(errno.EISDIR, f"cannot write {text}: it names a folder, not a file")
    target = Path(text)
    folder = target.parent
    if not folder.is_dir():
        raise FileWriteError(errno.ENOENT, f"cannot write {target}: there is no folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise FileWriteError(
            errno.EACCES, f"cannot write {target}: the folder {folder} may not be written in"
        )
    return check_target(target)


def _write(f, data: bytes) -> None:
    """The one place bytes reach a file (tests replace it to simulate a full disk)."""
    f.write(data)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | os.PathLike, text: str, *, replace_any: bool = False) -> Path:
    """Write ``text`` (UTF-8) atomically (see :func:`atomic_write_bytes`)."""
    return atomic_write_bytes(path, text.encode("utf-8"), replace_any=replace_any)


def atomic_write_json(
    path: str | os.PathLike,
    data: Any,
    indent: int | None = 1,
    *,
    replace_any: bool = False,
    compress: bool = False,
) -> Path:
    """Write ``data`` as JSON atomically (see :func:`atomic_write_bytes`), gzip-compressed
    when ``compress`` (:func:`gzip_bytes`)."""
    text = (json.dumps(data, indent=indent) + "\n").encode("utf-8")
    return atomic_write_bytes(path, gzip_bytes(text) if compress else text, replace_any=replace_any)


def gzip_bytes(data: bytes) -> bytes:
    """``data`` gzip-compressed without a time or name in its header: the same bytes for
    the same data. Level 6: on the (6,8) breaker's 8.7 MB of JSON, 1.31 MB in 1.1 s, where
    level 9 takes 3.9 s for 1.24 MB (``gzip -9 -n`` is for the files shipped)."""
    return gzip.compress(data, compresslevel=6, mtime=0)


def gunzip(
    data: bytes,
    *,
    path: str | os.PathLike,
    what: str,
    error: type[Exception],
    max_bytes: int = MAX_READ_BYTES,
    head: bool = False,
) -> bytes:
    """The content of gzip ``data`` (one member or several, as ``cat a.gz b.gz`` makes)
    read from the file ``path`` (``what`` it is); ``error`` with one line naming the file
    when it is corrupted or truncated, or holds more than ``max_bytes`` (a small file can
    hold gigabytes of zeros: decompression stops at the limit, it never holds more).
    With ``head``, only the content's first ``max_bytes`` bytes (all of it when shorter),
    the rest left unread: a document's start, to check before the whole is read."""
    too_big = error(
        f"{path} is too big for a {what} once decompressed (more than {max_bytes:,} bytes)"
    )
    # a file whose trailer states more (modulo 4 GiB) is read through without being kept:
    # the error is then "too big", or "corrupted" when it is that, in little memory
    keep = head or len(data) < 18 or int.from_bytes(data[-4:], "little") <= max_bytes
    out: list[bytes] = []
    size = 0
    rest = data
    try:
        while rest:
            member = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)  # a gzip header and trailer
            while not member.eof:
                chunk = member.decompress(rest, _CHUNK)
                rest = member.unconsumed_tail
                size += len(chunk)
                if keep:
                    out.append(chunk)
                if size > max_bytes:
                    if head:
                        return b"".join(out)[:max_bytes]
                    raise too_big
                if not chunk and not rest and not member.eof:
                    raise zlib.error("it ends before its compressed data does")
            rest = member.unused_data
    except zlib.error as e:
        raise error(
            f"{path} is not a valid gzip file ({e}): the file is corrupted or truncated"
        ) from None
    if not keep:  # not reached: zlib checks each member's size against its trailer
        raise too_big
    return b"".join(out)


#: Bytes decompressed at a time by :func:`gunzip`.
_CHUNK = 2**20


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
    max_bytes: int | None = MAX_READ_BYTES,
) -> bytes:
    """The bytes of a file the user gave (``what`` it is: ``config``, ``tree file``); when
    it is not a regular file, cannot be read or is bigger than ``max_bytes`` (None: any
    size), ``error`` with one line naming the file and why."""
    path = Path(path)
    try:
        with os.fdopen(open_regular(path), "rb") as f:  # a FIFO would wait for a writer
            size = os.fstat(f.fileno()).st_size
            if max_bytes is None:
                data = f.read()
            else:  # a read of n bytes sets n bytes aside first: the size, and one more
                data = f.read(min(size, max_bytes) + 1)
                if size < len(data) <= max_bytes:  # grown since
                    data += f.read(max_bytes + 1 - len(data))
    except OSError as e:
        raise error(f"cannot read {what} {path}: {e.strerror or e}") from None
    if max_bytes is not None and max(size, len(data)) > max_bytes:
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
    JSON, is nested too deep to read or gives a key twice in one object (JSON keeps the
    last silently: what the first one held would be lost unseen)."""
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except (json.JSONDecodeError, _KeyTwice, RecursionError) as e:
        raise _json_error(e, where=where, error=error) from None


def _json_error(e: Exception, *, where: str, error: type[Exception], within: str = "") -> Exception:
    """``error`` saying why the JSON text of ``where`` could not be read (``within``: a
    few words on where it was read, for the start of a document)."""
    if isinstance(e, json.JSONDecodeError):
        return error(
            f"{where} is not valid JSON{within} (line {e.lineno}, column {e.colno}: {e.msg}); "
            "the file is corrupted or truncated"
        )
    if isinstance(e, _KeyTwice):
        return error(f"{where} gives the key {e.key!r} twice in one object")
    return error(f"{where} is nested too deep to read (arrays or objects inside each other)")


def json_head(
    text: str, *, stop: str, where: str, error: type[Exception], within: str = ""
) -> tuple[dict[str, Any] | None, bool]:
    """The members that the JSON object at the start of ``text`` gives before its key
    ``stop``, each parsed alone (the start of a document, read before the whole is: the
    value of ``stop`` and what follows it are not read), and whether ``stop`` came;
    ``(None, False)`` when ``text`` does not start with an object. ``error`` naming
    ``where`` when those members are not valid JSON within ``text`` (``within`` says
    where that was), nest too deep or give a key twice."""
    decoder = json.JSONDecoder(object_pairs_hook=_unique_keys)

    def space(at: int) -> int:  # the first place from ``at`` that is no white space
        found = _JSON_SPACE.match(text, at)
        return at if found is None else found.end()

    at = space(0)
    if not text.startswith("{", at):
        return None, False
    members: dict[str, Any] = {}
    at = space(at + 1)
    try:
        if text.startswith("}", at):
            return members, False
        while True:
            if not text.startswith('"', at):
                raise json.JSONDecodeError("Expecting property name enclosed in double quotes",
                                           text, at)  # fmt: skip
            key, at = decoder.raw_decode(text, at)  # a string: it starts with a quote
            at = space(at)
            if not text.startswith(":", at):
                raise json.JSONDecodeError("Expecting ':' delimiter", text, at)
            if key == stop:
                return members, True
            if key in members:
                raise _KeyTwice(key)
            members[key], at = decoder.raw_decode(text, space(at + 1))
            at = space(at)
            if text.startswith("}", at):
                return members, False
            if not text.startswith(",", at):
                raise json.JSONDecodeError("Expecting ',' delimiter", text, at)
            at = space(at + 1)
    except (json.JSONDecodeError, _KeyTwice, RecursionError) as e:
        raise _json_error(e, where=where, error=error, within=within) from None


#: What JSON counts as white space between its tokens.
_JSON_SPACE = re.compile(r"[ \t\n\r]*")


class _KeyTwice(Exception):
    def __init__(self, key: str):
        self.key = key


def is_json_number(value: Any) -> TypeGuard[int | float]:
    """Whether a value read from JSON is a number (an integer or a float; ``true`` and
    ``false`` are not, though Python counts them as integers)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict, refusing a key given twice."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _KeyTwice(key)
            seen.add(key)
    return out


def cache_dir() -> Path:
    """The cache root of this machine (baseline trees, feedback tables): ``$EVO_CACHE``,
    else ``~/.cache/evo``. :class:`FileWriteError` when it names a file, or a place
    inside one (the cache could never be written: it would be silently off)."""
    root = os.environ.get("EVO_CACHE")
    path = Path(root).expanduser() if root else Path.home() / ".cache" / "evo"
    there = path  # the nearest of it and its folders that exists
    while not os.path.lexists(there) and there != there.parent:
        there = there.parent
    if not there.is_dir():
        named = f"EVO_CACHE={root}" if root else f"the cache folder {path}"
        where = "is not a folder" if there == path else f"is inside {there}, not a folder"
        raise FileWriteError(
            errno.ENOTDIR,
            f"{named} {where}: the cache cannot be kept there (give EVO_CACHE a folder)",
        )
    return path


def path_argument(value: Any, *, what: str) -> Path:
    """A path a caller gave (a string or path-like, not empty, without NUL bytes) as a
    :class:`~pathlib.Path`, ``~`` expanded; ValueError naming ``what`` otherwise."""
    if not isinstance(value, str | os.PathLike):
        raise ValueError(f"{what} must be a path, not {value!r}")
    text = os.fspath(value)
    if isinstance(text, bytes) or not text.strip() or "\0" in text:
        raise ValueError(f"{what} must name a file or folder, not {value!r}")
    try:
        return Path(text).expanduser()  # ~ and ~user, as a shell would
    except RuntimeError:  # ~user of no such user
        raise ValueError(f"{what} {value!r} names the home folder of no user") from None


class LockedError(OSError):
    """Another process holds the lock of a file being written: the message names it."""


@contextmanager
def exclusive(lock: str | os.PathLike, *, what: str) -> Iterator[Path]:
    """Hold an exclusive ``flock`` on the file ``lock`` (made if missing; it names this
    process and host) while ``what`` is written; :class:`LockedError` at once, naming
    ``what`` and the holder, when another process holds it. The lock goes with the
    process, however it ends; released, the file is removed too (nothing is left beside
    what was written, unless the process was killed)."""
    path = Path(lock)
    for _ in range(3):
        fd = _locked(path, what=what)
        try:
            there = os.stat(path)
        except FileNotFoundError:
            there = None
        if there is not None and os.path.samestat(there, os.fstat(fd)):
            break
        # The file locked was removed by its last holder as it ended, after this process
        # opened it: take the one there now.
        os.close(fd)
    else:
        raise LockedError(errno.EBUSY, f"{what}: its lock keeps changing hands; try again")
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {socket.gethostname()}\n".encode(), 0)
        yield path
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # while still held: a process after it takes a new one
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _locked(path: Path, *, what: str) -> int:
    """A descriptor of ``path`` (made if missing) holding its exclusive ``flock``;
    :class:`LockedError` naming ``what`` and the holder when another process holds it."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as e:
        raise LockedError(e.errno, f"cannot lock {what}: {e.strerror or e}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.pread(fd, 200, 0).decode("utf-8", "replace").split()
        os.close(fd)
        pid, host = (holder + ["?", "?"])[:2]
        raise LockedError(
            errno.EBUSY,
            f"{what} is being written by process {pid} on host {host}; "
            "wait for it to end (or stop it) first",
        ) from None
    return fd


def lock_beside(path: str | os.PathLike) -> Path:
    """The lock file of a file that is written in place or replaced (``.NAME.lock``
    beside it): locking the file itself would not survive its atomic replacement."""
    path = Path(path)
    return path.with_name(f".{path.name}.lock")


def set_aside(path: str | os.PathLike) -> Path:
    """Rename a broken file of evo's own (a key, a memo, a cache entry) to
    ``NAME.bad-<time>`` beside it, kept to look at rather than deleted; the new path.
    OSError when it cannot be renamed (FileNotFoundError: gone meanwhile)."""
    path = Path(path)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(100):
        aside = path.with_name(f"{path.name}.bad-{stamp}" + (f"-{n}" if n else ""))
        if not os.path.lexists(aside):  # a rename would replace a file set aside before
            os.rename(path, aside)
            return aside
    raise FileExistsError(errno.EEXIST, f"{path}: too many files set aside this second")
