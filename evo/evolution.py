"""The evolution (DEAP): toolbox, generational loop, statistics, hall of fame, checkpoints.

Individuals are :class:`evo.tree.Tree` subclasses made by DEAP's ``creator``: ``Breaker``
(fitness: the total, to minimize, plus a penalty past ``max_guesses``) and
``ParetoBreaker`` (NSGA-II on the total and the worst case). Trees are never modified in
place: operators return new trees, so an unchanged offspring is its parent's object.

A generation (tournament selection)::

    parents   = select(population, size - elitism)          # Python's random, seeded
    offspring = map(breed, pairs of parents)                # crossover, mutation, evaluation
    population = best `elitism` of the old population + offspring

With NSGA-II the offspring are as many as the population and ``selNSGA2`` keeps the best
``size`` of both. ``breed`` runs wherever the toolbox's ``map`` sends it (a process pool
when ``workers > 1``): every draw it makes comes from a NumPy generator seeded by
``(seed, generation, pair)``, so the result does not depend on which process ran it, nor
in which order. The logbook is the same for 1 or many workers, and after ``resume``.
"""

from __future__ import annotations

import copy
import math
import multiprocessing
import pickle
import random
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
from deap import base, creator, tools

from evo import operators
from evo.config import Config
from evo.files import atomic_write_bytes
from evo.game import Game, make_game
from evo.growth import random_breaker
from evo.rundir import CHECKPOINT, append_logbook, write_best, write_logbook, write_summary
from evo.tree import Tree

CHECKPOINT_FORMAT = "evo-checkpoint"
CHECKPOINT_VERSION = 1

_INIT_TAG = 0x1D17  # seed sequence tag of the first population's draws


class CheckpointError(ValueError):
    """A checkpoint cannot be read or does not belong to the run."""


class RunInterrupted(Exception):
    """The run was stopped (Ctrl-C) after ``generation``; a checkpoint was written."""

    def __init__(self, generation: int, path: Path | None):
        super().__init__(f"interrupted after generation {generation}")
        self.generation = generation
        self.path = path


# ------------------------------------------------------------------ DEAP types
def _shallow_deepcopy(self, memo):
    """Trees are never modified in place: a copy (the hall of fame makes them) shares the
    arrays and the game (with its feedback table) and gets its own fitness."""
    new = copy.copy(self)
    new.fitness = copy.deepcopy(self.fitness, memo)
    return new


def _ensure_types() -> None:
    """Create the ``creator`` types once (importing this module twice must not warn)."""
    if not hasattr(creator, "FitnessMin"):
        creator.create("FitnessMin", base.Fitness, weights=(-1.0,))
    if not hasattr(creator, "FitnessTotalWorst"):
        creator.create("FitnessTotalWorst", base.Fitness, weights=(-1.0, -1.0))
    if not hasattr(creator, "Breaker"):
        creator.create("Breaker", Tree, fitness=creator.FitnessMin, __deepcopy__=_shallow_deepcopy)
    if not hasattr(creator, "ParetoBreaker"):
        creator.create(
            "ParetoBreaker", Tree, fitness=creator.FitnessTotalWorst, __deepcopy__=_shallow_deepcopy
        )


_ensure_types()

_TREE_FIELDS = [f.name for f in fields(Tree) if f.name != "_cache"]


def as_individual(cls: type, tree: Tree, values: tuple | None = None):
    """``tree`` as an individual of ``cls`` (sharing its arrays), with fitness ``values``."""
    ind = cls(**{k: getattr(tree, k) for k in _TREE_FIELDS})
    ind._cache = dict(tree._cache)
    if values is not None:
        ind.fitness.values = values
    return ind


def as_tree(ind: Tree) -> Tree:
    """A plain :class:`Tree` with the individual's arrays (for pickling and files)."""
    tree = Tree(**{k: getattr(ind, k) for k in _TREE_FIELDS})
    tree._cache = dict(ind._cache)
    return tree


def same_tree(a: Tree, b: Tree) -> bool:
    """Two breakers are the same tree (the hall of fame keeps one of each)."""
    return a.total == b.total and len(a) == len(b) and np.array_equal(a.guess, b.guess)


