"""Exhaustive baselines: classic strategies built as breaker trees, so that fitness,
rendering and comparison treat them like evolved ones.

Names: ``knuth``, ``irving``, ``kooi``, ``entropy`` and their ``-consistent`` forms;
``lc``, ``rc`` (seeded); openings such as ``5463+lc``, ``1123+2245+rc`` or ``11223+entropy``;
``human-friendly`` and ``extended`` (Goel and Garg's Bulls and Cows players, with
``-stable`` forms for the other tie order) and evo's variants of them, ``least-frequent``
and ``separating``; ``easy`` and ``advanced`` (the write-up's human Mastermind
strategies); ``optimal`` and ``optimal-consistent``. Each is a player
of :mod:`evo.search` (or the exact search), built into a tree and cached per game.

>>> game = make_game(4, 6)
>>> run(game, "knuth").tree.total     # 5801, worst case 5 (cached on disk)
>>> build(game, "irving")             # no cache
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypedDict

import numpy as np

from evo.baselines import cache
from evo.baselines.consistent import optimal_consistent
from evo.baselines.easy import advanced, easy
from evo.baselines.human import least_frequent, separating
from evo.baselines.limits import BaselineRefused, check_time_limit, refuse_beyond
from evo.baselines.optimal import (
    DEFAULT_TIME_LIMIT,
    KNOWN_OPTIMA,
    OPTIMA_SOURCES,
    OptimalRefused,
    Where,
    optimal,
)
from evo.baselines.optimal import estimate_seconds as optimal_estimate
from evo.baselines.paper import TieOrder, extended, human_friendly
from evo.baselines.simple import (
    estimate_rc,
    lowest_consistent,
    random_consistent,
    with_opening,
)
from evo.core.game import Game
from evo.core.kinds import HEURISTICS, Pool
from evo.core.tree import Tree
from evo.search.build import Node, build_tree
from evo.search.lookahead import estimate_seconds as lookahead_estimate
from evo.search.lookahead import lookahead_player, lookahead_tree

__all__ = [
    "CONSISTENT_OPTIMUM_UP_TO",
    "DEFAULT_TIME_LIMIT",
    "EASY",
    "HUMAN",
    "PAPER_STABLE",
    "KNOWN_OPTIMA",
    "LOOKAHEAD",
    "NAMES",
    "OPTIMA_SOURCES",
    "Baseline",
    "BaselineRefused",
    "BaselineResult",
    "OptimalRefused",
    "Refused",
    "Where",
    "build",
    "KnownTotal",
    "SOLVE_OPTIMUM_UP_TO",
    "cache_key",
    "knuth_total",
    "cached",
    "default_names",
    "estimate_rc",
    "estimate_seconds",
    "reads_table",
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

#: The one-step look-ahead baselines: each heuristic, and its consistent-only form.
LOOKAHEAD: tuple[str, ...] = tuple(f"{s}{c}" for s in HEURISTICS for c in ("", "-consistent"))
#: Bulls and Cows players: the paper's, then evo's variants of them.
HUMAN: tuple[str, ...] = ("human-friendly", "extended", "least-frequent", "separating")
#: The paper's players with the stable tie order (not shown by default).
PAPER_STABLE: tuple[str, ...] = ("human-friendly-stable", "extended-stable")
#: The write-up's human Mastermind strategies.
EASY: tuple[str, ...] = ("easy", "advanced")
NAMES: tuple[str, ...] = (
    LOOKAHEAD + ("lc", "rc") + HUMAN + PAPER_STABLE + EASY + ("optimal", "optimal-consistent")
)
#: Games of at most this many codes show ``optimal-consistent`` by default (it takes
#: about 2 s on (4,6), 1,296 codes).
CONSISTENT_OPTIMUM_UP_TO = 1296
#: What may follow an opening: LC, RC, or a one-step rule.
_FOLLOWERS = ("lc", "rc") + LOOKAHEAD


def default_names(game: Game) -> list[str]:
    """What ``evo baselines`` runs without ``--only``: the one-step strategies, LC, RC,
    the human players of the variant, the optimum and, for games of at most
    :data:`CONSISTENT_OPTIMUM_UP_TO` codes, the consistent optimum."""
    names = list(LOOKAHEAD) + ["lc", "rc"]
    names += list(HUMAN) if game.variant == "bulls-cows" else list(EASY)
    names.append("optimal")
    if game.num_codes <= CONSISTENT_OPTIMUM_UP_TO:
        names.append("optimal-consistent")
    return names


def parse_name(game: Game, name: str) -> str:
    """The canonical form of a baseline name (openings with codes as printed)."""
    if not isinstance(name, str):
        raise ValueError(f"a baseline name is a string such as 'knuth', not {name!r}")
    text = name.strip().lower()
    if text in EASY and game.variant != "mastermind":
        raise ValueError(f"{text} is a Mastermind strategy (colors repeat), not for {game.name}")
    if text in HUMAN[:2] + PAPER_STABLE and game.variant != "bulls-cows":
        raise ValueError(f"{text} is a Bulls and Cows player, not for {game.name}")
    if text in NAMES:
        return text
    if "+" in text:
        *codes, then = text.split("+")
        if then not in _FOLLOWERS:
            raise ValueError(
                f"opening {name!r} should end with +lc, +rc or a one-step rule such as +kooi"
            )
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


def lookahead(
    game: Game,
    heuristic: str,
    *,
    consistent: bool = False,
    opening: Sequence[int] = (),
    progress: Callable[[int, int], None] | None = None,
) -> Tree:
    """The tree of a one-step look-ahead strategy (``knuth``, ``irving``, ``kooi`` or
    ``entropy``); ``consistent`` restricts the guesses to the node's code set.
    ``opening``: guesses played first, as written (the first at the root, the second at
    every node below it, ...), the rule choosing from there (as a published result that
    fixes the first guess). ``progress(found, total)``: codes found so far."""
    pool: Pool = "consistent" if consistent else "all"
    # A one-step tree reads fewer feedbacks than a table holds: a table that is not at
    # hand would cost more to build than computing them (Knuth (5,8): 5 s against 0).
    work = game if game.table_at_hand else game.computing()
    if not opening:
        tree = lookahead_tree(work, heuristic, pool=pool, progress=progress)
    else:
        player = lookahead_player(work, heuristic, pool=pool)
        fixed = [int(g) for g in opening]

        def choose(codes: np.ndarray, node: Node) -> int:
            depth = len(node.history)
            return fixed[depth] if depth < len(fixed) else player(codes, node)

        tree = build_tree(work, choose, as_written=True, progress=progress)
    return tree if work is game else replace(tree, game=game, _cache={})


def _one_step(name: str) -> tuple[list[str], str, bool] | None:
    """A canonical name played by a one-step rule (``kooi``, ``112233+kooi-consistent``):
    its opening's printed codes, the heuristic and whether it is the consistent form;
    None for the other baselines."""
    *codes, rule = name.split("+")
    if rule not in LOOKAHEAD:
        return None
    heuristic, _, rest = rule.partition("-")
    return codes, heuristic, rest == "consistent"


def reads_table(game: Game, names: Sequence[str]) -> bool:
    """Whether building the baselines ``names`` reads the game's feedback table: every one
    but a one-step rule does, and a one-step rule only when the table is at hand (see
    :func:`lookahead`)."""
    if not game.use_table:
        return False
    return game.table_at_hand or any(_one_step(parse_name(game, n)) is None for n in names)


def estimate_seconds(game: Game, name: str, *, where: Where | None = None) -> float | None:
    """About how long baseline ``name`` takes to build on ``game`` here: for the one-step
    strategies (:func:`evo.search.lookahead.estimate_seconds`) and the optimum
    (:func:`evo.baselines.optimal.estimate_seconds`, on the threads or workers of
    ``where``); None for the others (quick)."""
    name = parse_name(game, name)
    rule = _one_step(name)
    if rule is not None:
        _, heuristic, consistent = rule
        return lookahead_estimate(game, heuristic, pool="consistent" if consistent else "all")
    if name == "optimal":
        return optimal_estimate(game, processes=(where or Where()).processes)
    return None


def build(
    game: Game,
    name: str,
    *,
    seed: int = 0,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    progress: Callable[[int, int], None] | None = None,
    where: Where | None = None,
) -> Tree:
    """The tree of baseline ``name`` (no cache). ``seed``: of RC forms; ``time_limit``:
    seconds the optimum may take (:class:`BaselineRefused` beyond); ``progress``: of the
    one-step strategies (:func:`lookahead`); ``where``: how the optimum is searched."""
    name = parse_name(game, name)
    rule = _one_step(name)
    if rule is not None:
        codes, heuristic, consistent = rule
        opening = [game.parse_code(c) for c in codes]
        return lookahead(game, heuristic, consistent=consistent, opening=opening, progress=progress)
    if name == "lc":
        return lowest_consistent(game)
    if name == "rc":
        return random_consistent(game, seed=seed)
    if name in HUMAN[:2] + PAPER_STABLE:
        tie_order: TieOrder = "stable" if name.endswith("-stable") else "v8"
        base = name.removesuffix("-stable")
        maker = human_friendly if base == "human-friendly" else extended
        return maker(game, tie_order=tie_order)
    if name == "least-frequent":
        return least_frequent(game)
    if name == "separating":
        return separating(game)
    if name == "easy":
        return easy(game)
    if name == "advanced":
        return advanced(game)
    if name == "optimal":
        return optimal(game, time_limit=time_limit, where=where)
    if name == "optimal-consistent":
        return optimal_consistent(game, time_limit=time_limit)
    *codes, then = name.split("+")
    return with_opening(game, [game.parse_code(c) for c in codes], then, seed=seed)


class BaselineResult(TypedDict, total=False):
    """A baseline's figures, as cached and printed: ``total``, ``average``, ``worst``,
    ``histogram`` (guesses: codes), ``seconds`` (of the original computation),
    ``first_guess``, ``nodes``, ``cached``; RC forms also ``seed`` and ``estimate``."""

    name: str
    total: int
    average: float
    worst: int
    histogram: dict[int, int]
    nodes: int
    seconds: float
    first_guess: str
    cached: bool
    seed: int
    estimate: dict


@dataclass
class Baseline:
    """A baseline's tree and its figures."""

    name: str
    tree: Tree
    result: BaselineResult


