"""The wheel of this checkout, built for a test: one build at a time on this machine
(setuptools builds in the checkout's ``build/`` folder, and two workers building at once
there break each other's wheel)."""

from __future__ import annotations

import fcntl
import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def build_wheel(wheels: Path) -> subprocess.CompletedProcess:
    """``pip wheel`` of the checkout into the folder ``wheels``, waiting for any other
    build of it (a lock in the temporary folder, held while building)."""
    lock = (
        Path(tempfile.gettempdir())
        / f"evo-wheel-{hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]}.lock"
    )
    with open(lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # waits: builds one after the other
        return subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", str(ROOT), "-w",
             str(wheels)],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
