"""The run's time limit inside a generation: a generation (or an island epoch) of a big
game can take minutes, so ``stop.seconds`` cuts it short instead of waiting for it.

The part under way is abandoned and the run keeps the generation before, so logbooks
and checkpoints hold only whole generations and stay reproducible. Work done in this
process checks the clock between tasks (:func:`check`); work farmed out to processes
is waited for at most until the deadline (:func:`seconds_left`), then dropped.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

_DEADLINE: list[float] = []  # time.monotonic() instants, innermost last


class GenerationCut(BaseException):
    """The time limit fell inside a generation, which was abandoned.

    A ``BaseException``, so that no library's ``except Exception`` swallows it."""


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Within the block, work stops with :class:`GenerationCut` once ``seconds`` have
    passed (None: no limit)."""
    if seconds is None:
        yield
        return
    _DEADLINE.append(time.monotonic() + max(seconds, 0.0))
    try:
        yield
    finally:
        _DEADLINE.pop()


def seconds_left() -> float | None:
    """Seconds until the innermost deadline (at least 0), or None when there is none."""
    if not _DEADLINE:
        return None
    return max(0.0, _DEADLINE[-1] - time.monotonic())


def check() -> None:
    """Raises :class:`GenerationCut` when the deadline has passed."""
    if _DEADLINE and time.monotonic() >= _DEADLINE[-1]:
        raise GenerationCut


def checked_map(fn: Callable, items: Iterable) -> list[Any]:
    """``[fn(x) for x in items]`` in this process, checking the deadline before each."""
    out = []
    for x in items:
        check()
        out.append(fn(x))
    return out
