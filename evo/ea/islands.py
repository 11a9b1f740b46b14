"""Island evolution: sub-populations that evolve apart and meet along a ring.

A run of ``islands.count`` islands goes by *epochs*. In an epoch every island runs
``islands.migration.interval`` generations of the ordinary loop (:func:`generation`) as
one task, with its own config (:meth:`Config.island`: overrides and its own seed); then
each island's best ``migrants`` move to the next island of the ring, replacing its worst
(or random) ones, by DEAP's ``migRing``. A task's result depends only on its input, so
the islands give the same logbooks wherever the tasks run, and a task lost with its
worker is simply run again. The run's logbook has one record per generation over all
islands; ``islands.jsonl`` keeps each island's own.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deap import tools

from evo.config import Config, island_seed
from evo.core.tree import Tree
from evo.ea.deadline import GenerationCut, checked_map, time_limit
from evo.ea.individuals import as_individual, as_tree, individual_class
from evo.ea.selection import sel_distinct
from evo.ea.stats import make_statistics, new_logbook
from evo.runs.checkpoint import State, hall_of_fame

_MIGRATION_TAG = 0x316  # seed tag of the draws of random replacement


@dataclass
class Packed:
    """An island's state as plain data, to send to a worker and back: trees with their
    fitness values (and crowding distances for NSGA-II)."""

    generation: int
    population: list[tuple[Tree, tuple, float | None]]
    halloffame: list[tuple[Tree, tuple, float | None]]
    logbook: list[dict]
    random_state: Any
    evaluations: int
    #: per generation run in the last epoch, ``(total, worst, root)`` of every breaker
    keys: list[list[tuple[int, int, int]]]


def pack(state: State, keys: list[list[tuple[int, int, int]]] | None = None) -> Packed:
    """``state`` as plain data."""

    def entries(items) -> list[tuple[Tree, tuple, float | None]]:
        return [
            (as_tree(i), tuple(i.fitness.values), getattr(i.fitness, "crowding_dist", None))
            for i in items
        ]

    return Packed(
        state.generation,
        entries(state.population),
        entries(state.halloffame),
        [dict(r) for r in state.logbook],
        state.random_state,
        state.evaluations,
        keys or [],
    )


def unpack(packed: Packed, config: Config) -> State:
    """The state that :func:`pack` made, as DEAP individuals of ``config``'s kind."""
    cls = individual_class(pareto=config.selection.method == "nsga2")

    def individuals(entries) -> list:
        return [as_individual(cls, t, v, crowding=c) for t, v, c in entries]

    hof = hall_of_fame(config)
    hof.update(individuals(packed.halloffame))
    logbook = new_logbook()
    for r in packed.logbook:
        logbook.record(**r)
    return State(
        packed.generation,
        individuals(packed.population),
        hof,
        logbook,
        packed.random_state,
        0.0,
        packed.evaluations,
    )


_TOOLBOXES: dict[str, tuple] = {}  # per process: the toolbox of each island config


def run_epoch(config_data: dict, packed: Packed | None, generations: int) -> Packed:
    """One island's epoch, in whichever process runs it: its first population when
    ``packed`` is None, then ``generations`` generations."""
    from evo.core.game import make_game
    from evo.ea.loop import generation, initial_state
    from evo.ea.toolbox import build_toolbox
    from evo.ea.workers import use_toolbox

    config = Config.model_validate(config_data)
    key = config.model_dump_json()
    if key not in _TOOLBOXES:
        g = config.game
        game = make_game(g.pegs, g.colors, g.variant, trees=config.population.size * 2)
        game.prepare()
        _TOOLBOXES[key] = (build_toolbox(config, game), make_statistics())
    tb, stats = _TOOLBOXES[key]
    use_toolbox(tb)
    keys = []
    if packed is None:
        state = initial_state(config, tb, stats)
    else:
        state = unpack(packed, config)
    for _ in range(generations):
        generation(config, tb, stats, state)
        keys.append([(i.total, i.worst, int(i.guess[0])) for i in state.population])
    if packed is None:
        keys = [[(i.total, i.worst, int(i.guess[0])) for i in state.population]]
    return pack(state, keys)


