"""Which engine computes a tree: the compiled kernels (numba) or NumPy, and on how many
threads one big job runs.

Both give the same trees, draw for draw. The compiled kernels are several times faster,
but a fresh process pays about half a second to import numba and load them: more than
the whole computation of a small game's one-step tree. ``"auto"`` therefore keeps small
games on NumPy until numba is loaded anyway, and big games always compiled.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Literal, get_args

if TYPE_CHECKING:
    from evo.core.game import Game

#: ``auto``: by the game's size and whether numba is already loaded; or either engine.
Engine = Literal["auto", "compiled", "numpy"]
ENGINES: tuple[str, ...] = get_args(Engine)

#: ``auto`` compiles for games of more codes than this (from (4,8) on), or of more
#: (guess, secret) pairs than its square (Wordle's 12,972 guesses by 2,315 secrets); below,
#: a one-step tree in NumPy (0.03 s on (4,6), 0.1 s on (4,7)) costs less than loading numba.
COMPILED_ABOVE = 3000

#: The process's engine, for calls that do not name one (tests and benchmarks set it).
DEFAULT: Engine = "auto"


def compiled(game: Game, engine: Engine | None = None, *, small: bool = True) -> bool:
    """Whether to compute on ``game`` with the compiled kernels (they read its feedback
    table, or compute feedbacks where no table fits): ``auto`` on a game of at most
    :data:`COMPILED_ABOVE` codes (its square of guess and secret pairs) only when numba
    is already loaded (``small=False``:
    always, for work that repays the load, as growing a population)."""
    engine = DEFAULT if engine is None else engine
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if engine == "numpy":
        return False
    if engine == "compiled" or not small:
        return True
    big = game.num_codes * game.num_guesses > COMPILED_ABOVE**2
    return big or "numba" in sys.modules


#: The most processes or threads evo is asked for (a config's ``workers``, ``--workers``,
#: ``--threads``, ``$EVO_THREADS``, ``$NUMBA_NUM_THREADS``): a typo's huge count is refused
#: rather than started (each process takes tens of MB; a thread count goes to numba).
MAX_WORKERS = 256

#: Threads one big job's kernels may use (``None``: ``$EVO_THREADS``, else every core).
#: Evolution's worker processes share the cores out, so that processes and threads never
#: oversubscribe them.
THREADS: int | None = None


def threads() -> int:
    """The threads a big job's kernels use now: :data:`THREADS`, ``$EVO_THREADS``, or
    every core; ValueError when ``$EVO_THREADS`` is set to anything but a count from 1 to
    :data:`MAX_WORKERS`."""
    from evo.core.numbers import env_count

    return THREADS or env_count("EVO_THREADS", os.environ, high=MAX_WORKERS) or os.cpu_count() or 1


def set_threads(count: int | None) -> None:
    """Let one big job's kernels use ``count`` threads (``None``: every core; at most
    :data:`MAX_WORKERS`)."""
    from evo.core.numbers import whole

    global THREADS
    if count is not None:
        count = whole(count, what="threads", low=1, high=MAX_WORKERS)
    THREADS = count


def numba_threads() -> int:
    """Tells numba's parallel kernels to use :func:`threads` threads (at most numba's own
    limit, ``$NUMBA_NUM_THREADS``), before a call to one; returns how many. ValueError
    when ``$NUMBA_NUM_THREADS`` gave numba no thread."""
    import numba

    most = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    if most < 1:
        raise ValueError(f"NUMBA_NUM_THREADS must be a whole number from 1 up, not {most}")
    count = min(threads(), most)
    numba.set_num_threads(count)
    return count
