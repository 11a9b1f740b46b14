"""A run's best breaker and the summary written beside it (at every checkpoint, and at
the end)."""

from __future__ import annotations

from typing import TypedDict

from evo.config import Config
from evo.core.game import Game
from evo.core.tree import Tree
from evo.ea.state import State


class RunSummary(TypedDict, total=False):
    """``summary.json``: the run, its best breaker's figures and the reference totals."""

    name: str
    game: dict
    codes: int
    seed: int
    best_total: int
    best_average: float
    best_worst: int
    best_histogram: dict[int, int]
    generations: int
    evaluations: int
    seconds: float
    stopped_by: str | None
    status: str
    workers: int
    knuth_total: int | None
    gap_to_knuth: int | None
    best_known_total: int | None
    best_known_source: str | None
    gap_to_best_known: int | None
    pareto_front: list[tuple[int, ...]]
    islands: int
    warning: str


def make_summary(
    config: Config,
    game: Game,
    state: State,
    best: Tree,
    *,
    knuth: int | None,
    stopped_by: str | None,
    status: str = "finished",
) -> RunSummary:
    """The summary of a run: its best breaker against Knuth and the best-known total.
    ``status``: ``running`` (a checkpoint of a run going on), ``interrupted`` or
    ``finished``."""
    from evo.baselines import known_optimum

    known = known_optimum(game)
    summary = RunSummary(
        name=config.name,
        game=game.spec,
        codes=game.num_codes,
        seed=config.seed,
        best_total=int(best.total),
        best_average=round(best.total / game.num_codes, 6),
        best_worst=int(best.worst),
        best_histogram=best.histogram,
        generations=state.generation,
        evaluations=state.evaluations,
        seconds=round(state.elapsed, 2),
        stopped_by=stopped_by,
        status=status,
        workers=config.workers,
        knuth_total=knuth,
        gap_to_knuth=None if knuth is None else int(best.total) - knuth,
        best_known_total=None if known is None else known.total,
        best_known_source=None if known is None else known.source,
        gap_to_best_known=None if known is None else int(best.total) - known.total,
    )
    if config.selection.method == "nsga2":  # (total, worst[, codes at the worst case])
        summary["pareto_front"] = sorted(
            {tuple(int(v) for v in i.fitness.values) for i in state.halloffame},
            key=lambda x: (x[1], x[2:], x[0]),
        )
    return summary