def migrate(islands: list[Packed], configs: list[Config], config: Config, epoch: int) -> None:
    """The ring migration after ``epoch``: each island's best ``migrants`` replace the
    next island's worst (or random) ones, by DEAP's ``migRing``; in place."""
    m = config.islands.migration
    if m.migrants == 0 or len(islands) < 2:
        return
    states = [unpack(p, c) for p, c in zip(islands, configs)]
    pops = [s.population for s in states]
    rnd = random.Random(island_seed(config.seed, _MIGRATION_TAG + epoch))
    if m.replace == "worst":
        replacement = tools.selWorst
    else:
        replacement = functools.partial(sel_distinct, rng=rnd)
    k = min(m.migrants, min(len(p) for p in pops))
    tools.migRing(pops, k, tools.selBest, replacement=replacement)
    for i, s in enumerate(states):
        s.halloffame.update(s.population)
        islands[i] = pack(s, islands[i].keys)


def run_record(islands: list[Packed], index: int) -> dict:
    """The run's logbook record of the ``index``-th generation of the last epoch: the
    statistics over the breakers of all islands."""
    stats = make_statistics(key=lambda k: k)
    keys = [k for p in islands for k in p.keys[index]]
    gen = islands[0].generation - len(islands[0].keys) + 1 + index
    nevals = sum(_record_at(p, gen)["nevals"] for p in islands)
    return {"gen": gen, "nevals": nevals, **stats.compile(keys)}


def _record_at(packed: Packed, gen: int) -> dict:
    for r in reversed(packed.logbook):
        if r["gen"] == gen:
            return r
    raise KeyError(gen)


def best_tree(islands: list[Packed], config: Config) -> Tree:
    """The best breaker of all islands' halls of fame (least total, then worst case)."""
    entries = [e for p in islands for e in p.halloffame]
    if config.selection.method == "nsga2":
        return min((e[0] for e in entries), key=lambda t: (t.total, t.worst))
    return min(entries, key=lambda e: e[1])[0]


Mapper = Callable[[Callable, list[tuple]], list]


def serial_map(fn: Callable, args: list[tuple]) -> list:
    """Every task in this process, in order (stopped at the run's time limit)."""
    return checked_map(lambda a: fn(*a), args)


@dataclass
class Epochs:
    """The islands of a run between epochs, and the clock."""

    islands: list[Packed]
    epoch: int
    elapsed: float


def epochs(config: Config, run_map: Mapper, *, start: Epochs | None = None) -> Iterator[Epochs]:
    """The islands after their first populations (unless resuming from ``start``) and
    after every epoch, until the run's stop rule holds; migration follows each epoch
    (not the last one). Raises :class:`~evo.ea.deadline.GenerationCut` when
    ``stop.seconds`` falls inside an epoch."""
    from evo.ea.loop import time_left

    configs = [config.island(i) for i in range(config.islands.count)]
    data = [c.model_dump(mode="json") for c in configs]
    clock = time.perf_counter()
    if start is None:
        islands = run_map(run_epoch, [(d, None, 0) for d in data])
        state = Epochs(islands, 0, time.perf_counter() - clock)
        yield state
    else:
        state = start
    before = state.elapsed
    clock = time.perf_counter()
    interval = config.islands.migration.interval
    while stop_reason(config, state) is None:
        gen = state.islands[0].generation
        todo = interval
        if config.stop.generations is not None:
            todo = min(todo, config.stop.generations - gen)
        left = time_left(config, elapsed=before + time.perf_counter() - clock)
        with time_limit(left):  # an epoch of a big game can take minutes
            islands = run_map(run_epoch, [(d, p, todo) for d, p in zip(data, state.islands)])
        state = Epochs(islands, state.epoch + 1, before + time.perf_counter() - clock)
        if stop_reason(config, state) is None:
            migrate(state.islands, configs, config, state.epoch)
        yield state


def stop_reason(config: Config, state: Epochs) -> str | None:
    """Why the run stops after this epoch (the loop's stop rule, on the best of all
    islands), or None."""
    from evo.ea.loop import stop_rule

    return stop_rule(
        config,
        best=min(p.logbook[-1]["min"] for p in state.islands),
        generation=state.islands[0].generation,
        elapsed=state.elapsed,
    )


