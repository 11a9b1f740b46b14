"""Feedback tables kept as files and memory-mapped, so that every process of the machine
shares one copy (a big game's table is built once per machine, not once per process).

A file is a 4096-byte header (magic, format version, the game's name, the table's size,
the CRC-32 of the table) followed by the ``(M, M)`` uint8 table. A file is used only when
it is a regular file, its size, header and CRC all agree, and a sample of its entries
agrees with the scoring function (a right CRC over forged entries is easy to make);
anything else is rebuilt. Files are written to a temporary file named with the writer's
PID, then renamed; a lock makes a second process wait for the first one's build instead
of building too. A build stopped by SIGINT, SIGTERM or SIGHUP removes its temporary file;
the next build removes those of writers that died otherwise (``kill -9``).
"""

from __future__ import annotations

import contextlib
import glob
import mmap
import os
import signal
import struct
import tempfile
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from evo.core.files import open_regular

MAGIC = b"EVOTABLE"
VERSION = 1
HEADER_BYTES = 4096
_HEADER = struct.Struct("<8sIQI64s")  # magic, version, rows, crc32, game name
_CHUNK = 64 * 1024**2

#: Entries of a mapped table compared with the scoring function, at random places, besides
#: the four corners (a table of at most this many entries is compared whole): about 1 ms.
SPOT_CHECKS = 4096

#: Signals that would end the process during a build: its temporary file is removed first.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

#: The feedbacks of paired arrays of guesses and secrets, computed without the table.
Check = Callable[[np.ndarray, np.ndarray], np.ndarray]


def mapped_table(
    path: Path,
    *,
    name: str,
    rows: int,
    blocks: Callable[[], Iterator[np.ndarray]],
    check: Check,
) -> np.ndarray:
    """The ``(rows, rows)`` table of game ``name`` mapped read-only from ``path``; when the
    file is missing or invalid (``check(guesses, secrets)`` disagrees with a sample of its
    entries), ``blocks()`` (row blocks in order) is written there first. Raises OSError
    when the file can be neither read nor written."""
    table = _map_valid(path, name, rows, check)
    if table is not None:
        return table
    with _locked(path):
        table = _map_valid(path, name, rows, check)  # another process may have built it
        if table is None:
            _remove_dead_temporaries(path)
            _write(path, name, rows, blocks())
            table = _map_valid(path, name, rows, check)
    if table is None:
        raise OSError(f"the table written to {path} does not read back")
    return table


def _header(name: str, rows: int, crc: int) -> bytes:
    return _HEADER.pack(MAGIC, VERSION, rows, crc, name.encode("ascii")[:64])


def _map_valid(path: Path, name: str, rows: int, check: Check) -> np.ndarray | None:
    """The mapped table when the file is a regular file whose size, header and CRC are
    right and whose sampled entries agree with ``check``, else None."""
    try:
        with os.fdopen(open_regular(path), "rb") as f:
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
    computed = 0
    for lo in range(HEADER_BYTES, len(mm), _CHUNK):
        computed = zlib.crc32(view[lo : lo + _CHUNK], computed)
    view.release()
    if computed != crc:
        mm.close()
        return None
    table = np.frombuffer(mm, dtype=np.uint8, count=rows * rows, offset=HEADER_BYTES)
    if not _agrees(table.reshape(rows, rows), check):
        del table  # releases the buffer, so that the map can be closed
        mm.close()
        return None
    return table.reshape(rows, rows)


def _agrees(table: np.ndarray, check: Check) -> bool:
    """Whether ``check`` gives the table's entries at :data:`SPOT_CHECKS` random places
    (random, so that a forger cannot know which) and at its four corners."""
    m = len(table)
    if m * m <= SPOT_CHECKS:
        guesses, secrets = np.divmod(np.arange(m * m), m)
    else:
        rng = np.random.default_rng()
        corners = np.array([0, 0, m - 1, m - 1])
        guesses = np.concatenate([rng.integers(0, m, SPOT_CHECKS), corners])
        secrets = np.concatenate([rng.integers(0, m, SPOT_CHECKS), corners[[0, 2, 1, 3]]])
    return bool(np.array_equal(table[guesses, secrets], check(guesses, secrets)))


def _write(path: Path, name: str, rows: int, blocks: Iterator[np.ndarray]) -> None:
    """Write the header and the blocks to a temporary file named with this process's PID,
    then rename it to ``path``; a stop signal removes the temporary file first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp: str | None = None
    with _stop_signals_raise():
        try:
            fd, tmp = tempfile.mkstemp(
                prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent
            )
            mask = os.umask(0)
            os.umask(mask)
            os.fchmod(fd, 0o666 & ~mask)  # mkstemp makes 0600: the file is for every user
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
            if tmp is not None and os.path.exists(tmp):
                os.unlink(tmp)
            raise


class _Stopped(BaseException):
    """A stop signal came during a build (raised so that the build cleans up first)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextmanager
def _stop_signals_raise() -> Iterator[None]:
    """While building, a stop signal whose action is to end the process (the default
    action) raises :class:`_Stopped` instead, so that the build removes its temporary file;
    the signal is then sent again with its default action, and the process ends as it
    would have. Signals the process handles or ignores are left alone."""
    if threading.current_thread() is not threading.main_thread():
        yield  # handlers can only be set in the main thread
        return

    def stop(signum: int, frame: object) -> None:
        raise _Stopped(signum)

    caught = [s for s in STOP_SIGNALS if signal.getsignal(s) == signal.SIG_DFL]
    for s in caught:
        signal.signal(s, stop)
    try:
        yield
    except _Stopped as e:
        for s in caught:
            signal.signal(s, signal.SIG_DFL)
        os.kill(os.getpid(), e.signum)  # ends the process here
        raise
    finally:
        for s in caught:
            signal.signal(s, signal.SIG_DFL)


def _remove_dead_temporaries(path: Path) -> None:
    """Remove the temporary files beside ``path`` left by builds that died (call it under
    the build lock): those named with the PID of a process that no longer runs, and those
    of older evo, named without one (they too were written only under the lock)."""
    prefix = f".{path.name}."
    for tmp in path.parent.glob(glob.escape(prefix) + "*.tmp"):
        pid, _, rest = tmp.name[len(prefix) : -len(".tmp")].partition(".")
        if rest and pid.isdigit() and _running(int(pid)):
            continue
        with contextlib.suppress(OSError):
            tmp.unlink()


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine (another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it runs, as another user
        return True
    return True


@contextmanager
def _locked(path: Path):
    """Hold an exclusive lock beside ``path`` (where ``fcntl`` exists)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Linux or macOS
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    # Without waiting on open: a FIFO put in the lock's place fails (ENXIO) instead.
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK
    fd = os.open(path.with_name(path.name + ".lock"), flags, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
