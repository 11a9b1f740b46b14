"""Running baselines: from the cache, or built (:mod:`evo.baselines.builders`), timed and
cached; refused before any work when estimated beyond the time limit.

>>> game = make_game(4, 6)
>>> run(game, "knuth").tree.total     # 5801, worst case 5 (cached on disk)
"""

from __future__ import annotations

import time
from collections.abc import Callable

from evo.baselines import cache
from evo.baselines.builders import build, estimate_seconds, kernels_needed, reads_table
from evo.baselines.limits import (
    DEFAULT_TIME_LIMIT,
    BaselineRefused,
    check_time_limit,
    refuse_beyond,
)
from evo.baselines.optimal import NoneBelow, Where
from evo.baselines.records import Baseline, BaselineResult, Refused
from evo.baselines.registry import parse_name, seeded
from evo.baselines.simple import estimate_rc
from evo.core.game import Game


def run(
    game: Game,
    name: str,
    *,
    seed: int = 0,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    rc_seeds: int = 100,
    use_cache: bool = True,
    progress: Callable[[int, int], None] | None = None,
    where: Where | None = None,
) -> Baseline:
    """A baseline from the cache, or built (and cached). RC forms also carry the estimate
    of their expected average over ``rc_seeds`` seeds (0: none). Raises
    :class:`~evo.baselines.limits.BaselineRefused` for a baseline estimated beyond
    ``time_limit`` seconds (before any work), or an optimum whose search reaches it.
    ``progress`` and ``where``: see :func:`~evo.baselines.builders.build`."""
    name = parse_name(game, name)
    time_limit = check_time_limit(time_limit)
    key = cache.cache_key(game, name, seed=seed)
    found = cache.cached(game, name, seed=seed) if use_cache else None
    if found is not None:
        result = found.result
        if seeded(name) and rc_seeds >= 2 and result.get("estimate", {}).get("seeds") != rc_seeds:
            result["estimate"] = _estimate(game, name, rc_seeds, seed)
            cache.store(
                game,
                key,
                found.tree,
                {**result, "cached": False},
                name=name,
                seed=cache.cache_seed(name, seed),
            )
        return found
    refuse_beyond(game, name, estimate_seconds(game, name), time_limit)  # before any work
    if reads_table(game, [name]):  # a one-step rule may compute its feedbacks instead
        game.prepare()  # the one-time table is not part of a strategy's time
    need = kernels_needed(game, name)
    if need is not None:  # nor compiling its kernels
        from evo.search.kernels import ensure_compiled, tell

        ensure_compiled(need, say=(where.report if where is not None else None) or tell)
    t0 = time.perf_counter()
    tree = build(game, name, seed=seed, time_limit=time_limit, progress=progress, where=where)
    seconds = time.perf_counter() - t0
    result = BaselineResult(
        name=name,
        **tree.summary(),
        seconds=round(seconds, 4),
        first_guess=game.format_code(int(tree.guess[0])),
        cached=False,
    )
    if seeded(name):
        result["seed"] = seed
        if rc_seeds >= 2:
            result["estimate"] = _estimate(game, name, rc_seeds, seed)
    if use_cache:
        cache.store(game, key, tree, dict(result), name=name, seed=cache.cache_seed(name, seed))
    return Baseline(name, tree, result)


def _estimate(game: Game, name: str, seeds: int, seed: int) -> dict:
    """The expected average of a seeded form over ``seeds`` seeds (:func:`estimate_rc`)."""
    opening = [game.parse_code(c) for c in name.split("+")[:-1]]
    return estimate_rc(game, seeds=seeds, seed=seed, opening=opening)


def run_all(
    game: Game,
    names: list[str],
    *,
    seed: int = 0,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    rc_seeds: int = 100,
    use_cache: bool = True,
    progress: Callable[[int, int], None] | None = None,
    where: Where | None = None,
) -> list[Baseline | Refused]:
    """:func:`run` for each name; a refused optimum is a :class:`Refused` record (also
    one whose upper bound proved to be a lower bound: :class:`NoneBelow`)."""
    out: list[Baseline | Refused] = []
    for name in names:
        try:
            out.append(
                run(
                    game,
                    name,
                    seed=seed,
                    time_limit=time_limit,
                    rc_seeds=rc_seeds,
                    use_cache=use_cache,
                    progress=progress,
                    where=where,
                )
            )
        except BaselineRefused as e:
            lower = e.lower if isinstance(e, NoneBelow) else None
            out.append(Refused(e.name, e.reason, e.estimate_seconds, lower))
    return out


def knuth_total(game: Game) -> int:
    """Knuth's total for the game (cached on disk per game): the yardstick of every run."""
    return int(run(game, "knuth", rc_seeds=0).tree.total)
