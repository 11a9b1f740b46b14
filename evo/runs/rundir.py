"""Run directories (docs/DESIGN.md §6): ``runs/<name>-<timestamp>/`` and what a run writes there.

=================  ==================================================================
``config.yaml``    the resolved config (every default filled in): ``evo resume`` reads it
``logbook.jsonl``  one JSON object per generation: the DEAP logbook's records (appended
                   at every checkpoint and at the end)
``checkpoint.npz`` population, hall of fame, logbook, random state, elapsed time (data
                   only: :mod:`evo.runs.checkpoint`)
``best.json``      the best breaker so far (:mod:`evo.core.treeio` format)
``summary.json``   best total, average and worst case, generations, seconds, Knuth's
                   total…, and the status (running, interrupted, finished)
``lock``           the PID and host of the process writing the run (locked with flock;
                   removed as that process leaves the run)
=================  ==================================================================

Every file is written atomically (a temporary file renamed over the old one), and only by
the process that holds the run's lock; best.json and summary.json are brought up to date
at every checkpoint.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evo.config import Config, ConfigError, load_config
from evo.core.files import (
    FileWriteError,
    LockedError,
    atomic_write_json,
    atomic_write_text,
    exclusive,
    parse_json,
    read_text,
    remove_temporaries,
)
from evo.core.tree import Tree

CONFIG = "config.yaml"
LOGBOOK = "logbook.jsonl"
CHECKPOINT = "checkpoint.npz"
OLD_CHECKPOINT = "checkpoint.pkl"  # older evo's pickles: refused, never loaded
BEST = "best.json"
SUMMARY = "summary.json"
LOCK = "lock"
ISLANDS_LOGBOOK = "islands.jsonl"  # an island run's records of each island


class RunDirError(ValueError):
    """A run directory is missing or one of its files cannot be read."""


class RunLockedError(RunDirError):
    """Another process is writing the run directory."""


#: Run directories this process holds the lock of: path -> how many times over.
_HELD: dict[Path, int] = {}


@contextmanager
def lock_run(run_dir: str | os.PathLike) -> Iterator[Path]:
    """Hold the run's exclusive lock (``flock`` on its ``lock`` file, which names this
    process and host) while writing it; refuse at once with :class:`RunLockedError`,
    naming the holder, when another process holds it. Re-entrant within a process. On
    taking the lock, temporary files left by a killed writer are removed."""
    path = Path(run_dir).resolve()
    if path in _HELD:
        _HELD[path] += 1
        try:
            yield path
        finally:
            _HELD[path] -= 1
        return
    with ExitStack() as stack:
        try:
            stack.enter_context(exclusive(path / LOCK, what=str(run_dir)))
        except LockedError as e:
            kind = RunLockedError if e.errno == errno.EBUSY else RunDirError
            raise kind(str(e.strerror)) from None
        remove_temporaries(path)
        _HELD[path] = 1
        try:
            yield path
        finally:
            _HELD.pop(path, None)


def is_locked(run_dir: str | os.PathLike) -> bool:
    """Whether a process (another one, or this one) is writing the run now."""
    path = Path(run_dir).resolve()
    if path in _HELD:
        return True
    try:
        fd = os.open(path / LOCK, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # closing releases a lock taken here
    return False


def create_run_dir(config: Config, *, root: str | os.PathLike = "runs") -> Path:
    """Make ``root/<name>-<UTC timestamp>/`` (a suffix ``-2``, ``-3``… when taken) and write
    the resolved config into it."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    base = f"{config.name}-{stamp}"
    for k in range(1, 1000):
        path = root / (base if k == 1 else f"{base}-{k}")
        try:
            path.mkdir()
        except FileExistsError:
            continue
        write_config(path, config)
        return path
    raise RunDirError(f"cannot create a run directory under {root}")


def write_config(run_dir: Path, config: Config) -> None:
    header = "# The resolved config of this run (every default filled in); evo resume reads it.\n"
    atomic_write_text(Path(run_dir) / CONFIG, header + config.to_yaml())


def _lines(records: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def write_logbook(run_dir: Path, records: list[dict]) -> None:
    """The logbook as JSON lines, one record per generation (atomically replaced)."""
    atomic_write_text(Path(run_dir) / LOGBOOK, _lines(records))


def append_logbook(run_dir: Path, records: list[dict]) -> None:
    """Records appended to the logbook (long runs would rewrite megabytes each time).
    A crash while appending can leave a partial last line, which :func:`load_run`
    ignores and ``evo resume`` rewrites from the checkpoint."""
    if records:
        path = Path(run_dir) / LOGBOOK
        try:
            with open(path, "a", encoding="utf-8") as f:
                f.write(_lines(records))
                f.flush()
                os.fsync(f.fileno())
        except OSError as e:
            raise FileWriteError(e.errno, f"cannot write {path}: {e.strerror or e}") from e


def write_summary(run_dir: Path, summary: Mapping[str, Any]) -> None:
    atomic_write_json(Path(run_dir) / SUMMARY, summary)


def write_best(run_dir: Path, tree: Tree, **extra: Any) -> None:
    from evo.core.treeio import save_tree

    save_tree(tree, Path(run_dir) / BEST, **extra)


@dataclass
class Run:
    """What a run directory holds: the config, the logbook so far, the summary as of the
    last checkpoint (None before the first) and the best breaker (loaded on first use)."""

    path: Path
    config: Config
    logbook: list[dict]
    summary: dict | None
    cache: str | os.PathLike | None = None  # where the game's table and baselines are kept
    _best: Tree | None = field(default=None, repr=False)

    @property
    def best(self) -> Tree | None:
        if self._best is None and (self.path / BEST).exists():
            from evo.core.treeio import load_tree

            self._best = load_tree(self.path / BEST, cache=self.cache)
        return self._best

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    @property
    def status(self) -> str:
        """``finished``, ``running`` (a process is writing it now) or ``interrupted``."""
        if self.summary is not None and self.summary.get("status", "finished") == "finished":
            return "finished"
        return "running" if is_locked(self.path) else "interrupted"


def load_run(path: str | os.PathLike, *, cache: str | os.PathLike | None = None) -> Run:
    """Read a run directory (its best breaker's game made with ``cache``, see
    :func:`~evo.core.game.make_game`). Raises :class:`RunDirError` saying which file is
    wrong."""
    path = Path(path)
    if not path.is_dir():
        raise RunDirError(f"{path} is not a run directory (no such directory)")
    if not (path / CONFIG).exists():
        raise RunDirError(f"{path} is not a run directory: it has no {CONFIG}")
    try:
        config = load_config(path / CONFIG)
    except ConfigError as e:
        raise RunDirError(str(e)) from None
    logbook = []
    if (path / LOGBOOK).exists():
        lines = read_text(path / LOGBOOK, what="logbook", error=RunDirError).splitlines()
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except (json.JSONDecodeError, RecursionError):
                if i == len(lines) - 1:
                    break  # a line being appended when the run stopped
                raise RunDirError(f"{path / LOGBOOK}: line {i + 1} is not valid JSON") from None
            if not isinstance(record, dict):
                raise RunDirError(f"{path / LOGBOOK}: line {i + 1} is not a JSON object")
            logbook.append(record)
    summary = None
    if (path / SUMMARY).exists():
        text = read_text(path / SUMMARY, what="summary", error=RunDirError)
        summary = parse_json(text, where=str(path / SUMMARY), error=RunDirError)
        if not isinstance(summary, dict):
            raise RunDirError(f"{path / SUMMARY} is not a JSON object")
    return Run(path, config, logbook, summary, cache)