# ------------------------------------------------------------------ fitness
def evaluate_total(tree: Tree, max_guesses: int | None = None) -> tuple[int]:
    """``(total,)``; past ``max_guesses``, each code solved too late adds ``M × max_guesses``,
    so every breaker within the limit beats every one beyond it."""
    total = tree.total
    if max_guesses is not None and tree.worst > max_guesses:
        over = int(np.count_nonzero(tree.terminal_depths > max_guesses))
        total += over * tree.num_codes * max_guesses
    return (total,)


def evaluate_total_worst(tree: Tree) -> tuple[int, int]:
    """``(total, worst case)`` for NSGA-II."""
    return (tree.total, tree.worst)


# ------------------------------------------------------------------ toolbox
def build_toolbox(config: Config, game: Game) -> base.Toolbox:
    """The DEAP toolbox of a config: ``mate``, ``mutate`` (one of the weighted mutation
    operators, each also registered as ``mutate_<kind>``), ``evaluate``, ``select``,
    ``individual``, ``breed`` (variation and evaluation of a pair of parents, what ``map``
    runs) and ``map`` (the builtin; :func:`evolve` plugs in a process pool)."""
    tb = base.Toolbox()
    tb.game = game
    tb.config = config
    pool = config.pool
    cx = config.crossover.operator
    if cx.kind == "graft":
        tb.register("mate", operators.graft_crossover, pool=pool, node_weight=cx.node_weight)
    else:
        tb.register("mate", operators.exchange_crossover, bias=cx.bias)
    names, weights = [], []
    for i, op in enumerate(config.mutation.operators):
        params = op.model_dump(exclude={"kind", "weight"})
        name = f"mutate_{op.kind.replace('-', '_')}"
        if hasattr(tb, name):
            name = f"{name}_{i}"
        tb.register(name, operators.MUTATIONS[op.kind], pool=pool, **params)
        names.append(name)
        weights.append(op.weight)
    tb.mutation_names = names
    w = np.array(weights, dtype=np.float64)
    tb.mutation_cum = np.cumsum(w) / w.sum() if w.sum() > 0 else None
    tb.register("mutate", _mutate, tb)
    if config.selection.method == "nsga2":
        tb.cls = creator.ParetoBreaker
        tb.register("evaluate", evaluate_total_worst)
        tb.register("select", tools.selNSGA2)
    else:
        tb.cls = creator.Breaker
        tb.register("evaluate", evaluate_total, max_guesses=config.max_guesses)
        tb.register("select", tools.selTournament, tournsize=config.selection.tournament_size)
    tb.register("individual", random_breaker, game, pool=config.population.init.pool)
    tb.register("breed", breed, tb)
    tb.register("map", map)
    return tb


def _mutate(tb: base.Toolbox, tree: Tree, rng: np.random.Generator) -> Tree:
    k = int(np.searchsorted(tb.mutation_cum, rng.random(), side="right"))
    return getattr(tb, tb.mutation_names[min(k, len(tb.mutation_names) - 1)])(tree, rng)


def breed(tb: base.Toolbox, parents: tuple[Tree, Tree], key: tuple[int, ...]):
    """Offspring of two parents: crossover with probability ``crossover.rate``, then each
    child mutated with probability ``mutation.rate`` (``mutation.repeat`` times); draws
    from a generator seeded by ``key``. Returns ``[(tree, fitness values)]``, with
    ``(None, None)`` for a child identical to its parent (nothing to send or evaluate)."""
    rng = np.random.default_rng(np.random.SeedSequence(list(key)))
    cfg = tb.config
    a, b = parents
    kids = [a, b]
    if rng.random() < cfg.crossover.rate:
        kids = list(tb.mate(a, b, rng))
    out = []
    for child, parent in zip(kids, (a, b)):
        if cfg.mutation.rate > 0 and rng.random() < cfg.mutation.rate:
            for _ in range(cfg.mutation.repeat):
                child = tb.mutate(child, rng)
        if child is parent:
            out.append((None, None))
        else:
            out.append((as_tree(child), tb.evaluate(child)))
    return out