@dataclass(frozen=True)
class Refused:
    """A baseline that was not computed (estimated beyond the time limit, or its search
    gave up there), and why (``reason`` names no option: the caller says what raises the
    limit)."""

    name: str
    reason: str
    estimate_seconds: float | None = None


@dataclass(frozen=True)
class KnownTotal:
    """The best-known total of a game and where it comes from: ``source`` names the
    publication or search; ``proved`` says whether it is a proven optimum."""

    total: int
    source: str
    proved: bool


#: Games of at most this many codes have their optimum computed (in milliseconds) when
#: none is recorded.
SOLVE_OPTIMUM_UP_TO = 64


#: Best totals reported for games whose optimum is not proved (or not checked by evo),
#: with what is known of where they come from.
BEST_REPORTED: dict[tuple[int, int, str], KnownTotal] = {
    (5, 8, "mastermind"): KnownTotal(
        179274,
        "reported best known (average 5.4711, first guess 12344); not proved optimal",
        proved=False,
    ),
}


def known_optimum(game: Game) -> KnownTotal | None:
    """The game's best-known total with its source: a recorded optimum (published, or
    found by evo's exact search), a reported best total (``proved`` False), or for tiny
    games (up to :data:`SOLVE_OPTIMUM_UP_TO` codes) the optimum computed now; else None."""
    total = KNOWN_OPTIMA.get(game.key)
    if total is not None:
        return KnownTotal(total, OPTIMA_SOURCES[game.key], proved=True)
    if game.key in BEST_REPORTED:
        return BEST_REPORTED[game.key]
    if game.num_codes <= SOLVE_OPTIMUM_UP_TO:
        from evo.search.exact import shared_solver

        total = shared_solver(game).total(game.all_codes())
        return KnownTotal(total, "evo's exact search, computed now", proved=True)
    return None


