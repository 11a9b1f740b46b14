"""Seals: a keyed digest (HMAC-SHA256) that tells what evo wrote on this machine from an
edited copy.

What a proof keeps on disk to go on later (a bound's certificate, the exact search's
results file, the cached baselines) is read back as proved. A plain checksum would not
stop an edit, since anyone can compute it again; a seal needs this machine's key, a
random secret in the cache folder (``seal.key``, readable by its owner only). What a
seal does not vouch for is proved again or not used.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from evo.core.files import cache_dir

#: The key file's name in the cache folder.
KEY_FILE = "seal.key"

_KEY_BYTES = 32


def key_path() -> Path:
    """Where this machine's key lies: ``<cache>/seal.key``."""
    return cache_dir() / KEY_FILE


@lru_cache(maxsize=4)
def _key(path: Path) -> bytes:
    try:
        text = path.read_text(encoding="ascii").strip()
        if len(text) == 2 * _KEY_BYTES:
            return bytes.fromhex(text)
    except (OSError, ValueError):
        pass
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
            pass
        finally:
            os.unlink(tmp)
        text = path.read_text(encoding="ascii").strip()
        return bytes.fromhex(text)
    except (OSError, ValueError):
        # No key can be kept (a read-only or broken cache): this process's own key, so
        # that nothing it writes is taken as proved by a later process.
        return fresh


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
