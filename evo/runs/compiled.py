"""evo's compiled kernels, compiled before a run's clock starts.

numba compiles each kernel the first time it is called with a kind of argument, and
keeps the machine code in its cache: about a minute on a fresh machine, then a fraction
of a second per process to load. A run that met the compilation inside its clock would
spend most of a short run compiling. :func:`ensure_compiled` runs every kernel once on
tiny games, with every kind of argument a run gives them (a feedback table or packed
codes, each pool, heuristic and search policy, the threaded paths), when this machine's
cache does not have them yet, and says so in one line. A marker beside numba's cache,
named by a digest of the kernels' sources and numba's version, tells that it was done.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from evo.core.game import Game
from evo.core.kinds import ExactGuesses, Pool
from evo.search.exact import Policy

#: About how long a fresh machine takes to compile the kernels (2 cores, 2026-11).
COMPILE_SECONDS = 60

_EVO = Path(__file__).resolve().parent.parent


def _kernel_sources() -> list[Path]:
    """The modules the compiled kernels are made of: those that import numba, and the
    core and search modules whose types they take (the look-ahead's ``Palette``)."""
    return sorted(
        p
        for p in _EVO.rglob("*.py")
        if "__pycache__" not in p.parts
        and (
            p.parent.name in ("core", "search")
            or "from numba import" in p.read_text(encoding="utf-8")
        )
    )


#: A kind of run, as the kernels see it: feedbacks from a table (``table``), from packed
#: codes (``packed``) or from a table and its transpose (``pair``: a feedback that is not
#: symmetric, a custom game's), and look-ahead trees in one call (small games) or node by
#: node (big ones).
Profile = tuple[str, bool]

#: The profiles of the Mastermind family: what ``make setup`` compiles (a custom game's
#: are compiled on its first run).
PROFILES: tuple[Profile, ...] = (
    ("table", False),
    ("table", True),
    ("packed", False),
    ("packed", True),
)


def profile(game: Game) -> Profile:
    """The kernels a run of ``game`` uses: (its source of feedbacks, it is built node by
    node)."""
    from evo.search.lookahead import WHOLE_TREE_CODES

    if not game.use_table:
        source = "packed"
    else:
        source = "table" if game.symmetric_feedback else "pair"
    return (source, game.num_codes > WHOLE_TREE_CODES)


def marker(kind: Profile) -> Path:
    """The file that says the kernels of a profile, of these sources and this numba, are
    compiled in this machine's cache (``$NUMBA_CACHE_DIR``, else beside evo's modules)."""
    import numba

    digest = hashlib.sha256(numba.__version__.encode())
    for path in _kernel_sources():
        digest.update(path.name.encode() + path.read_bytes())
    root = Path(os.environ.get("NUMBA_CACHE_DIR") or _EVO / "__pycache__")
    source, big = kind
    name = f"{source}-{'nodes' if big else 'whole'}"
    return root / f"evo-kernels-{digest.hexdigest()[:16]}-{name}.compiled"


def ensure_compiled(game: Game | None = None, say: Callable[[str], None] | None = None) -> float:
    """Compile the kernels a run of ``game`` uses (every kernel, without a game) unless
    the cache has them (``say`` is told, in one line before and one after); returns the
    seconds spent (0 when cached)."""
    kinds = PROFILES if game is None else (profile(game),)
    missing = [k for k in kinds if not marker(k).is_file()]
    if not missing:
        return 0.0
    if say is not None:
        about = COMPILE_SECONDS * len(missing)
        say(f"compiling evo's kernels, once per machine: about {about} s")
    start = time.perf_counter()
    for kind in missing:
        compile_kernels(kind)
    seconds = time.perf_counter() - start
    if say is not None:
        say(f"evo's kernels compiled in {seconds:.0f} s")
    return seconds


def compile_kernels(kind: Profile) -> float:
    """Run every kernel of a profile once on a tiny game (every kind of argument a run
    gives them), then write its marker; returns the seconds it took."""
    start = time.perf_counter()
    from evo.core.game import make_game

    source, big = kind
    game = _pair_game() if source == "pair" else make_game(3, 4, table=source == "table")
    _growth(game)
    with _every_path(big):
        _lookahead(game)
        _exact(game)
        _operators(game)
    if source == "packed":
        list(game._compiled_blocks(16))  # type: ignore[attr-defined]  # a big table's build
    _bounds(_pair_game() if source == "pair" else make_game(3, 3, table=source == "table"))
    path = marker(kind)
    with contextlib.suppress(OSError):  # a read-only cache: compiled again next time
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"compiled in {time.perf_counter() - start:.1f} s\n")
    return time.perf_counter() - start