def _breed_task(args):
    return _WORKER["toolbox"].breed(*args)


def _individual_task(key):
    tb = _WORKER["toolbox"]
    rng = np.random.default_rng(np.random.SeedSequence(list(key)))
    tree = tb.individual(rng)
    return tree, tb.evaluate(tree)


#: The toolbox that mapped tasks use: set in this process, and in every worker process.
_WORKER: dict[str, Any] = {}


def _init_worker(config_data: dict) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    config = Config.model_validate(config_data)
    game = make_game(config.game.pegs, config.game.colors, config.game.variant)
    _ = game.table  # built once per process
    _WORKER["toolbox"] = build_toolbox(config, game)


# ------------------------------------------------------------------ statistics
def _stat_key(ind: Tree) -> tuple[int, int, int]:
    return (ind.total, ind.worst, int(ind.guess[0]))


def make_statistics() -> tools.Statistics:
    """Per generation: min, average, max and standard deviation of the total; the worst
    case of the best breaker and the smallest in the population; distinct root guesses."""
    stats = tools.Statistics(key=_stat_key)
    stats.register("min", lambda k: int(min(x[0] for x in k)))
    stats.register("avg", lambda k: round(float(np.mean([x[0] for x in k])), 3))
    stats.register("max", lambda k: int(max(x[0] for x in k)))
    stats.register("std", lambda k: round(float(np.std([x[0] for x in k])), 3))
    stats.register("worst", lambda k: int(min(k)[1]))
    stats.register("worst_min", lambda k: int(min(x[1] for x in k)))
    stats.register("roots", lambda k: len({x[2] for x in k}))
    return stats


# ------------------------------------------------------------------ state
@dataclass
class State:
    """Everything a run needs to go on: what a checkpoint holds."""

    generation: int
    population: list
    halloffame: Any
    logbook: tools.Logbook
    random_state: Any
    elapsed: float
    evaluations: int


def _hall_of_fame(config: Config):
    if config.selection.method == "nsga2":
        return tools.ParetoFront(similar=same_tree)
    return tools.HallOfFame(config.hall_of_fame, similar=same_tree)


def save_checkpoint(path: Path, state: State, config: Config) -> None:
    """Write the state atomically (plain trees and fitness values, so that the file does
    not depend on DEAP's ``creator``)."""
    doc = {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "config": config.model_dump(mode="json"),
        "generation": state.generation,
        "population": [_entry(i) for i in state.population],
        "halloffame": [_entry(i) for i in state.halloffame],
        "logbook": [dict(r) for r in state.logbook],
        "random_state": state.random_state,
        "elapsed": state.elapsed,
        "evaluations": state.evaluations,
    }
    atomic_write_bytes(path, pickle.dumps(doc, protocol=pickle.HIGHEST_PROTOCOL))


def _entry(ind) -> tuple:
    return (as_tree(ind), ind.fitness.values, getattr(ind.fitness, "crowding_dist", None))