def knuth_total(game: Game) -> int:
    """Knuth's total for the game (cached on disk per game): the yardstick of every run."""
    return int(run(game, "knuth", rc_seeds=0).tree.total)


def cache_key(game: Game, name: str, *, seed: int = 0) -> str:
    """The cache file name of a baseline: its name, with ``-seed`` for RC forms."""
    name = parse_name(game, name)
    if "+" in name:  # openings are played as written now; older files skipped guesses
        name = f"{name}-as-written"
    return f"{name}-{seed}" if _seeded(name) else name


def _cache_seed(name: str, seed: int) -> int | None:
    """The seed a cache file records: None for baselines that are not seeded."""
    return seed if _seeded(name) else None


def cached(game: Game, name: str, *, seed: int = 0) -> Baseline | None:
    """A baseline from the cache only (None when it was never computed)."""
    name = parse_name(game, name)
    key = cache_key(game, name, seed=seed)
    hit = cache.load(game, key, name=name, seed=_cache_seed(name, seed))
    if hit is None:
        return None
    tree, result = hit
    result["histogram"] = {int(k): int(v) for k, v in result["histogram"].items()}
    result["cached"] = True
    return Baseline(name, tree, BaselineResult(**result))


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
    ``progress`` and ``where``: see :func:`build`."""
    name = parse_name(game, name)
    time_limit = check_time_limit(time_limit)
    key = cache_key(game, name, seed=seed)
    found = cached(game, name, seed=seed) if use_cache else None
    if found is not None:
        result = found.result
        if _seeded(name) and rc_seeds >= 2 and result.get("estimate", {}).get("seeds") != rc_seeds:
            result["estimate"] = _estimate(game, name, rc_seeds, seed)
            cache.store(
                game,
                key,
                found.tree,
                {**result, "cached": False},
                name=name,
                seed=_cache_seed(name, seed),
            )
        return found
    refuse_beyond(game, name, estimate_seconds(game, name), time_limit)  # before any work
    if reads_table(game, [name]):  # a one-step rule may compute its feedbacks instead
        game.prepare()  # the one-time table is not part of a strategy's time
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
    if _seeded(name):
        result["seed"] = seed
        if rc_seeds >= 2:
            result["estimate"] = _estimate(game, name, rc_seeds, seed)
    if use_cache:
        cache.store(game, key, tree, dict(result), name=name, seed=_cache_seed(name, seed))
    return Baseline(name, tree, result)


def _estimate(game: Game, name: str, seeds: int, seed: int) -> dict:
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
    """:func:`run` for each name; a refused optimum is a :class:`Refused` record."""
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
            out.append(Refused(e.name, e.reason, e.estimate_seconds))
    return out
