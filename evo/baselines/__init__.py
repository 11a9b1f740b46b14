"""Exhaustive baselines (DESIGN §5): classic strategies built as breaker trees, so that
fitness, rendering and comparison treat them like evolved ones.

Names: ``knuth``, ``irving``, ``kooi``, ``entropy`` and their ``-consistent`` forms;
``lc``, ``rc`` (seeded); openings such as ``5463+lc`` or ``1123+2245+rc``;
``least-frequent`` and ``separating`` (human players); ``optimal``.

>>> game = make_game(4, 6)
>>> tree = baseline_tree(game, "knuth")      # a Tree: 5801 in total, worst case 5 (cached)
>>> baseline_result(game, "knuth")["total"]  # 5801
>>> build(game, "irving")                    # no cache
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from evo.baselines import cache
from evo.baselines.build import Node, Player, build_tree
from evo.baselines.human import least_frequent, separating
from evo.baselines.lookahead import SCORES, lookahead
from evo.baselines.optimal import (
    DEFAULT_TIME_LIMIT,
    KNOWN_OPTIMA,
    OPTIMA_SOURCES,
    OptimalRefused,
    optimal,
)
from evo.baselines.simple import (
    estimate_rc,
    lowest_consistent,
    random_consistent,
    with_opening,
)
from evo.game import Game
from evo.tree import Tree

__all__ = [
    "BASELINE_NAMES",
    "DEFAULT_TIME_LIMIT",
    "HEURISTICS",
    "HUMAN",
    "KNOWN_OPTIMA",
    "OPTIMA_SOURCES",
    "NAMES",
    "Baseline",
    "Node",
    "OptimalRefused",
    "Player",
    "baseline_result",
    "baseline_tree",
    "build",
    "build_tree",
    "cache_key",
    "cached",
    "default_names",
    "estimate_rc",
    "known_optimum",
    "lookahead",
    "lowest_consistent",
    "optimal",
    "parse_name",
    "parse_names",
    "random_consistent",
    "run",
    "run_all",
    "with_opening",
]

HEURISTICS: tuple[str, ...] = tuple(f"{s}{c}" for s in SCORES for c in ("", "-consistent"))
HUMAN: tuple[str, ...] = ("least-frequent", "separating")
NAMES: tuple[str, ...] = HEURISTICS + ("lc", "rc") + HUMAN + ("optimal",)
BASELINE_NAMES = NAMES  # the name the other modules use
_FOLLOWERS = ("lc", "rc")


def default_names(game: Game) -> list[str]:
    """What ``evo baselines`` runs without ``--only``: the one-step strategies, LC, RC,
    the human players for Bulls and Cows, and the optimum."""
    names = list(HEURISTICS) + ["lc", "rc"]
    if game.variant == "bulls-cows":
        names += list(HUMAN)
    return names + ["optimal"]


def parse_name(game: Game, name: str) -> str:
    """The canonical form of a baseline name (openings with codes as printed)."""
    text = name.strip().lower()
    if text in NAMES:
        return text
    if "+" in text:
        *codes, then = text.split("+")
        if then not in _FOLLOWERS:
            raise ValueError(f"opening {name!r} should end with +lc or +rc")
        try:
            guesses = [game.parse_code(c) for c in codes]
        except ValueError as e:
            raise ValueError(f"opening {name!r}: {e}") from None
        if len(set(guesses)) != len(guesses):
            raise ValueError(f"opening {name!r} repeats a guess")
        return "+".join([game.format_code(g) for g in guesses] + [then])
    raise ValueError(
        f"unknown baseline {name!r}; choose from {', '.join(NAMES)}, or an opening such as "
        f"{game.format_code(game.num_codes // 3)}+lc"
    )


def parse_names(game: Game, text: str) -> list[str]:
    """Comma-separated names, canonical, without duplicates, in the order given."""
    out: list[str] = []
    for part in text.split(","):
        if part.strip():
            name = parse_name(game, part)
            if name not in out:
                out.append(name)
    if not out:
        raise ValueError("no baseline named")
    return out


def _seeded(name: str) -> bool:
    return name == "rc" or name.endswith("+rc")


def build(
    game: Game, name: str, seed: int = 0, time_limit: float | None = DEFAULT_TIME_LIMIT
) -> Tree:
    """The tree of baseline ``name`` (no cache). ``seed``: of RC forms; ``time_limit``:
    seconds the optimum may take (:class:`OptimalRefused` beyond)."""
    name = parse_name(game, name)
    if name in HEURISTICS:
        score, _, rest = name.partition("-")
        return lookahead(game, score, consistent=rest == "consistent")
    if name == "lc":
        return lowest_consistent(game)
    if name == "rc":
        return random_consistent(game, seed)
    if name == "least-frequent":
        return least_frequent(game)
    if name == "separating":
        return separating(game)
    if name == "optimal":
        return optimal(game, time_limit)
    *codes, then = name.split("+")
    return with_opening(game, [game.parse_code(c) for c in codes], then, seed)


@dataclass
class Baseline:
    """A baseline's tree and its result: ``name``, ``total``, ``average``, ``worst``,
    ``histogram`` (guesses: codes), ``seconds`` (of the original computation),
    ``first_guess``, ``nodes``, ``cached``; RC forms also ``seed`` and ``estimate``."""

    name: str
    tree: Tree
    result: dict


def known_optimum(game: Game) -> tuple[int, str] | None:
    """The best-known optimal total of the game and its source, when known."""
    total = KNOWN_OPTIMA.get(game.key)
    return None if total is None else (total, OPTIMA_SOURCES[game.key])


def cache_key(game: Game, name: str, seed: int = 0) -> str:
    """The cache file name of a baseline: its name, with ``-seed`` for RC forms."""
    name = parse_name(game, name)
    return f"{name}-{seed}" if _seeded(name) else name


def cached(game: Game, name: str, seed: int = 0) -> Baseline | None:
    """A baseline from the cache only (None when it was never computed)."""
    hit = cache.load(game, cache_key(game, name, seed))
    if hit is None:
        return None
    tree, result = hit
    result["histogram"] = {int(k): int(v) for k, v in result["histogram"].items()}
    result["cached"] = True
    return Baseline(parse_name(game, name), tree, result)


def run(
    game: Game,
    name: str,
    seed: int = 0,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    rc_seeds: int = 100,
    use_cache: bool = True,
) -> Baseline:
    """A baseline from the cache, or built (and cached). RC forms also carry the estimate
    of their expected average over ``rc_seeds`` seeds (0: none)."""
    name = parse_name(game, name)
    key = cache_key(game, name, seed)
    found = cached(game, name, seed) if use_cache else None
    if found is not None:
        result = found.result
        if _seeded(name) and rc_seeds >= 2 and result.get("estimate", {}).get("seeds") != rc_seeds:
            result["estimate"] = _estimate(game, name, rc_seeds, seed)
            cache.store(game, key, found.tree, {**result, "cached": False})
        return found
    game.prepare()  # the one-time table is not part of a strategy's time
    t0 = time.perf_counter()
    tree = build(game, name, seed, time_limit)
    seconds = time.perf_counter() - t0
    result = {
        "name": name,
        **tree.summary(),
        "seconds": round(seconds, 4),
        "first_guess": game.format_code(int(tree.guess[0])),
        "cached": False,
    }
    if _seeded(name):
        result["seed"] = seed
        if rc_seeds >= 2:
            result["estimate"] = _estimate(game, name, rc_seeds, seed)
    if use_cache:
        cache.store(game, key, tree, result)
    return Baseline(name, tree, result)


def baseline_tree(
    game: Game, name: str, seed: int | None = None, time_limit: float | None = None
) -> Tree:
    """The tree of baseline ``name``, from the cache or built and cached. ``seed`` (RC
    forms) defaults to 0; ``time_limit`` (the optimum) to :data:`DEFAULT_TIME_LIMIT`."""
    limit = DEFAULT_TIME_LIMIT if time_limit is None else time_limit
    return run(game, name, seed=seed or 0, time_limit=limit, rc_seeds=0).tree


def baseline_result(
    game: Game, name: str, seed: int | None = None, time_limit: float | None = None
) -> dict:
    """The result dict of baseline ``name`` (``name, total, average, worst, histogram,
    seconds`` and more, see :class:`Baseline`), from the cache or computed and cached."""
    limit = DEFAULT_TIME_LIMIT if time_limit is None else time_limit
    return run(game, name, seed=seed or 0, time_limit=limit, rc_seeds=0).result


def _estimate(game: Game, name: str, seeds: int, seed: int) -> dict:
    opening = [game.parse_code(c) for c in name.split("+")[:-1]]
    return estimate_rc(game, seeds, seed, opening)


def run_all(game: Game, names: list[str], **options) -> list[Baseline | OptimalRefused]:
    """:func:`run` for each name; a refused optimum is returned as its exception."""
    out: list[Baseline | OptimalRefused] = []
    for name in names:
        try:
            out.append(run(game, name, **options))
        except OptimalRefused as e:
            out.append(e)
    return out