def load_checkpoint(path: Path, config: Config, game: Game) -> State:
    """Read a checkpoint written by :func:`save_checkpoint` for this config.
    Raises :class:`CheckpointError` saying what is wrong."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise CheckpointError(f"cannot read checkpoint {path}: {e.strerror or e}") from None
    try:
        doc = pickle.loads(data)
    except Exception as e:  # noqa: BLE001 - any unpickling failure means a bad file
        raise CheckpointError(
            f"checkpoint {path} is corrupted or truncated ({type(e).__name__}); "
            "the run cannot be resumed from it"
        ) from None
    if not isinstance(doc, dict) or doc.get("format") != CHECKPOINT_FORMAT:
        raise CheckpointError(f"{path} is not an evo checkpoint")
    if doc.get("version") != CHECKPOINT_VERSION:
        raise CheckpointError(f"{path}: checkpoint version {doc.get('version')!r} is not supported")
    if doc["config"] != config.model_dump(mode="json"):
        raise CheckpointError(f"{path} was written by another config than the run's config.yaml")
    cls = creator.ParetoBreaker if config.selection.method == "nsga2" else creator.Breaker
    hof = _hall_of_fame(config)

    def inds(items):
        out = []
        for tree, values, crowding in items:
            ind = as_individual(cls, tree, values)
            if crowding is not None:  # NSGA-II's tournament reads it
                ind.fitness.crowding_dist = crowding
            out.append(ind)
        return out

    population = inds(doc["population"])
    hof_items = inds(doc["halloffame"])
    if config.selection.method == "nsga2":
        hof.update(hof_items)
    else:
        for ind in hof_items:  # already sorted best first
            hof.keys.append(ind.fitness)
            hof.items.append(ind)
    logbook = _new_logbook()
    for r in doc["logbook"]:
        logbook.record(**r)
    return State(
        doc["generation"],
        population,
        hof,
        logbook,
        doc["random_state"],
        doc["elapsed"],
        doc["evaluations"],
    )


def _new_logbook() -> tools.Logbook:
    lb = tools.Logbook()
    lb.header = ["gen", "nevals", "min", "avg", "max", "std", "worst", "worst_min", "roots"]
    return lb


# ------------------------------------------------------------------ baselines
def knuth_total(game: Game) -> int:
    """Knuth's total for the game, from :mod:`evo.baselines` (cached on disk per game)."""
    from evo.baselines import run as run_baseline

    return int(run_baseline(game, "knuth").tree.total)


#: Games this small have their optimum computed (in milliseconds) when none is published.
SOLVE_OPTIMUM_BELOW = 64


def best_known_total(game: Game) -> int | None:
    """The best known total: the published optimum (:mod:`evo.baselines`), or for tiny
    games the optimum computed by exact search; None otherwise."""
    from evo.baselines import known_optimum

    known = known_optimum(game)
    if known is not None:
        return int(known[0])
    if game.num_codes <= SOLVE_OPTIMUM_BELOW:
        return operators.exact_solver(game, "all").total(game.all_codes())
    return None


def _baseline_trees(game: Game, names: list[str]) -> list[Tree]:
    from evo.baselines import run as run_baseline

    return [run_baseline(game, name).tree for name in names]


# ------------------------------------------------------------------ the loop
@dataclass
class Result:
    """The end of a run."""

    best: Tree
    state: State
    summary: dict