def island_logbook(state: Epochs) -> list[dict]:
    """The islands' own records of the last epoch, each with its island number."""
    out = []
    for i, p in enumerate(state.islands):
        for r in p.logbook[-len(p.keys) :]:
            out.append({"island": i, **r})
    return out


def run_logbook(state: Epochs) -> tools.Logbook:
    """The run's records of the last epoch (see :func:`run_record`)."""
    lb = new_logbook()
    for k in range(len(state.islands[0].keys)):
        lb.record(**run_record(state.islands, k))
    return lb


# ----------------------------------------------------------------- the run
ISLANDS_DIR = "islands"
ISLANDS_LOGBOOK = "islands.jsonl"
_POINTER = "current.json"
_FORMAT = "evo-islands"


def save_islands(run_dir: Path, config: Config, state: Epochs, logbook: list[dict]) -> None:
    """Checkpoint the islands after an epoch: each island's state in a new epoch folder,
    then the pointer to it (written atomically, so a kill leaves the previous epoch)."""
    import shutil

    from evo.core.files import atomic_write_json
    from evo.runs.checkpoint import save_checkpoint

    root = Path(run_dir) / ISLANDS_DIR
    folder = root / f"epoch-{state.epoch:06d}"
    folder.mkdir(parents=True, exist_ok=True)
    for i, p in enumerate(state.islands):
        island = config.island(i)
        save_checkpoint(folder / f"island-{i:03d}.ckpt", unpack(p, island), island)
    doc = {
        "format": _FORMAT,
        "version": 1,
        "epoch": state.epoch,
        "folder": folder.name,
        "elapsed": state.elapsed,
        "logbook": logbook,
    }
    atomic_write_json(root / _POINTER, doc, indent=None)
    for old in root.glob("epoch-*"):
        if old.name != folder.name:
            shutil.rmtree(old, ignore_errors=True)


