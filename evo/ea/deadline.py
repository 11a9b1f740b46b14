"""The run's time limit inside a generation: a generation (or an island epoch) of a big
game can take minutes, so ``stop.seconds`` cuts it short instead of waiting for it.

The part under way is abandoned and the run keeps the generation before, so logbooks
and checkpoints hold only whole generations and stay reproducible. A :class:`TimeLimit`
belongs to a toolbox and is handed to what must stop on time: work done in this process
checks it between tasks (:meth:`TimeLimit.check`); work farmed out to processes is waited
for at most until it (:meth:`TimeLimit.left`), then dropped.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any


class GenerationCut(BaseException):
    """The time limit fell inside a generation, which was abandoned.

    A ``BaseException``, so that no library's ``except Exception`` swallows it."""


class TimeLimit:
    """When the work under way must stop: set around a generation's breeding
    (:meth:`within`), read by whatever waits for it or does it."""

    def __init__(self) -> None:
        self._until: float | None = None  # a time.monotonic() instant

    @contextlib.contextmanager
    def within(self, seconds: float | None) -> Iterator[None]:
        """Within the block, work stops with :class:`GenerationCut` once ``seconds`` have
        passed (None: no limit; an enclosing limit that ends earlier still holds)."""
        before = self._until
        if seconds is not None:
            until = time.monotonic() + max(seconds, 0.0)
            self._until = until if before is None else min(before, until)
        try:
            yield
        finally:
            self._until = before

    def left(self) -> float | None:
        """Seconds until the limit (at least 0), or None when there is none."""
        if self._until is None:
            return None
        return max(0.0, self._until - time.monotonic())

    def check(self) -> None:
        """Raises :class:`GenerationCut` when the limit has passed."""
        if self._until is not None and time.monotonic() >= self._until:
            raise GenerationCut

    def map(self, fn: Callable, items: Iterable) -> list[Any]:
        """``[fn(x) for x in items]`` in this process, checking the limit before each."""
        out = []
        for x in items:
            self.check()
            out.append(fn(x))
        return out
