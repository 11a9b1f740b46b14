"""The C++ peers users compare evo with, built from the team's shared sources, and timed runs.

The peers are yardsticks only: their sources stay outside the repository (``EVO_PEERS_SRC``,
default ``../shared/peers`` beside the checkout) and are built once per machine into
``PEERS`` (default ``$TMPDIR/peers-bin``) by their own ``build.sh``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = Path(os.environ.get("EVO_PEERS_SRC", HERE.parent.parent / "shared" / "peers"))


def python_json(script: str, *args: str) -> dict:
    """Run ``script`` in a fresh Python process of this environment, from the checkout,
    with ``args``; the JSON object of its last output line (how evo's timed runs report)."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=HERE.parent,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


class PeersMissing(RuntimeError):
    """The peers' sources are not on this machine, or they did not build."""


def peers_dir() -> Path:
    """The directory of built peer programs, building them first when needed."""
    script = SOURCES / "build.sh"
    if not script.is_file():
        raise PeersMissing(f"no peer sources at {SOURCES} (set EVO_PEERS_SRC)")
    done = subprocess.run(["bash", str(script)], capture_output=True, text=True)
    if done.returncode != 0:
        raise PeersMissing(f"{script} failed: {done.stderr.strip()[-300:]}")
    return Path(done.stdout.strip().splitlines()[-1])


@dataclass(frozen=True)
class PeerRun:
    stdout: str
    seconds: float  # wall time of the whole process


def run_peer(name: str, *args: str, cwd: Path | None = None, timeout: float = 900) -> PeerRun:
    """Run the peer program ``name`` with ``args``; its output and whole-process wall time."""
    binary = peers_dir() / name
    if not binary.exists():
        raise PeersMissing(f"peer {name} was not built (see {SOURCES / 'build.sh'})")
    start = time.perf_counter()
    done = subprocess.run(
        [str(binary), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{name} {' '.join(args)} failed: {done.stderr.strip()[-300:]}")
    return PeerRun(done.stdout, seconds)


def alternate(
    evo: Callable[[], float], peer: Callable[[], float], repeats: int, *, warm_up: bool = False
) -> tuple[list[float], list[float]]:
    """Seconds of ``evo`` and ``peer``, alternated ``repeats`` times each, so that a change
    of the machine's load hits both alike (``warm_up``: one untimed run of each first)."""
    if warm_up:
        evo(), peer()
    a, b = [], []
    for _ in range(repeats):
        a.append(evo())
        b.append(peer())
    return a, b
