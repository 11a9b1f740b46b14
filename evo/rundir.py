"""Run directories (docs/DESIGN.md §6): ``runs/<name>-<timestamp>/`` and what a run writes there.

=================  ==================================================================
``config.yaml``    the resolved config (every default filled in): ``evo resume`` reads it
``logbook.jsonl``  one JSON object per generation: the DEAP logbook's records (appended
                   at every checkpoint and at the end)
``checkpoint.pkl`` population, hall of fame, logbook, random state, elapsed time
``best.json``      the best breaker (:mod:`evo.treeio` format)
``summary.json``   best total, average and worst case, generations, seconds, Knuth's total…
=================  ==================================================================

Every file is written atomically (a temporary file renamed over the old one).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evo.config import Config, ConfigError, load_config
from evo.files import atomic_write_json, atomic_write_text
from evo.tree import Tree

CONFIG = "config.yaml"
LOGBOOK = "logbook.jsonl"
CHECKPOINT = "checkpoint.pkl"
BEST = "best.json"
SUMMARY = "summary.json"


class RunDirError(ValueError):
    """A run directory is missing or one of its files cannot be read."""


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
        with open(Path(run_dir) / LOGBOOK, "a", encoding="utf-8") as f:
            f.write(_lines(records))
            f.flush()
            os.fsync(f.fileno())


def write_summary(run_dir: Path, summary: Mapping[str, Any]) -> None:
    atomic_write_json(Path(run_dir) / SUMMARY, summary)


def write_best(run_dir: Path, tree: Tree, **extra: Any) -> None:
    from evo.treeio import save_tree

    save_tree(tree, Path(run_dir) / BEST, **extra)


@dataclass
class Run:
    """What a run directory holds: the config, the logbook so far, the summary (None while
    the run has not finished) and the best breaker (loaded on first use)."""

    path: Path
    config: Config
    logbook: list[dict]
    summary: dict | None
    _best: Tree | None = field(default=None, repr=False)

    @property
    def best(self) -> Tree | None:
        if self._best is None and (self.path / BEST).exists():
            from evo.treeio import load_tree

            self._best = load_tree(self.path / BEST)
        return self._best

    @property
    def finished(self) -> bool:
        return self.summary is not None


def load_run(path: str | os.PathLike) -> Run:
    """Read a run directory. Raises :class:`RunDirError` saying which file is wrong."""
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
        lines = (path / LOGBOOK).read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if not line.strip():
                continue
            try:
                logbook.append(json.loads(line))
            except json.JSONDecodeError:
                if i == len(lines) - 1:
                    break  # a line being appended when the run stopped
                raise RunDirError(f"{path / LOGBOOK}: line {i + 1} is not valid JSON") from None
    summary = None
    if (path / SUMMARY).exists():
        try:
            summary = json.loads((path / SUMMARY).read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            raise RunDirError(f"{path / SUMMARY} is not valid JSON") from None
    return Run(path, config, logbook, summary)
