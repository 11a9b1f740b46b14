"""Seals: a keyed digest (HMAC-SHA256) that tells what evo wrote on this machine from an
edited copy.

What a proof keeps on disk to go on later (a bound's certificate, the exact search's
results file, the cached baselines) is read back as proved. A plain checksum would not
stop an edit, since anyone can compute it again; a seal needs this machine's key, a
random secret in the cache folder (``seal.key``, readable by its owner only). What a
seal does not vouch for is proved again or not used. A key file that is not exactly 64
hex digits is never used (an empty key would let anyone seal): it is set aside and a new
key made, in one line on stderr, or refused in one line when it cannot be set aside.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import os
import re
import secrets
import stat
import sys
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from evo.core.files import cache_dir, lock_beside, open_regular, set_aside

#: The key file's name in the cache folder.
KEY_FILE = "seal.key"

_KEY_BYTES = 32


def key_path() -> Path:
    """Where this machine's key lies: ``<cache>/seal.key``."""
    return cache_dir() / KEY_FILE


class SealKeyError(Exception):
    """A key file that is not a key and cannot be set aside, or cannot be read: one line
    naming it. Not an OSError or ValueError, which the readers of sealed files would take
    as "not sealed" and go on silently."""


class _NotAKey(Exception):
    """What is at the key's path is not 64 hex digits: what it is instead."""


@lru_cache(maxsize=4)
def _key(path: Path) -> bytes:
    """The key kept at ``path``, made when there is none. A file there that is not exactly
    64 hex digits (empty, cut, not hex, a folder) is never used, since an empty or short
    key lets anyone seal: it is set aside (``seal.key.bad-<time>``) and a new key made,
    said in one line; :class:`SealKeyError` when it cannot be set aside."""
    for _ in range(10):
        try:
            return _read_key(path)
        except FileNotFoundError:
            pass
        except _NotAKey as e:
            _set_aside(path, why=str(e))
            continue
        made = _make_key(path)
        if made is not None:
            return made
    raise SealKeyError(f"the seal key {path} keeps changing (other processes?): try again")


def _read_key(path: Path) -> bytes:
    """The key in the file ``path``: FileNotFoundError when there is none,
    :class:`_NotAKey` when what is there is not 64 hex digits, :class:`SealKeyError` when
    it cannot be read."""
    try:
        if os.path.isdir(path):
            raise _NotAKey("a folder")
        if os.path.lexists(path) and not os.path.exists(path):
            raise _NotAKey("a link to nothing")
        if os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode):
            raise _NotAKey("not a regular file")
        with os.fdopen(open_regular(path), "rb") as f:
            data = f.read(4 * _KEY_BYTES + 1).strip()
    except FileNotFoundError:
        raise
    except OSError as e:
        raise SealKeyError(
            f"cannot read the seal key {path}: {e.strerror or e} (make it readable, or "
            "remove it: a new key is made)"
        ) from None
    if re.fullmatch(rb"[0-9a-fA-F]{%d}" % (2 * _KEY_BYTES), data):
        return bytes.fromhex(data.decode("ascii"))
    if not data:
        raise _NotAKey("empty")
    if re.fullmatch(rb"[0-9a-fA-F]+", data):
        raise _NotAKey(f"{len(data)} hex digits, not {2 * _KEY_BYTES}")
    raise _NotAKey(f"not hex, not {2 * _KEY_BYTES} hex digits")


def _set_aside(path: Path, *, why: str) -> None:
    """Rename the file at ``path``, which is not a key (``why``), to
    ``seal.key.bad-<time>`` and say so; under a lock beside it, and read again within it,
    so that two processes never set aside the key one of them has just made.
    :class:`SealKeyError` when it cannot."""
    try:
        fd = os.open(lock_beside(path), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # another process setting it aside is quick
            try:
                _read_key(path)
                return  # a key now: made by another process meanwhile
            except FileNotFoundError:
                return  # set aside by another process meanwhile
            except _NotAKey as e:
                why = str(e)
            aside = set_aside(path)
        finally:
            os.close(fd)  # and the lock with it
    except OSError as e:
        raise SealKeyError(
            f"the seal key {path} is {why}, and cannot be set aside "
            f"({e.strerror or e}): remove it (a new key is made)"
        ) from None
    _say(
        f"the seal key {path} was {why}, never used: set aside as {aside.name}, a new key "
        "made (what was sealed with the old one is proved again)"
    )


def _make_key(path: Path) -> bytes | None:
    """A new key written at ``path``, where there is none; None when another process made
    one first (to read back). When none can be kept (a read-only cache), this process's
    own, said: nothing it seals is then taken as proved by a later process."""
    fresh = secrets.token_bytes(_KEY_BYTES)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(fresh.hex() + "\n")
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)  # the first process to make the key wins; the others read it
        except FileExistsError:
            return None
        finally:
            os.unlink(tmp)
        return fresh
    except OSError as e:
        _say(
            f"cannot keep a seal key in {path.parent} ({e.strerror or e}): what this "
            "process seals holds for it alone"
        )
        return fresh


def _say(line: str) -> None:
    """A line on standard error, as evo's own (``evo: ...``)."""
    print(f"evo: {line}", file=sys.stderr, flush=True)


def machine_key() -> bytes:
    """This machine's key, made on first use."""
    return _key(key_path())


def canonical(payload: Any) -> bytes:
    """The bytes a seal covers: ``payload`` as canonical JSON (sorted keys, no spaces),
    as it reads back from a file: integer keys made text first (sorted as numbers, keys
    1, 2, 10 would be sealed in another order than the "1", "10", "2" read back)."""
    as_read = json.loads(json.dumps(payload, allow_nan=False))
    return json.dumps(as_read, sort_keys=True, separators=(",", ":"), allow_nan=False).encode()


def seal(payload: Any) -> str:
    """The seal of a JSON-able ``payload`` under this machine's key (hex)."""
    return _mark(machine_key(), payload)


def seals(payloads: Iterable[Any]) -> list[str]:
    """The seals of many payloads (:func:`seal` of each, the key looked up once): the
    lines of a file of many."""
    key = machine_key()
    return [_mark(key, p) for p in payloads]


def _mark(key: bytes, payload: Any) -> str:
    """The HMAC-SHA256 of ``payload``'s canonical bytes under ``key`` (hex)."""
    return hmac.new(key, canonical(payload), hashlib.sha256).hexdigest()


def is_sealed(payload: Any, mark: Any) -> bool:
    """Whether ``mark`` is ``payload``'s seal under this machine's key."""
    if not isinstance(mark, str):
        return False
    try:
        want = seal(payload)
    except (TypeError, ValueError):  # not JSON-able (a NaN, say): never sealed
        return False
    return hmac.compare_digest(want, mark)
