"""NumPy archives (``.npz``: a zip of ``.npy`` arrays) read without trusting them.

Before any data of an array is read, its zip entry and its ``.npy`` header are checked:
the compression, the type (whole numbers, never Python objects: nothing is unpickled),
one dimension, at most as many items as the caller allows, and an entry exactly as long
as its header says. So an archive of a gigabyte of zeros, or a header claiming 10^13
items, is refused in one line without allocating what it claims; the data read is never
more than the limits allow.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Iterable
from types import TracebackType

import numpy as np

#: The most entries an archive may list: evo's hold six at most, and every entry of the
#: zip's directory becomes an object in memory when the archive is opened.
MAX_ENTRIES = 64

#: The longest ``.npy`` header read (NumPy's own limit).
MAX_HEADER = 10_000

#: Bytes read at a time into an array.
_CHUNK = 1 << 20

#: What reading a damaged zip or ``.npy`` entry can raise (the zip and zlib modules).
_DAMAGED = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    OSError,
    ValueError,
    KeyError,
    IndexError,
    OverflowError,
    NotImplementedError,
    RuntimeError,
)

CORRUPTED = "a corrupted or truncated archive"


class ArchiveError(ValueError):
    """An archive, or one of its arrays, is not what the reader accepts (the message says
    what; the caller names the file)."""


class Archive:
    """An ``.npz`` archive in memory, holding exactly the arrays ``names``; read them one
    by one with :meth:`array`. ``stored_only``: refuse compressed entries (an entry then
    holds no more bytes than the file). ``kind`` names the archive in errors."""

    def __init__(self, data: bytes, names: Iterable[str], *, kind: str, stored_only: bool = False):
        self.kind = kind
        self.stored_only = stored_only
        if data[:4] != b"PK\x03\x04" or data.count(b"PK\x01\x02") > MAX_ENTRIES:
            raise ArchiveError(CORRUPTED if data[:4] != b"PK\x03\x04" else self._differ())
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
            entries = [info.filename for info in self._zip.infolist()]
        except ArchiveError:
            raise
        except _DAMAGED:
            raise ArchiveError(CORRUPTED) from None
        if len(set(entries)) != len(entries) or sorted(entries) != sorted(
            f"{n}.npy" for n in names
        ):
            self._zip.close()
            raise ArchiveError(self._differ())

    def _differ(self) -> str:
        return f"not an {self.kind} (its arrays differ)"

    def __enter__(self) -> Archive:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._zip.close()

    def array(
        self, name: str, *, max_items: int, limit: str = "", kinds: str = "iu", itemsize: int = 8
    ) -> np.ndarray:
        """Array ``name``: one dimension, whole numbers of a kind in ``kinds`` (``i``
        signed, ``u`` unsigned) of at most ``itemsize`` bytes, at most ``max_items`` of
        them (``limit`` says why, in the error). Checked before its data is read."""
        info = self._zip.getinfo(f"{name}.npy")
        if info.flag_bits & 0x1 or info.compress_type not in (
            zipfile.ZIP_STORED,
            zipfile.ZIP_DEFLATED,
        ):
            raise ArchiveError(f"{CORRUPTED}: array {name} is encrypted or of an unknown kind")
        if self.stored_only and info.compress_type != zipfile.ZIP_STORED:
            raise ArchiveError(f"array {name} is compressed, which an {self.kind} never is")
        if info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size:
            raise ArchiveError(CORRUPTED)
        why = f": {limit}" if limit else f" (at most {max_items:,} items)"
        if info.file_size > MAX_HEADER + 16 + max_items * itemsize:
            raise ArchiveError(f"array {name} is too big ({info.file_size:,} bytes){why}")
        try:
            with self._zip.open(info) as f:
                dtype, count = self._header(f, name)
                if dtype.hasobject:
                    raise ArchiveError(
                        f"{CORRUPTED}: array {name} holds Python objects, which are never read"
                    )
                if dtype.kind not in kinds or dtype.itemsize > itemsize:
                    raise ArchiveError(f"array {name} is of type {dtype}, not whole numbers")
                if count > max_items:
                    raise ArchiveError(f"array {name} holds {count:,} items{why}")
                if info.file_size != f.tell() + count * dtype.itemsize:
                    raise ArchiveError(f"{CORRUPTED}: array {name} is not as long as it says")
                out = np.empty(count, dtype=dtype)
                raw = out.view(np.uint8)
                done = 0
                while done < raw.size:  # in chunks: no second copy of the whole array
                    chunk = f.read(min(raw.size - done, _CHUNK))
                    if not chunk:
                        raise ArchiveError(f"{CORRUPTED}: array {name} is cut short")
                    raw[done : done + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
                    done += len(chunk)
                if f.read(1):  # the end, where the zip module checks the entry's CRC
                    raise ArchiveError(f"{CORRUPTED}: array {name} is longer than it says")
        except ArchiveError:
            raise
        except _DAMAGED:
            raise ArchiveError(CORRUPTED) from None
        return out

    @staticmethod
    def _header(f, name: str) -> tuple[np.dtype, int]:
        """The type and length of a one-dimensional ``.npy`` entry, from its header."""
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(f, max_header_size=MAX_HEADER)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(f, max_header_size=MAX_HEADER)
        else:
            raise ArchiveError(f"{CORRUPTED}: array {name} is of .npy version {version}")
        if len(shape) != 1 or shape[0] < 0:
            raise ArchiveError(f"array {name} has shape {shape}, not one dimension")
        return dtype, int(shape[0])
