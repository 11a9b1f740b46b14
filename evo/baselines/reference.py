"""The reference figures shown beside runs: which baselines, computed or read from the
cache, and how long the optimum may take. Reports and comparisons ask here; they never
decide this themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evo.baselines import OptimalRefused, cached, default_names, known_optimum, parse_name, run
from evo.core.game import Game
from evo.core.tree import Tree

#: Above this many codes, baselines are read from the cache only when already computed;
#: computing look-ahead strategies for such games would take longer than a report should.
COMPUTE_LIMIT = 10_000

#: Seconds the exact optimum may take when a report computes it (else: not available).
OPTIMAL_SECONDS = 30.0


@dataclass(frozen=True)
class BaselineFigures:
    """A baseline's figures, or why it is not available (``total`` None)."""

    name: str
    total: int | None = None
    worst: int | None = None
    histogram: dict[int, int] | None = None
    note: str = ""


def reference_names(game: Game) -> list[str]:
    """The baselines a report shows by default: every baseline of the game."""
    return list(default_names(game))


def reference_tree(game: Game, name: str) -> Tree:
    """A baseline's tree to draw or play: from the cache, or computed within the report's
    time limits. Raises ValueError (unknown name) or :class:`OptimalRefused`."""
    hit = cached(game, name)
    if hit is not None:
        return hit.tree
    return run(game, name, time_limit=OPTIMAL_SECONDS, rc_seeds=0).tree


def baseline_figures(game: Game, name: str) -> BaselineFigures:
    """One baseline's figures, or a ``not available`` entry saying why, so that a report
    never fails for a baseline. The optimum is the best-known total when there is one."""
    try:
        name = parse_name(game, name)
    except ValueError as e:
        return BaselineFigures(name, note=str(e))
    known = known_optimum(game)
    if name == "optimal" and known is not None and known.proved:
        return BaselineFigures(name, total=known.total, note=f"optimum: {known.source}")
    found = cached(game, name)
    if found is None and game.num_codes > COMPUTE_LIMIT:
        return BaselineFigures(
            name, note=f"not computed for games over {COMPUTE_LIMIT} codes (see evo baselines)"
        )
    if found is None:
        try:
            found = run(game, name, time_limit=OPTIMAL_SECONDS, rc_seeds=0)
        except OptimalRefused as e:
            return BaselineFigures(name, note=str(e))
    result = found.result
    hist = result.get("histogram") or {}
    return BaselineFigures(
        name,
        total=int(result["total"]),
        worst=int(result["worst"]) if result.get("worst") is not None else None,
        histogram={int(d): int(c) for d, c in hist.items()},
    )


def collect_baselines(
    game: Game, names: Sequence[str], *, knuth_total: int | None = None
) -> list[BaselineFigures]:
    """Figures of the named baselines; Knuth falls back on ``knuth_total`` (a run's own
    figure) when it cannot be had."""
    out = []
    for name in names:
        fig = baseline_figures(game, name)
        if fig.total is None and name == "knuth" and knuth_total:
            fig = BaselineFigures(name, total=int(knuth_total), note="from the run")
        out.append(fig)
    return out