def evolve(
    config: Config,
    run_dir: Path | None = None,
    resume: bool = False,
    progress: bool = True,
    on_generation: Callable[[int, list, tools.Logbook], None] | None = None,
    knuth: int | None | bool = True,
) -> Result:
    """Run (or, with ``resume``, continue from ``run_dir``'s checkpoint) the evolution of
    ``config``; write the logbook, checkpoints, best breaker and summary into ``run_dir``
    when given. ``on_generation(gen, population, logbook)`` is called after every
    generation. ``knuth``: Knuth's total to compare with (True: computed, False: none).
    Raises :class:`RunInterrupted` on Ctrl-C, after writing a checkpoint."""
    game = make_game(
        config.game.pegs, config.game.colors, config.game.variant, trees=config.population.size * 2
    )
    _ = game.table  # built once per process
    if knuth is True:
        knuth = knuth_total(game)
    elif knuth is False:
        knuth = None
    tb = build_toolbox(config, game)
    _WORKER["toolbox"] = tb
    ckpt = Path(run_dir) / CHECKPOINT if run_dir is not None else None

    pool = None
    if config.workers > 1:
        ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
        pool = ctx.Pool(
            config.workers, initializer=_init_worker, initargs=(config.model_dump(mode="json"),)
        )
        chunks = lambda n: max(1, math.ceil(n / (config.workers * 8)))  # noqa: E731
        tb.register("map", lambda f, it: pool.map(f, list(it), chunksize=chunks(len(it))))
    stats = make_statistics()
    t_start = time.perf_counter()
    bar = None
    try:
        if resume:
            if ckpt is None or not ckpt.exists():
                raise CheckpointError(f"{run_dir} has no {CHECKPOINT} to resume from")
            state = load_checkpoint(ckpt, config, game)
        else:
            state = _initial_state(config, game, tb, stats)
            state.elapsed = time.perf_counter() - t_start
            if ckpt is not None:
                save_checkpoint(ckpt, state, config)
        if run_dir is not None:  # (on resume, drops what was logged after the checkpoint)
            write_logbook(run_dir, list(state.logbook))
        logged = len(state.logbook)
        if on_generation is not None and not resume:
            on_generation(0, state.population, state.logbook)
        base_elapsed = state.elapsed - (time.perf_counter() - t_start)
        bar = _Progress(config, knuth, state, enabled=progress)
        last_good = _snapshot(state)
        stopped_by = _stop_reason(config, state)
        while stopped_by is None:
            random.setstate(state.random_state)
            _generation(config, tb, stats, state)
            state.random_state = random.getstate()
            state.elapsed = base_elapsed + time.perf_counter() - t_start
            last_good = _snapshot(state)
            if run_dir is not None and state.generation % config.checkpoint_interval == 0:
                save_checkpoint(ckpt, state, config)
                append_logbook(run_dir, state.logbook[logged:])
                logged = len(state.logbook)
            bar.update(state)
            if on_generation is not None:
                on_generation(state.generation, state.population, state.logbook)
            stopped_by = _stop_reason(config, state)
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        if pool is not None:
            pool.terminate()
            pool = None
        if ckpt is not None and "last_good" in locals():
            save_checkpoint(ckpt, last_good, config)
            append_logbook(run_dir, last_good.logbook[logged:])
        gen = last_good.generation if "last_good" in locals() else -1
        raise RunInterrupted(gen, run_dir) from None
    finally:
        if bar is not None:
            bar.close()
        if pool is not None:
            pool.close()
            pool.join()
        _WORKER.pop("toolbox", None)
    if ckpt is not None:
        save_checkpoint(ckpt, state, config)
        append_logbook(run_dir, state.logbook[logged:])
    best = best_of(state, config)
    summary = make_summary(config, game, state, best, knuth, stopped_by)
    if run_dir is not None:
        write_best(run_dir, as_tree(best), run=Path(run_dir).name, config=config.name)
        write_summary(run_dir, summary)
    return Result(as_tree(best), state, summary)


def _snapshot(state: State) -> State:
    """A copy of the state that later generations do not change (individuals are never
    modified in place, so lists of them are enough)."""
    hof = copy.copy(state.halloffame)
    hof.items = list(state.halloffame.items)
    hof.keys = list(state.halloffame.keys)
    lb = _new_logbook()
    lb.extend(state.logbook)  # records are never changed once written
    return State(
        state.generation,
        list(state.population),
        hof,
        lb,
        state.random_state,
        state.elapsed,
        state.evaluations,
    )


def _initial_state(config: Config, game: Game, tb, stats) -> State:
    size = config.population.size
    baselines = _baseline_trees(game, config.population.init.baselines)
    n_random = size - min(len(baselines), size)
    keys = [(config.seed, _INIT_TAG, i) for i in range(n_random)]
    results = list(tb.map(_individual_task, keys))
    pop = [as_individual(tb.cls, t, v) for t, v in results]
    for tree in baselines[:size]:
        pop.append(as_individual(tb.cls, tree, tb.evaluate(tree)))
    random.seed(config.seed)
    if config.selection.method == "nsga2":
        pop = tb.select(pop, len(pop))  # assigns the crowding distances selection needs
    hof = _hall_of_fame(config)
    hof.update(pop)
    logbook = _new_logbook()
    logbook.record(gen=0, nevals=len(pop), **stats.compile(pop))
    return State(0, pop, hof, logbook, random.getstate(), 0.0, len(pop))


