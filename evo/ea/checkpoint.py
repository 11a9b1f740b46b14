"""A run's state, and its checkpoints: what a run needs to go on after a stop.

A checkpoint holds plain trees and fitness values (so it does not depend on DEAP's
``creator``), the logbook, Python's random state, the elapsed time and the config it
belongs to; it is written atomically, so a kill leaves the previous one intact.
"""

from __future__ import annotations

import copy
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deap import tools

from evo.config import Config
from evo.ea.individuals import as_individual, as_tree, individual_class, same_tree
from evo.ea.stats import new_logbook
from evo.files import atomic_write_bytes
from evo.game import Game
from evo.rundir import CHECKPOINT, append_logbook, write_logbook

CHECKPOINT_FORMAT = "evo-checkpoint"
CHECKPOINT_VERSION = 1


class CheckpointError(ValueError):
    """A checkpoint cannot be read or does not belong to the run."""


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

    def snapshot(self) -> State:
        """A copy that later generations do not change (individuals are never modified
        in place, so lists of them are enough)."""
        hof = copy.copy(self.halloffame)
        hof.items = list(self.halloffame.items)
        hof.keys = list(self.halloffame.keys)
        lb = new_logbook()
        lb.extend(self.logbook)  # records are never changed once written
        return State(
            self.generation,
            list(self.population),
            hof,
            lb,
            self.random_state,
            self.elapsed,
            self.evaluations,
        )


def hall_of_fame(config: Config):
    """The Pareto front (NSGA-II), else the ``hall_of_fame`` best distinct breakers."""
    if config.selection.method == "nsga2":
        return tools.ParetoFront(similar=same_tree)
    return tools.HallOfFame(config.hall_of_fame, similar=same_tree)


def save_checkpoint(path: Path, state: State, config: Config) -> None:
    """Write the state atomically."""
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
    pareto = config.selection.method == "nsga2"
    cls = individual_class(pareto=pareto)
    hof = hall_of_fame(config)

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
    if pareto:
        hof.update(hof_items)
    else:
        for ind in hof_items:  # already sorted best first
            hof.keys.append(ind.fitness)
            hof.items.append(ind)
    logbook = new_logbook()
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


class Recorder:
    """Writes a run's progress into its directory (nothing without one): the logbook
    lines of finished generations and a checkpoint every ``checkpoint_interval``
    generations, at an interruption (the last finished generation) and at the end."""

    def __init__(self, run_dir: Path | None, config: Config):
        self.run_dir = None if run_dir is None else Path(run_dir)
        self.config = config
        self.path = None if self.run_dir is None else self.run_dir / CHECKPOINT
        self.logged = 0
        self.last_good: State | None = None

    def load(self, game: Game) -> State:
        """The state of the run's checkpoint."""
        if self.path is None or not self.path.exists():
            raise CheckpointError(f"{self.run_dir} has no {CHECKPOINT} to resume from")
        return load_checkpoint(self.path, self.config, game)

    def start(self, state: State, *, resumed: bool) -> None:
        """The first state of this process: checkpointed when new; the logbook file made
        to match it (on resume, what was logged after the checkpoint is dropped)."""
        if self.run_dir is not None and self.path is not None:
            if not resumed:
                save_checkpoint(self.path, state, self.config)
            write_logbook(self.run_dir, list(state.logbook))
        self.logged = len(state.logbook)
        self.last_good = state.snapshot()

    def generation_done(self, state: State) -> None:
        """After each generation: remembered, and checkpointed when it is time."""
        self.last_good = state.snapshot()
        if state.generation % self.config.checkpoint_interval == 0:
            self.save(state)

    def interrupted(self) -> int:
        """Checkpoint the last finished generation; returns its number (-1: none)."""
        if self.last_good is None:
            return -1
        self.save(self.last_good)
        return self.last_good.generation

    def save(self, state: State) -> None:
        """A checkpoint of ``state`` and the logbook lines not yet written."""
        if self.run_dir is None or self.path is None:
            return
        save_checkpoint(self.path, state, self.config)
        append_logbook(self.run_dir, state.logbook[self.logged :])
        self.logged = len(state.logbook)