def load_islands(run_dir: Path, config: Config) -> tuple[Epochs, list[dict]]:
    """The islands of the last checkpoint, and the run's logbook up to it."""
    import json

    from evo.core.game import make_game
    from evo.runs.checkpoint import CheckpointError, load_checkpoint

    root = Path(run_dir) / ISLANDS_DIR
    try:
        doc = json.loads((root / _POINTER).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise CheckpointError(
            f"{root / _POINTER}: no island checkpoint to resume from ({e})"
        ) from None
    if not isinstance(doc, dict) or doc.get("format") != _FORMAT:
        raise CheckpointError(f"{root / _POINTER} is not an evo island checkpoint")
    g = config.game
    game = make_game(g.pegs, g.colors, g.variant)
    islands = []
    for i in range(config.islands.count):
        island = config.island(i)
        path = root / str(doc["folder"]) / f"island-{i:03d}.ckpt"
        islands.append(pack(load_checkpoint(path, island, game)))
    return Epochs(islands, int(doc["epoch"]), float(doc["elapsed"])), list(doc["logbook"])


def evolve_islands(
    config: Config,
    *,
    run_dir: Path | None = None,
    resume: bool = False,
    progress: bool = True,
    knuth: int | None | bool = True,
    scheduler: str | None = None,
):
    """Run (or continue) the island evolution of ``config``; the run directory gets the
    same files as a single population's run, plus ``islands.jsonl`` and ``islands/``.
    Every epoch is checkpointed, with ``best.json`` and ``summary.json`` (status
    ``running``); a stop signal ends the run after the epoch under way, and a lost
    scheduler ends it with :class:`~evo.ea.loop.RunInterrupted` saying so."""
    import contextlib

    from evo.ea.cluster import ClusterLost, island_map
    from evo.ea.loop import Result, RunInterrupted, _knuth, _stop_signals, check_run
    from evo.runs.rundir import append_logbook, lock_run, write_logbook

    game = check_run(config).prepare()
    knuth_total = _knuth(game, knuth)
    lock = lock_run(run_dir) if run_dir is not None else contextlib.nullcontext()
    with lock, _stop_signals() as got:
        start, records = load_islands(run_dir, config) if resume and run_dir else (None, [])
        if run_dir is not None:
            write_logbook(run_dir, records)
            if start is None:
                (Path(run_dir) / ISLANDS_LOGBOOK).unlink(missing_ok=True)
        state = start
        bar = _Bar(config, knuth_total, progress)
        since = time.perf_counter()
        try:
            with island_map(config, scheduler=scheduler) as run_map, bar:
                for state in epochs(config, run_map, start=start):
                    since = time.perf_counter()
                    new = list(run_logbook(state))
                    records += new
                    if run_dir is not None:
                        append_logbook(run_dir, new)
                        _append(Path(run_dir) / ISLANDS_LOGBOOK, island_logbook(state))
                        save_islands(run_dir, config, state, records)
                        _write_state(run_dir, config, game, state, records, knuth_total)
                    bar.update(state, records)
                    if "signal" in got:
                        raise KeyboardInterrupt
        except GenerationCut:  # the time limit fell inside an epoch: keep the one before
            assert state is not None
            state = Epochs(state.islands, state.epoch, state.elapsed + time.perf_counter() - since)
        except KeyboardInterrupt:  # every epoch is checkpointed: nothing more to save
            gen = records[-1]["gen"] if records else -1
            if run_dir is not None and state is not None:
                _write_state(run_dir, config, game, state, records, knuth_total, "interrupted")
            raise RunInterrupted(gen, run_dir, got.get("signal", "SIGINT")) from None
        except ClusterLost as e:
            gen = records[-1]["gen"] if records else -1
            raise RunInterrupted(gen, run_dir, reason=str(e)) from e
        assert state is not None
        best, run_state, summary = _outcome(config, game, state, records, knuth_total)
        if run_dir is not None:
            _write_state(run_dir, config, game, state, records, knuth_total, "finished")
    return Result(best, run_state, summary)


def _outcome(
    config: Config,
    game,
    state: Epochs,
    records: list[dict],
    knuth: int | None,
    status: str = "finished",
):
    """The best breaker of all islands, the run's state as one population sees it (the
    halls of fame merged, the run's logbook) and its summary."""
    from evo.runs.checkpoint import State
    from evo.runs.summary import make_summary

    best = best_tree(state.islands, config)
    hof = hall_of_fame(config)
    for i, p in enumerate(state.islands):
        hof.update(unpack(p, config.island(i)).halloffame)
    logbook = new_logbook()
    for r in records:
        logbook.record(**r)
    evaluations = sum(r["nevals"] for r in records)
    gen = state.islands[0].generation
    run_state = State(gen, [], hof, logbook, None, state.elapsed, evaluations)
    stopped_by = stop_reason(config, state) if status == "finished" else None
    summary = make_summary(
        config, game, run_state, best, knuth=knuth, stopped_by=stopped_by, status=status
    )
    summary["islands"] = config.islands.count
    return best, run_state, summary


def _write_state(
    run_dir: Path,
    config: Config,
    game,
    state: Epochs,
    records: list[dict],
    knuth: int | None,
    status: str = "running",
) -> None:
    """``best.json`` and ``summary.json`` as of this epoch."""
    from evo.runs.rundir import write_best, write_summary

    best, _, summary = _outcome(config, game, state, records, knuth, status)
    write_best(run_dir, best, run=Path(run_dir).name, config=config.name)
    write_summary(run_dir, summary)


def _append(path: Path, records: list[dict]) -> None:
    import json

    with open(path, "a", encoding="utf-8") as f:
        f.write("".join(json.dumps(r) + "\n" for r in records))


class _Bar:
    """One progress bar for the run: generations, epochs, best of all islands, Knuth."""

    def __init__(self, config: Config, knuth: int | None, enabled: bool):
        import sys

        self.bar = None
        self.knuth = "n/a" if knuth is None else knuth
        if enabled and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(
                total=config.stop.generations if config.stop.seconds is None else None,
                desc=f"{config.name} ({config.islands.count} islands)",
                unit="gen",
                file=sys.stderr,
                dynamic_ncols=True,
            )

    def update(self, state: Epochs, records: list[dict]) -> None:
        if self.bar is not None:
            r = records[-1]
            self.bar.set_postfix_str(
                f"epoch={state.epoch} best={r['min']} knuth={self.knuth}", refresh=False
            )
            self.bar.update(r["gen"] - self.bar.n)

    def __enter__(self) -> _Bar:
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()