def _generation(config: Config, tb, stats, state: State) -> None:
    pop = state.population
    size = config.population.size
    gen = state.generation + 1
    if config.selection.method == "nsga2":
        n_off = size
        parents = tools.selTournamentDCD(pop, size) if size % 4 == 0 else random.sample(pop, size)
    else:
        n_off = size - config.elitism
        parents = tb.select(pop, n_off + n_off % 2)
    pairs = [(parents[2 * k], parents[2 * k + 1]) for k in range(len(parents) // 2)]
    tasks = [((as_tree(a), as_tree(b)), (config.seed, gen, k)) for k, (a, b) in enumerate(pairs)]
    results = tb.map(_breed_task, tasks)
    offspring, nevals = [], 0
    for (a, b), kids in zip(pairs, results):
        for parent, (tree, values) in zip((a, b), kids):
            if tree is None:  # a copy of its own: NSGA-II keeps per-individual state
                offspring.append(as_individual(tb.cls, parent, parent.fitness.values))
            else:
                offspring.append(as_individual(tb.cls, tree, values))
                nevals += 1
    offspring = offspring[:n_off]
    if config.selection.method == "nsga2":
        pop = tb.select(pop + offspring, size)
    else:
        pop = tools.selBest(pop, config.elitism) + offspring
    state.halloffame.update(pop)
    state.population = pop
    state.generation = gen
    state.evaluations += nevals
    state.logbook.record(gen=gen, nevals=nevals, **stats.compile(pop))


def _stop_reason(config: Config, state: State) -> str | None:
    s = config.stop
    best = state.logbook[-1]["min"]
    if s.target_total is not None and best <= s.target_total:
        return "target_total"
    if s.generations is not None and state.generation >= s.generations:
        return "generations"
    if s.seconds is not None and state.elapsed >= s.seconds:
        return "seconds"
    return None


def best_of(state: State, config: Config):
    """The best breaker: the hall of fame's first, or the Pareto front's least total."""
    if config.selection.method == "nsga2":
        return min(state.halloffame, key=lambda i: (i.total, i.worst))
    return state.halloffame[0]


def make_summary(config, game, state, best, knuth, stopped_by) -> dict:
    known = best_known_total(game)
    summary = {
        "name": config.name,
        "game": {"pegs": game.pegs, "colors": game.colors, "variant": game.variant},
        "codes": game.num_codes,
        "seed": config.seed,
        "best_total": int(best.total),
        "best_average": round(best.total / game.num_codes, 6),
        "best_worst": int(best.worst),
        "best_histogram": best.histogram_dict(),
        "generations": state.generation,
        "evaluations": state.evaluations,
        "seconds": round(state.elapsed, 2),
        "stopped_by": stopped_by,
        "workers": config.workers,
        "knuth_total": knuth,
        "gap_to_knuth": None if knuth is None else int(best.total) - knuth,
        "best_known_total": known,
        "gap_to_best_known": None if known is None else int(best.total) - known,
    }
    if config.selection.method == "nsga2":
        summary["pareto_front"] = sorted(
            {(int(i.total), int(i.worst)) for i in state.halloffame}, key=lambda x: x[1]
        )
    return summary


class _Progress:
    """A tqdm bar on standard error (generation, best and average totals, Knuth's total);
    when standard error is not a terminal, a line every 10 seconds instead."""

    def __init__(self, config: Config, knuth: int | None, state: State, enabled: bool):
        from tqdm import tqdm

        self.enabled = enabled
        self.tty = sys.stderr.isatty()
        self.knuth = "n/a" if knuth is None else knuth
        self.last = time.perf_counter()
        self.bar = None
        if enabled and self.tty:
            # A bar toward the last generation when that is the limit; a counter when the
            # wall time is (generations then come at no foreseeable pace).
            self.bar = tqdm(
                total=config.stop.generations if config.stop.seconds is None else None,
                initial=state.generation,
                desc=config.name,
                unit="gen",
                file=sys.stderr,
                dynamic_ncols=True,
            )
            self.bar.set_postfix_str(self._text(state))

    def _text(self, state: State) -> str:
        r = state.logbook[-1]
        return f"best={r['min']} avg={r['avg']:.1f} knuth={self.knuth}"

    def update(self, state: State) -> None:
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.set_postfix_str(self._text(state), refresh=False)
            self.bar.update(1)
        elif time.perf_counter() - self.last >= 10:
            self.last = time.perf_counter()
            print(
                f"gen {state.generation}: {self._text(state)} ({state.elapsed:.0f} s)",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