def _pair_game() -> Game:
    """A tiny game whose feedback is not symmetric, with more guesses than secrets: the
    secrets are the words of 3 distinct letters of ``abcd``, the guesses every word of 3
    letters, and a letter answers 2 in place, 1 elsewhere in the secret, 0 else."""
    import itertools

    from evo.core.custom import custom_game

    codes = ["".join(p) for p in itertools.permutations("abcd", 3)]
    guesses = codes + ["".join(p) for p in itertools.product("abcd", repeat=3)]
    guesses = list(dict.fromkeys(guesses))

    def marks(guess: str, secret: str) -> str:
        return "".join(
            "2" if g == s else "1" if g in secret else "0" for g, s in zip(guess, secret)
        )

    return custom_game(codes, marks, guesses=guesses, name="evo-compile-pair")


@contextlib.contextmanager
def _every_path(big: bool) -> Iterator[None]:
    """Two threads, and with ``big`` thresholds at zero, so that tiny games take the paths
    of big ones (node by node, subtrees in one call, candidates scored on threads,
    symmetry classes compiled); without, look-ahead trees in one call."""
    from evo.core import engine
    from evo.search import lookahead, symmetry

    saved = (
        lookahead.WHOLE_TREE_CODES,
        lookahead.THREADED_WORK,
        symmetry._COMPILED_ROWS,
        engine.THREADS,
    )
    if big:
        lookahead.WHOLE_TREE_CODES, lookahead.THREADED_WORK = 0, 0
        symmetry._COMPILED_ROWS = 0
    else:
        lookahead.WHOLE_TREE_CODES = 10**9
    engine.set_threads(2)
    try:
        yield
    finally:
        (
            lookahead.WHOLE_TREE_CODES,
            lookahead.THREADED_WORK,
            symmetry._COMPILED_ROWS,
            engine.THREADS,
        ) = saved


#: The pools and policies every kernel is compiled for.
_POOLS: tuple[Pool, ...] = ("all", "consistent")
_POLICIES: tuple[Policy, ...] = ("symmetry", "path-independent")
_GUESSES: tuple[ExactGuesses, ...] = ("all", "consistent", "mixed")


def _growth(game: Game) -> None:
    from evo.core.population import random_population

    for pool in _POOLS:
        random_population(game, 2, seed=0, pool=pool)


def _lookahead(game: Game) -> None:
    from evo.core.kinds import HEURISTICS
    from evo.search.lookahead import lookahead_tree

    for heuristic in HEURISTICS:
        for pool in _POOLS:
            lookahead_tree(game, heuristic, pool=pool, engine="compiled")


def _exact(game: Game) -> None:
    from evo.baselines.optimal import optimal
    from evo.search.exact import UNBOUNDED, Solver, shared_solver
    from evo.search.lookahead import palette
    from evo.search.memo_kernel import grown, new_memo

    codes = game.all_codes().astype(np.int64)
    classes: tuple[tuple[Pool, int], ...] = (("all", 0), ("consistent", 0), ("consistent", 2))
    for policy in _POLICIES:
        for pool, impossible in classes:
            solver = shared_solver(game, pool=pool, policy=policy, impossible=impossible)
            solver.total(codes)
            solver.total(codes[: len(codes) // 2], depth=4)
        # The second objective's sets three guesses from the limit (its own kernel).
        Solver(game, policy=policy, fewest_last=True).total(codes[: len(codes) // 2], depth=4)
    optimal(game, time_limit=None)
    grown(new_memo(4))  # a memo outgrown: a big game's search
    group = palette(game, (), symmetries=True)
    for policy in _POLICIES:  # a big set's search spread over threads (tiny parts as tasks)
        for deadline in (None, time.monotonic() + 3600):
            solver = Solver(game, policy=policy, deadline=deadline)
            solver.spread(codes, UNBOUNDED, group, True, split=4, inline=2)
            solver.spread(codes, UNBOUNDED, solver._identity, False, split=4, inline=2)


def _operators(game: Game) -> None:
    from evo.core.growth import random_breaker
    from evo.ea.mutation import exhaustive_mutation, greedy_mutation

    tree = random_breaker(game, rng=np.random.default_rng(0))
    for keep_depth in (False, True):
        greedy_mutation(
            tree,
            rng=np.random.default_rng(0),
            exact_below=10,
            mixed_below=30,
            sweep=True,
            keep_depth=keep_depth,
        )
        for guesses in _GUESSES:
            exhaustive_mutation(
                tree,
                rng=np.random.default_rng(0),
                max_codes=40,
                guesses=guesses,
                sweep=True,
                keep_depth=keep_depth,
            )


def _bounds(game: Game) -> None:
    from evo.search.bound import lower_bound

    for depth in (0, 1):
        lower_bound(game, depth=depth, workers=1)
